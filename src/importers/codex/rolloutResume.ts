/**
 * Where an import of a Codex rollout stopped, kept with its run (`metadata.source.tail`: fileTail.ts's fields and
 * the mapper's state there) so that the next import of the grown rollout maps only from there (rolloutTail.ts).
 * `RolloutRecorder` follows the mapping and keeps the last line boundary a later import may take it up from: no
 * model call being assembled, no usage waiting for one, no op since the last checkpoint (the state there is the
 * store's at that checkpoint), and no checkpoint a later `token_count` may still set the usage of — a boundary
 * while the last call has none waits until the next line opens a model call (its usage can no longer come) and is
 * dropped when a usage comes first. The digest chain there is taken once the plan is whole (a usage set later
 * changes an op already made). Reads files (the checks of the kept bytes); writes nothing.
 */
import { z } from 'zod';
import { FileTailSchema, keptTail, type ByteRange, type FileTail } from '../fileTail';
import type { StreamedResume } from '../planDigest';
import { PlanPlace } from '../planPlace';
import type { Sha256State } from '../resumableSha256';
import type { PlanOp, RunPlan, RunPlanBuilder } from '../runPlan';
import type { RolloutMapper, RolloutShape, RolloutState } from './rolloutMapper';

/** What the rollout's first lines decided that a new line must not change (or the file is read whole). */
export interface RolloutFacts extends RolloutShape {
  /** The run's facts came from a `session_meta` line (a later one changes nothing). */
  meta: boolean;
  /** The run's model came from a `turn_context` line (a later one changes the model, not the run's context). */
  model: boolean;
}

export interface RolloutTail extends FileTail {
  state: RolloutState;
  facts: RolloutFacts;
  /** The calls still open there. */
  open: string[];
}

export const RolloutTailSchema = FileTailSchema.extend({
  state: z.object({
    lastTotal: z.record(z.string(), z.unknown()).optional(),
    tools: z.array(z.string()),
    compactions: z.number().int().nonnegative(),
    tokenEvents: z.number().int().nonnegative(),
  }),
  facts: z.object({
    fromEvents: z.boolean(),
    reasoningFromEvents: z.boolean(),
    meta: z.boolean(),
    model: z.boolean(),
  }),
  open: z.array(z.string()),
});

interface Candidate {
  at: number;
  atLine: number;
  /** Ops made before it: the chain is taken there once the plan is whole. */
  ops: number;
  keep: number;
  lastAt: number;
  state: RolloutState;
  open: string[];
}

export class RolloutRecorder {
  private confirmed: Candidate | undefined;
  private waiting: (Candidate & { lastCall: string }) | undefined;
  private readonly place: PlanPlace;

  /** `also`: sees every op too (the builder has one observer). */
  constructor(builder: RunPlanBuilder, also?: (op: PlanOp) => void) {
    this.place = new PlanPlace(builder, also);
  }

  /** Before the line at `at` (numbered `atLine`), or at the end of the lines read. */
  before(at: number, atLine: number, mapper: RolloutMapper): void {
    const b = mapper.items.between;
    if (b.assembling || b.early || !this.place.settled) return;
    const c: Candidate = {
      ...this.place.here(at, atLine),
      state: mapper.state(),
    };
    if (b.lastCall === undefined) {
      this.confirmed = c;
      this.waiting = undefined;
    } else this.waiting = { ...c, lastCall: b.lastCall };
  }

  /** After a line is mapped. */
  after(mapper: RolloutMapper): void {
    if (!this.waiting) return;
    const b = mapper.items.between;
    if (b.assembling) {
      const { lastCall: _dead, ...c } = this.waiting;
      this.confirmed = c;
      this.waiting = undefined;
    } else if (b.lastCall !== this.waiting.lastCall) this.waiting = undefined;
  }

  /**
   * The tail to keep and the run's resume facts (growth.ts), from the whole plan: `resume` takes its ops (from
   * the chain the plan started from), the tail when a boundary was found and the bytes' hash can go on.
   */
  result(input: {
    plan: RunPlan;
    resume: StreamedResume;
    facts: RolloutFacts;
    read: ByteRange;
    bytes: number;
    sha: Sha256State | undefined;
  }): { resume: { checkpoints: number; digest: string }; tail: RolloutTail | undefined } {
    const c = this.confirmed;
    const { resume, tail } = keptTail(input, c);
    if (!c || !tail) return { resume, tail: undefined };
    return { resume, tail: { ...tail, state: c.state, facts: input.facts, open: c.open } };
  }
}

/**
 * Where an import of a Gemini CLI chat recording (JSON Lines) stopped, kept with its run (`metadata.source.tail`:
 * fileTail.ts's fields and the chat's state there) so that the next import of the grown recording maps only from
 * there (recordingTail.ts). The CLI writes a message again under its id as it goes on (a model turn with its tool
 * calls and tokens), so the place kept is before the first record of a message — at latest the last one, which may
 * still be written again — where the run has taken a checkpoint for every op and no earlier message has a record
 * after it; the ids of the messages before it are kept (as 4-byte hashes: a match reads the file whole) so that a
 * later record that writes one of them again is seen. Reads files (the checks of the kept bytes); writes nothing.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { FileTailSchema, keptTail, type ByteRange, type FileTail } from '../fileTail';
import type { StreamedResume } from '../planDigest';
import { PlanPlace } from '../planPlace';
import type { Sha256State } from '../resumableSha256';
import type { PlanOp, RunPlan, RunPlanBuilder } from '../runPlan';

/** The chat's state at the place kept. */
export interface RecordingState {
  /** The messages before it (4-byte sha256 of each id, base64 of them all). */
  ids: string;
  /** Notes (info, warning, error messages) before it: the first of the run's `metadata.notes`. */
  notes: number;
  /** Tool names and the first model of the messages before it (the run's context is made of the whole chat's). */
  tools: string[];
  model?: string;
  /** The chat's metadata there: what the run is made of, and its last update. */
  meta: { sessionId: string; projectHash?: string; startTime?: string; lastUpdated?: string };
  /** Message records before it that wrote a message again. */
  rewritten: number;
  /** The calls still open there. */
  open: string[];
}

export interface RecordingTail extends FileTail {
  state: RecordingState;
}

export const RecordingTailSchema = FileTailSchema.extend({
  state: z.object({
    ids: z.string(),
    notes: z.number().int().nonnegative(),
    tools: z.array(z.string()),
    model: z.string().optional(),
    meta: z.object({
      sessionId: z.string(),
      projectHash: z.string().optional(),
      startTime: z.string().optional(),
      lastUpdated: z.string().optional(),
    }),
    rewritten: z.number().int().nonnegative(),
    open: z.array(z.string()),
  }),
});

const idHash = (id: string): Buffer => createHash('sha256').update(id).digest().subarray(0, 4);

/** The kept hashes of message ids, and whether an id may be one of them. */
export const MessageIds = {
  pack: (ids: readonly string[]): string => Buffer.concat(ids.map(idHash)).toString('base64'),
  has(packed: string): (id: string) => boolean {
    const buf = Buffer.from(packed, 'base64');
    const set = new Set<number>();
    for (let i = 0; i + 4 <= buf.length; i += 4) set.add(buf.readUInt32BE(i));
    return (id) => set.has(idHash(id).readUInt32BE(0));
  },
};

interface Candidate {
  at: number;
  atLine: number;
  ops: number;
  keep: number;
  lastAt: number;
  /** Taken when the tail is kept (a place is found before every message: only the last one's state is kept). */
  state: () => Omit<RecordingState, 'open'>;
  open: string[];
}

export class RecordingRecorder {
  private candidate: Candidate | undefined;
  private readonly place: PlanPlace;

  /** `also`: sees every op too (the builder has one observer). */
  constructor(builder: RunPlanBuilder, also?: (op: PlanOp) => void) {
    this.place = new PlanPlace(builder, also);
  }

  /**
   * Before a message whose first record is at `at` (line `atLine`): `earlierDone` when no message before it has a
   * record after that one; `state` gives the chat's state there when the place is kept (called once, at the end:
   * it must give what was so when `before` was called).
   */
  before(at: number, atLine: number, earlierDone: boolean, state: () => Omit<RecordingState, 'open'>): void {
    if (!earlierDone || !this.place.settled) return;
    this.candidate = {
      ...this.place.here(at, atLine),
      state,
    };
  }

  /** The tail to keep (when a place was found and the bytes' hash can go on) and the run's resume facts. */
  result(input: {
    plan: RunPlan;
    resume: StreamedResume;
    read: ByteRange;
    bytes: number;
    sha: Sha256State | undefined;
  }): { resume: { checkpoints: number; digest: string }; tail: RecordingTail | undefined } {
    const c = this.candidate;
    const { resume, tail } = keptTail(input, c);
    if (!c || !tail) return { resume, tail: undefined };
    return { resume, tail: { ...tail, state: { ...c.state(), open: c.open } } };
  }
}

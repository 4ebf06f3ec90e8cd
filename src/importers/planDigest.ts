/**
 * The digest of a run's plan up to a checkpoint: what a later import of a grown file compares its own plan with
 * (growth.ts). This release's digest (`v3:`) is a chain, one link a checkpoint: link 0 is the run's facts and start,
 * link n the sha256 of link n-1 and the ops up to and with the one taking checkpoint n-1 — so an import that read
 * only a file's new lines continues it from the link it kept (claudeCode/tailImport.ts), and a whole read still
 * checks every op. Digests of older releases (`v2:`, one hash over every op; bare hex, the ops' JSON text) are still
 * computed when a stored digest is of their kind. Pure.
 */
import { createHash, type Hash } from 'node:crypto';
import type { PlanHead, PlanOp, RunPlan } from './runPlan';

export const takesCheckpoint = (op: PlanOp): boolean =>
  op.op === 'checkpoint' || op.op === 'beginTool' || op.op === 'finishTool';

/** True for the ops of a run's closing part: agent_end and the cancellation of calls left unanswered. */
export const closing = (op: PlanOp): boolean =>
  (op.op === 'checkpoint' && op.boundary === 'agent_end') || (op.op === 'finishTool' && op.outcome === 'cancelled');

/** The digest of a plan's run facts and start, which its ops' digest continues. */
function headDigest(plan: PlanHead): Hash {
  const hash = createHash('sha256');
  const { runId, sessionId, agentId, mode, parentRunId, forkFromCheckpointId, startedAt, initial } = plan;
  hash.update(JSON.stringify({ runId, sessionId, agentId, mode, parentRunId, forkFromCheckpointId, startedAt }));
  hash.update(JSON.stringify({ ...initial, runtimeContext: undefined }));
  return hash;
}

/** An op as the digests of older releases took it: its JSON text (a context change as the fact alone). */
const opText = (op: PlanOp): string => (op.op === 'context' ? '{"op":"context"}' : JSON.stringify(op));

const DIGEST_V2 = 'v2:';
const DIGEST_V3 = 'v3:';

/** A call's result this long goes to the hash as its UTF-8 (its length in the op's text), not as escaped JSON. */
const LONG_RESULT = 256;

/**
 * Feeds an op to a plan's digest (`v2:` and `v3:`): its JSON text, but a call's result that is a long string
 * — most of an import's bytes — goes to the hash as it is, its length in the op's text in its place, so the digest
 * costs one pass over it instead of JSON.stringify's escaping pass and then one over the text (~60 µs a 10 KB
 * Read result with `→` line numbers). A context change is the fact alone.
 */
function digestOp(hash: Hash, op: PlanOp): void {
  if (op.op === 'finishTool' && typeof op.value === 'string' && op.value.length >= LONG_RESULT) {
    hash.update(JSON.stringify({ ...op, value: { longResult: op.value.length } }));
    hash.update(op.value);
  } else hash.update(opText(op));
}

/** The `v3:` chain: the link after every op that takes a checkpoint. */
export class DigestChain {
  private group: Hash;
  /** Hex of the last link: the digest up to and with the last op that took a checkpoint. */
  link: string;
  /** Checkpoints taken so far. */
  taken: number;

  constructor(link: string, taken = 0) {
    this.link = link;
    this.taken = taken;
    this.group = createHash('sha256').update(link);
  }

  static of(head: PlanHead): DigestChain {
    return new DigestChain(headDigest(head).digest('hex'));
  }

  op(op: PlanOp): void {
    digestOp(this.group, op);
    if (!takesCheckpoint(op)) return;
    this.link = this.group.digest('hex');
    this.group = createHash('sha256').update(this.link);
    this.taken++;
  }

  /** The digest as stored: `v3:` and the link. */
  static digest(link: string): string {
    return `${DIGEST_V3}${link}`;
  }

  /** The link of a stored `v3:` digest (undefined for an older kind). */
  static linkOf(digest: string): string | undefined {
    return digest.startsWith(DIGEST_V3) ? digest.slice(DIGEST_V3.length) : undefined;
  }
}

/**
 * The digest of `plan` (its run's facts, start and ops) up to and with the op taking checkpoint `checkpoints - 1`.
 * Runtime contexts are left out but for where they change: an importer derives them from session facts of the
 * whole file (tools used, title, version), which a grown file may change; `contextSegments` carries them over.
 * `like`: a digest to take this one as (its version): this release's (`v3:`) unless it is one an older release
 * wrote (`v2:`, or hex alone: the JSON text of each op hashed).
 */
export function planDigest(plan: RunPlan, checkpoints: number, like?: string): string | undefined {
  if (like === undefined || like.startsWith(DIGEST_V3)) {
    const chain = DigestChain.of(plan);
    for (const op of plan.ops) {
      if (chain.taken === checkpoints) break;
      chain.op(op);
    }
    return chain.taken === checkpoints ? DigestChain.digest(chain.link) : undefined;
  }
  const hash = headDigest(plan);
  const v1 = !like.startsWith(DIGEST_V2);
  let taken = 0;
  for (const op of plan.ops) {
    if (taken === checkpoints) break;
    if (v1) hash.update(opText(op));
    else digestOp(hash, op);
    if (takesCheckpoint(op)) taken++;
  }
  if (taken !== checkpoints) return undefined;
  return v1 ? hash.digest('hex') : `${DIGEST_V2}${hash.digest('hex')}`;
}

/** Where a run's own part may end, as StreamedResume follows it (kept with a run read only in part: `state`). */
export interface ResumeMarks {
  /** The last before_model_call or before_prompt_build: checkpoints before it, and for a model call the link there. */
  mark?: { boundary: 'before_model_call' | 'before_prompt_build'; checkpoints: number; link?: string };
  /** Where the run's closing part (agent_end, calls cancelled) at its end starts. */
  closingFrom?: { checkpoints: number; link: string };
}

/**
 * `resumePoint` and `planDigest` of a plan whose ops stream past (`RunPlanBuilder.streamTo`): fed each op as it
 * is made, it answers at the end what they answer for the same plan in memory, keeping the link of the chain at
 * the checkpoints where the run's own part may end (before the last model call, before a closing part). `from`
 * takes it up again after a checkpoint, from the chain's link and marks there.
 */
export class StreamedResume {
  private readonly chain: DigestChain;
  /** Ops since the last one that took a checkpoint: digested when the next one comes (the link there is kept). */
  private since: PlanOp[] = [];
  private marks: ResumeMarks = {};

  constructor(head: PlanHead) {
    this.chain = DigestChain.of(head);
  }

  static from(state: { checkpoints: number; link: string; marks: ResumeMarks }): StreamedResume {
    const r = Object.create(StreamedResume.prototype) as StreamedResume;
    Object.assign(r, { chain: new DigestChain(state.link, state.checkpoints), since: [], marks: { ...state.marks } });
    return r;
  }

  op(op: PlanOp): void {
    if (!takesCheckpoint(op)) {
      this.since.push(op);
      return;
    }
    const { taken, link } = this.chain;
    // `link` is the digest up to and with the last op that took a checkpoint: planDigest(plan, taken).
    if (op.op === 'checkpoint' && op.boundary === 'before_model_call') {
      this.marks = { mark: { boundary: op.boundary, checkpoints: taken, link } };
    } else if (op.op === 'checkpoint' && op.boundary === 'before_prompt_build') {
      this.marks = { mark: { boundary: op.boundary, checkpoints: taken } };
    } else if (closing(op)) this.marks.closingFrom ??= { checkpoints: taken, link };
    else delete this.marks.closingFrom;
    for (const earlier of this.since) this.chain.op(earlier);
    this.since = [];
    this.chain.op(op);
  }

  /**
   * The chain where the ops seen so far stand — only when every op seen took or followed a checkpoint taken
   * (none waits for the next one): what a later import continues from.
   */
  state(): { checkpoints: number; link: string; marks: ResumeMarks } | undefined {
    if (this.since.length > 0) return undefined;
    return { checkpoints: this.chain.taken, link: this.chain.link, marks: JSON.parse(JSON.stringify(this.marks)) };
  }

  /** What `resumePoint` and `planDigest` answer for the plan of the ops seen. */
  result(): { checkpoints: number; digest: string } {
    const { mark, closingFrom } = this.marks;
    const at =
      mark?.boundary === 'before_model_call' && mark.link !== undefined
        ? { checkpoints: mark.checkpoints, link: mark.link }
        : (closingFrom ?? { checkpoints: this.chain.taken, link: this.chain.link });
    return { checkpoints: at.checkpoints, digest: DigestChain.digest(at.link) };
  }
}

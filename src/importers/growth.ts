/**
 * A transcript that grew: how an import recognises the runs it made from the
 * same file earlier and continues them instead of making new ones. An import
 * keeps in each run's `metadata.source` the bytes of the file it read, their
 * sha256, and where the run's own part ends (`resume`: the checkpoints before
 * the last model call, which the next lines may extend, or before the end a
 * run is closed with — the cancellation of calls still unanswered and
 * `agent_end` — and a digest of the plan up to there). A later import of
 * the file is compared with that: the old bytes must be the start of the
 * new file and the new plan must be the old one up to `resume`, or the file
 * is imported as a new run and the warning says why. Pure but for reading
 * the file's first bytes; no store writes (importFile and writePlan do them).
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { RuntimeContextSnapshot } from '../model';
import type { RunStore, RunSummary } from '../store';
import type { PlanOp, RunPlan } from './runPlan';
import { closing, planDigest, takesCheckpoint } from './planDigest';

export { StreamedResume, planDigest } from './planDigest';

/** What `metadata.source` holds for a run that can grow. */
export interface GrowableSource {
  file: string;
  /** Bytes of the file read. */
  bytes: number;
  /** sha256 (hex) of those bytes. */
  sha256: string;
  resume: {
    /** Checkpoints of the run before its closing part: the run continues after them. */
    checkpoints: number;
    /** Digest of the plan up to and with the last of them (`v2:` and hex, or hex: see planDigest). */
    digest: string;
  };
}

/** sha256 of the first `bytes` bytes of `file` (undefined when the file is shorter). */
export function prefixSha256(file: string, bytes: number): string | undefined {
  const hash = createHash('sha256');
  const buf = Buffer.alloc(1 << 20);
  const fd = openSync(file, 'r');
  try {
    let done = 0;
    while (done < bytes) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, bytes - done), done);
      if (n === 0) return undefined;
      hash.update(buf.subarray(0, n));
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** The index of the first op after the one taking checkpoint `checkpoints - 1` (0 for none). */
function opIndexAfter(plan: RunPlan, checkpoints: number): number {
  let taken = 0;
  let i = 0;
  while (taken < checkpoints && i < plan.ops.length) {
    if (takesCheckpoint(plan.ops[i] as PlanOp)) taken++;
    i++;
  }
  return i;
}

/**
 * Where a plan's own part ends — what a longer copy of the file keeps: the checkpoints before its last model
 * call (the lines of one response may not all be written yet: Claude Code writes a response as one line per
 * content block, and the results of its first calls can come before its last `tool_use` lines), or, when no
 * model call follows the last prompt build, before its closing part. `fromOp`: the first op after the last
 * checkpoint kept, what a continued run replays from.
 */
export function resumePoint(plan: RunPlan): { checkpoints: number; fromOp: number } {
  let count = plan.checkpointCount;
  let closingEnd = true;
  let kept = plan.checkpointCount;
  for (let i = plan.ops.length - 1; i >= 0; i--) {
    const op = plan.ops[i] as PlanOp;
    if (!takesCheckpoint(op)) continue;
    count--;
    if (closingEnd && closing(op)) kept = count;
    else closingEnd = false;
    if (op.op === 'checkpoint' && op.boundary === 'before_model_call') {
      kept = count;
      break;
    }
    if (op.op === 'checkpoint' && op.boundary === 'before_prompt_build') break;
  }
  return { checkpoints: kept, fromOp: opIndexAfter(plan, kept) };
}

/**
 * Adds the source facts a later import recognises a grown file by (bytes read per file: what the reader read).
 * `resumeOf`: where a plan's own part ends and its digest there, for a plan whose ops streamed (StreamedResume);
 * `shas`: the sha256 of each file's bytes read, when known.
 */
export function noteGrowable(
  plans: RunPlan[],
  bytesRead: ReadonlyMap<string, number>,
  resumeOf?: (plan: RunPlan) => { checkpoints: number; digest: string | undefined },
  shas = new Map<string, string | undefined>(),
): void {
  for (const plan of plans) {
    const source = plan.metadata.source as Partial<GrowableSource> | undefined;
    if (!source?.file) continue;
    const bytes = bytesRead.get(source.file);
    if (bytes === undefined) continue;
    // a reader that hashed the bytes and followed the digest as it read them gave both already (codex/)
    if (source.bytes === bytes && source.sha256 !== undefined && source.resume !== undefined) continue;
    if (!shas.has(source.file)) shas.set(source.file, prefixSha256(source.file, bytes));
    const sha256 = shas.get(source.file);
    const { checkpoints, digest } = resumeOf
      ? resumeOf(plan)
      : (({ checkpoints: c }) => ({ checkpoints: c, digest: planDigest(plan, c) }))(resumePoint(plan));
    if (sha256 === undefined || digest === undefined) continue;
    plan.metadata.source = { ...source, bytes, sha256, resume: { checkpoints, digest } };
  }
}

export type Growth =
  /** Not in the store: written whole. */
  | { kind: 'new' }
  /** In the store from the same bytes. */
  | { kind: 'same' }
  /** In the store from the start of this file: continued after `keep` checkpoints, replaying ops from `fromOp`. */
  | {
      kind: 'grown';
      keep: number;
      fromOp: number;
      /** The kept checkpoints' runtime contexts as the grown file gives them (RunStore.reopenRun). */
      runtimeContexts: { fromCheckpoint: number; runtimeContext: RuntimeContextSnapshot }[];
    }
  /** In the store from other content: why it cannot be continued. */
  | { kind: 'diverged'; reason: string };

/** How `plan` stands to the run of its id already in the store. */
export function growthOf(store: RunStore, plan: RunPlan): Growth {
  if (!store.hasRun(plan.runId)) return { kind: 'new' };
  const run: RunSummary = store.getRun(plan.runId);
  const old = run.metadata.source as Partial<GrowableSource> | undefined;
  const now = plan.metadata.source as Partial<GrowableSource> | undefined;
  const why = (reason: string): Growth => ({ kind: 'diverged', reason: `${plan.runId} ${reason}` });
  if (!old?.sha256 || old.bytes === undefined || !old.resume || !now?.file || now.bytes === undefined) {
    return why('was not imported by a version that can continue it');
  }
  const sameBytes = old.sha256 === now.sha256 && old.bytes === now.bytes;
  // the same bytes, but its sub-agents read differently (a sub-agent's own file appeared since): its end is written
  // again from the resume point, with the metadata that lists them
  if (sameBytes && sameSubagents(run.metadata, plan.metadata)) return { kind: 'same' };
  if (run.status === 'running') return why('is still being written');
  if (now.bytes < old.bytes) return why(`was imported from ${old.bytes} bytes and the file now has ${now.bytes}`);
  if (!sameBytes && prefixSha256(now.file, old.bytes) !== old.sha256) {
    return why(`was imported from ${old.bytes} bytes that are not the start of this file`);
  }
  const { checkpoints, digest } = old.resume;
  if (planDigest(plan, checkpoints, digest) !== digest) {
    return why(
      `reads differently from the file's first ${old.bytes} bytes now (its first ${checkpoints} checkpoints changed)`,
    );
  }
  const fromOp = opIndexAfter(plan, checkpoints);
  const runtimeContexts = [{ fromCheckpoint: 0, runtimeContext: plan.initial.runtimeContext }];
  let taken = 0;
  for (const op of plan.ops.slice(0, fromOp)) {
    if (op.op === 'context') {
      if (runtimeContexts.at(-1)?.fromCheckpoint === taken) runtimeContexts.pop();
      runtimeContexts.push({ fromCheckpoint: taken, runtimeContext: op.runtimeContext });
    }
    if (takesCheckpoint(op)) taken++;
  }
  return { kind: 'grown', keep: checkpoints, fromOp, runtimeContexts };
}

/** True when a run's metadata and a plan's name the same sub-agents (`metadata.subagents`, the links to their runs). */
function sameSubagents(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return JSON.stringify(a.subagents ?? []) === JSON.stringify(b.subagents ?? []);
}

/**
 * The store's side of continuing a run from the tail its last import kept (fileTail.ts reads the file's side), the
 * same for every format: the run reopened at its kept checkpoints with a plan builder going on from the last of
 * them, the writer that appends to it, the source facts the grown file gives, and a finished plan written through
 * the one writer. Called inside the store transaction the format's tail import opens; writes nothing outside it.
 */
import type { z } from 'zod';
import type { Checkpoint } from '../model';
import type { RunStore, RunSummary } from '../store';
import { RunWriter } from '../writer';
import type { FileTail, GrownFile, TailOutcome } from './fileTail';
import { storeRebuiltFilesOf } from './rebuiltFiles';
import { RunPlanBuilder, type RunPlan } from './runPlan';
import { PlanWriter } from './writePlan';

/**
 * The run `runId` imported from `file` and the source facts its import kept (`schema`: the format's), or why it
 * cannot be continued from them.
 */
export function keptRun<S extends { file: string }>(
  store: RunStore,
  runId: string,
  file: string,
  schema: z.ZodType<S>,
): { kind: 'fallback'; why: string } | { kind: 'kept'; run: RunSummary; source: S } {
  if (!store.hasRun(runId)) return { kind: 'fallback', why: 'not imported yet' };
  const run = store.getRun(runId);
  if (run.status === 'running') return { kind: 'fallback', why: 'the run is still being written' };
  const parsed = schema.safeParse(run.metadata.source);
  if (!parsed.success || parsed.data.file !== file) return { kind: 'fallback', why: 'no tail kept for this file' };
  return { kind: 'kept', run, source: parsed.data };
}

/** The run reopened at its kept checkpoints: its last kept checkpoint, the call ids it has, the builder going on. */
export interface ReopenedRun {
  last: Checkpoint;
  /** The tool call ids the run has (what a mapper asks of the ledger, not the whole ledger: the writer has it). */
  used: Set<string>;
  builder: RunPlanBuilder;
}

/** Reopens `run` at `place.keep` checkpoints; the builder holds the calls still open (`openCallIds`). */
export function reopenAtTail(
  store: RunStore,
  run: RunSummary,
  place: Pick<FileTail, 'keep' | 'lastAt'>,
  openCallIds: readonly string[],
): ReopenedRun {
  const runId = run.runId;
  const last: Checkpoint = store.getCheckpointState(`${runId}#${place.keep - 1}`);
  store.reopenRun(runId, { keepCheckpoints: place.keep, metadata: run.metadata });
  const used = new Set(store.listToolCallIds(runId));
  const builder = new RunPlanBuilder(runId, {
    messages: [...last.messages],
    ledger: openCallIds.map((callId) => store.getToolCall(runId, callId)),
    runtimeContext: last.runtimeContext,
    ...(last.systemPrompt !== undefined ? { systemPrompt: last.systemPrompt } : {}),
    ...(last.model !== undefined ? { model: last.model } : {}),
    at: place.lastAt,
    step: last.stepIndex,
    lastCheckpointId: last.checkpointId,
    checkpointCount: place.keep,
    lastBoundary: last.boundary,
  });
  return { last, used, builder };
}

/** The writer that appends to a reopened run (its clock the run's start, as the whole import's). */
export function continuedWriter(store: RunStore, run: RunSummary, onCheckpoint?: () => void): PlanWriter {
  return PlanWriter.over(
    RunWriter.resume(store, run.runId, {
      now: () => run.startedAt,
      validated: true,
      ...(onCheckpoint ? { onCheckpoint: () => onCheckpoint() } : {}),
    }),
  );
}

/** The run's source facts once the grown file is read: `rest` (the old ones but the tail), its size and hash, the next tail. */
export function continuedSource(
  rest: Record<string, unknown>,
  g: Pick<GrownFile, 'bytes' | 'sha'>,
  next: { resume: unknown; tail?: unknown },
): Record<string, unknown> {
  const shaHex = g.sha.hex();
  return {
    ...rest,
    contentHash: shaHex.slice(0, 10),
    bytes: g.bytes,
    sha256: shaHex,
    resume: next.resume,
    ...(next.tail ? { tail: next.tail } : {}),
  };
}

/** Writes a continued run's finished plan and its rebuilt files; `readFrom`: the old end the new lines came after. */
export function writeContinued(
  store: RunStore,
  run: RunSummary,
  plan: RunPlan,
  metadata: Record<string, unknown>,
  readFrom: number,
  onCheckpoint?: () => void,
): TailOutcome {
  const out = continuedWriter(store, run, onCheckpoint);
  for (const op of plan.ops) out.op(op);
  const summary = out.close(plan, metadata);
  storeRebuiltFilesOf(store, [run.runId]);
  return { kind: 'continued', summary, appended: summary.checkpointCount - run.checkpointCount, readFrom };
}

/**
 * How runs, checkpoints and tool calls read in the MCP server's answers: the same few fields everywhere, times as
 * ISO 8601 UTC and durations in milliseconds, every id the next call takes (run ids, checkpoint indexes and ids,
 * tool call ids). Pure over the store's summaries and records.
 */
import {
  divergenceOfError,
  divergenceSummary,
  readRunError,
  runStatusText,
  toolOutcomeOf,
  type ToolCallRecord,
  toolOwnMs,
} from '../model';
import type { CheckpointSummary, RunSummary } from '../store';
import { clip, SMALL_CLIP, type ClipReport } from './bounded';

/** The units every answer uses, said once where runs are listed. */
export const UNITS = 'times: ISO 8601 UTC; durationMs: milliseconds; tokens: model tokens (input + output)';

export function iso(ms: number | undefined): string | undefined {
  return ms === undefined || !Number.isFinite(ms) ? undefined : new Date(ms).toISOString();
}

/** A run as a line of a list. */
export function runLine(r: RunSummary): Record<string, unknown> {
  const error = readRunError(r.error);
  const end = r.endedAt ?? r.lastCheckpointAt;
  return {
    runId: r.runId,
    agentId: r.agentId,
    status: runStatusText(r),
    mode: r.mode,
    startedAt: iso(r.startedAt),
    ...(end !== undefined ? { durationMs: end - r.startedAt } : {}),
    steps: r.stepCount,
    checkpoints: r.checkpointCount,
    toolCalls: r.toolCallCount,
    toolErrors: r.toolErrorCount,
    tokens: r.inputTokens + r.outputTokens,
    ...(r.parentRunId !== undefined ? { parentRunId: r.parentRunId } : {}),
    ...(error?.message
      ? { error: error.message.length > 200 ? `${error.message.slice(0, 200)}…` : error.message }
      : {}),
  };
}

/** A checkpoint's facts (no state). */
export function checkpointLine(s: CheckpointSummary): Record<string, unknown> {
  return {
    index: s.index,
    checkpointId: s.checkpointId,
    step: s.stepIndex,
    boundary: s.boundary,
    ...(s.toolName !== undefined ? { toolName: s.toolName, toolCallId: s.toolCallId } : {}),
    ...(s.finishReason !== undefined ? { finishReason: s.finishReason } : {}),
    ...(s.usage ? { tokens: { input: s.usage.inputTokens, output: s.usage.outputTokens } } : {}),
    messageCount: s.messageCount,
    at: iso(s.createdAt),
    // a live debugger's hold at the stop before (a model call's), named as a call's hold is
    ...(s.heldMs ? { heldByDebuggerMs: s.heldMs } : {}),
  };
}

/** Where each tool call of a run begins: its before_tool_call checkpoint (index, step), by call id. */
export function callPlaces(summaries: readonly CheckpointSummary[]): Map<string, { index: number; step: number }> {
  const places = new Map<string, { index: number; step: number }>();
  for (const s of summaries) {
    if (s.toolCallId !== undefined && !places.has(s.toolCallId)) {
      places.set(s.toolCallId, { index: s.index, step: s.stepIndex });
    }
  }
  return places;
}

export type CallOutcome = 'success' | 'error' | 'cancelled' | 'running';

export function callOutcome(record: ToolCallRecord): CallOutcome {
  if (record.endedAt === undefined) return 'running';
  return toolOutcomeOf(record);
}

/** A tool call with its arguments and result (or error) clipped to `limits`. */
export function callLine(
  record: ToolCallRecord,
  place: { index: number; step: number } | undefined,
  report: ClipReport,
  limits = SMALL_CLIP,
): Record<string, unknown> {
  const outcome = callOutcome(record);
  return {
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    sideEffectLevel: record.sideEffectLevel,
    replayPolicy: record.replayPolicy,
    ...(place ? { step: place.step, checkpointIndex: place.index } : {}),
    startedAt: iso(record.startedAt),
    ...(record.endedAt !== undefined ? { durationMs: toolOwnMs(record) } : {}),
    ...(record.heldMs ? { heldByDebuggerMs: record.heldMs } : {}),
    outcome,
    args: clip(record.args, limits, report),
    ...(outcome === 'error' || outcome === 'cancelled'
      ? { error: clip(record.error, limits, report) }
      : record.result !== undefined
        ? { result: clip(record.result, limits, report) }
        : {}),
    ...(record.liveEdit ? { liveEdit: record.liveEdit } : {}),
  };
}

/** "diverged at step 5 · system prompt" and the divergence's facts, when a run's error carries one. */
export function divergenceOf(run: RunSummary): Record<string, unknown> | undefined {
  const d = divergenceOfError(run.error);
  if (!d) return undefined;
  return {
    summary: divergenceSummary(d),
    step: d.stepIndex,
    field: d.field,
    sourceCheckpointIndex: d.sourceCheckpointIndex,
    sourceCheckpointId: d.sourceCheckpointId,
    ...(d.forkCheckpointId !== undefined ? { forkCheckpointId: d.forkCheckpointId } : {}),
    recorded: d.recorded,
    rendered: d.rendered,
  };
}

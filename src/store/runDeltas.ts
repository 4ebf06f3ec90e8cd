/**
 * What a transaction's checkpoints and tool calls add to their runs' counters (StoreContext.countRun), kept with the
 * transaction and written in one UPDATE a run at its end (storeTransactions.ts): four or five UPDATEs of a run's row
 * a ReAct step were ~10 % of its SQL.
 */
import type { SqlValue } from './sqlDriver';
import type { RunDelta } from './storeContext';

/** The SET clause that adds a RunDelta to a run's row, its parameters in runDeltaParams' order. */
export const RUN_DELTA_SET = `checkpoint_count = checkpoint_count + ?, max_step = MAX(max_step, COALESCE(?, max_step)),
  input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, heartbeat_at = COALESCE(?, heartbeat_at),
  last_checkpoint_at = COALESCE(MAX(COALESCE(last_checkpoint_at, ?), ?), last_checkpoint_at),
  tool_call_count = tool_call_count + ?, tool_error_count = tool_error_count + ?`;

export function runDeltaParams(d: RunDelta): SqlValue[] {
  const at = d.checkpointAt ?? null;
  return [
    d.checkpoints ?? 0,
    d.step ?? null,
    d.inputTokens ?? 0,
    d.outputTokens ?? 0,
    d.heartbeatAt ?? null,
    at,
    at,
    d.toolCalls ?? 0,
    d.toolErrors ?? 0,
  ];
}

/** `delta` added to `into` (sums, the larger step, the later times). */
export function addRunDelta(into: RunDelta, delta: RunDelta): void {
  const sum = (a: number | undefined, b: number | undefined) => (b === undefined ? a : (a ?? 0) + b);
  const max = (a: number | undefined, b: number | undefined) =>
    b === undefined ? a : a === undefined ? b : Math.max(a, b);
  into.checkpoints = sum(into.checkpoints, delta.checkpoints);
  into.inputTokens = sum(into.inputTokens, delta.inputTokens);
  into.outputTokens = sum(into.outputTokens, delta.outputTokens);
  into.toolCalls = sum(into.toolCalls, delta.toolCalls);
  into.toolErrors = sum(into.toolErrors, delta.toolErrors);
  into.step = max(into.step, delta.step);
  into.checkpointAt = max(into.checkpointAt, delta.checkpointAt);
  if (delta.heartbeatAt !== undefined) into.heartbeatAt = delta.heartbeatAt;
}

/**
 * How the end of a tool call and of a run are stored, and read back: the one
 * rule for success / error / cancelled whichever way a run is written (SDK,
 * HTTP, importer, fork). A ToolCallRecord has no status field (@ocdb/core), so
 * a cancelled call is an error value named `Cancelled`; everything that
 * replays a record asks `outcomeOf`. Pure.
 */
import { CANCELLED_ERROR_NAME, toolOutcomeOf, type Message, type ToolCallRecord, type ToolOutcome } from '../model';

const CANCELLED_NAME = CANCELLED_ERROR_NAME;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A thrown value as JSON: an Error keeps name, message and code; other values stay as they are. With
 * `outcome` 'cancelled' it is the stored value of a cancellation (see toolErrorValue).
 */
export function serializeError(value: unknown, outcome?: ToolOutcome): unknown {
  if (outcome === 'cancelled') return toolErrorValue('cancelled', value);
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message };
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) out.code = code;
    return out;
  }
  return value === undefined ? { name: 'Error', message: 'unknown error' } : value;
}

/**
 * The error value stored for a call that ended with `outcome` (never success). A cancellation is always an
 * object named `Cancelled` with a message (the given detail kept under `detail` when it is not an object), so it
 * replays as cancelled, not as an error.
 */
export function toolErrorValue(outcome: Exclude<ToolOutcome, 'success'>, value: unknown): unknown {
  if (outcome === 'error') return serializeError(value);
  if (value === undefined) return { name: CANCELLED_NAME, message: 'cancelled' };
  const serialized = value instanceof Error ? serializeError(value) : value;
  if (isRecord(serialized)) {
    const message = typeof serialized.message === 'string' ? serialized.message : 'cancelled';
    return { ...serialized, name: CANCELLED_NAME, message };
  }
  return typeof serialized === 'string'
    ? { name: CANCELLED_NAME, message: serialized }
    : { name: CANCELLED_NAME, message: 'cancelled', detail: serialized };
}

/** What a call's record keeps of its outcome: the result on success, else the stored error value. */
export function storedValue(outcome: ToolOutcome, value: unknown): unknown {
  return outcome === 'success' ? value : toolErrorValue(outcome, value);
}

/** How a recorded call ended (the model's reading of a record, see toolOutcomeOf). */
export const outcomeOf = toolOutcomeOf;

/** The value a replay of `record` answers with: its result, or its stored error. */
export function outcomeValue(record: Pick<ToolCallRecord, 'error' | 'result'>): unknown {
  return record.error === undefined ? record.result : record.error;
}

/** The `tool` message that carries a call's outcome into the conversation: the result, or `{ error }`. */
export function toolResultMessage(
  toolCallId: string,
  toolName: string,
  outcome: ToolOutcome,
  stored: unknown,
): Message {
  return { role: 'tool', toolCallId, toolName, content: outcome === 'success' ? stored : { error: stored } };
}

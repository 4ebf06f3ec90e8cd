/**
 * ToolCallRecord, SideEffectLevel, ReplayPolicy and ToolOutcome: one tool invocation in a
 * run's ledger (the tool cassette). Field names follow @ocdb/core. Pure.
 */
import { z } from 'zod';
import { IdSchema, ToolNameSchema } from './names';

export const SIDE_EFFECT_LEVELS = ['none', 'read_only', 'expensive_read', 'write', 'external_irreversible'] as const;
export const SideEffectLevelSchema = z.enum(SIDE_EFFECT_LEVELS);
export type SideEffectLevel = z.infer<typeof SideEffectLevelSchema>;

export const REPLAY_POLICIES = [
  'reuse_result',
  're_execute',
  'mock_result',
  'manual_confirm',
  'forbid_replay',
] as const;
export const ReplayPolicySchema = z.enum(REPLAY_POLICIES);
export type ReplayPolicy = z.infer<typeof ReplayPolicySchema>;

/** How a tool call finished: its result, an error, or cancelled (stored and replayed as cancelled, not as an error). */
export const TOOL_OUTCOMES = ['success', 'error', 'cancelled'] as const;
export const ToolOutcomeSchema = z.enum(TOOL_OUTCOMES);
export type ToolOutcome = z.infer<typeof ToolOutcomeSchema>;

/** Side-effect levels whose re-execution during a fork needs the user's explicit acknowledgement. */
export const HAZARDOUS_LEVELS: ReadonlySet<SideEffectLevel> = new Set(['write', 'external_irreversible']);

/** What a ledger record says of an edit applied before its tool ran (`ToolCallRecord.liveEdit`). */
export const ToolCallLiveEditSchema = z.object({
  stopId: IdSchema,
  editedBy: z.string().min(1),
  at: z.number(),
  /** The arguments were edited: the hash of those the agent first gave (the record's args are those it ran with). */
  originalArgsHash: z.string().optional(),
  /** The tool was not run: the outcome the debugger gave is the record's result or error. */
  mocked: z.boolean().optional(),
});
export type ToolCallLiveEdit = z.infer<typeof ToolCallLiveEditSchema>;

export const ToolCallRecordSchema = z.object({
  toolCallId: IdSchema,
  toolName: ToolNameSchema,
  args: z.unknown(),
  argsHash: z.string().regex(/^[0-9a-f]{16}$/, 'argsHash must be 16 lowercase hex characters'),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
  sideEffectLevel: SideEffectLevelSchema,
  replayPolicy: ReplayPolicySchema,
  startedAt: z.number(),
  endedAt: z.number().optional(),
  /**
   * How long a live debugger held the call at its stop before the tool ran (ms, on the agent's clock): part of
   * endedAt − startedAt, not the tool's own time (`toolOwnMs`). Absent when no debugger held it.
   */
  heldMs: z.number().nonnegative().optional(),
  /** Set when a live debugger edited the call before it ran (live debugging): its args are those it ran with. */
  liveEdit: ToolCallLiveEditSchema.optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

/** A finished call's own time: endedAt − startedAt without the time a live debugger held it; undefined while running. */
export function toolOwnMs(record: Pick<ToolCallRecord, 'startedAt' | 'endedAt' | 'heldMs'>): number | undefined {
  if (record.endedAt === undefined) return undefined;
  return Math.max(0, record.endedAt - record.startedAt - (record.heldMs ?? 0));
}

/** The `name` that marks a stored tool error as a cancellation (a ToolCallRecord has no status field). */
export const CANCELLED_ERROR_NAME = 'Cancelled';

/** How a recorded call ended: success (no error), cancelled (an error named Cancelled) or error. */
export function toolOutcomeOf(record: Pick<ToolCallRecord, 'error'>): ToolOutcome {
  if (record.error === undefined) return 'success';
  const error = record.error;
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === CANCELLED_ERROR_NAME
    ? 'cancelled'
    : 'error';
}

/** The replay policy a tool gets when none is given: reads are reused, writes need confirmation, irreversible effects are forbidden. */
export function defaultReplayPolicy(level: SideEffectLevel): ReplayPolicy {
  switch (level) {
    case 'none':
    case 'read_only':
    case 'expensive_read':
      return 'reuse_result';
    case 'write':
      return 'manual_confirm';
    case 'external_irreversible':
      return 'forbid_replay';
    default: {
      const unreachable: never = level;
      throw new Error(`unknown side-effect level ${String(unreachable)}`);
    }
  }
}

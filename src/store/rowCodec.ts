/** Mapping between SQLite rows and model objects for the run store: nullable columns, JSON columns, summaries. */
import {
  CHECKPOINT_BOUNDARIES,
  CheckpointBoundarySchema,
  DebugRunSchema,
  RunModeSchema,
  RunStatusSchema,
  UsageSchema,
  parseWith,
  type CheckpointBoundary,
  type Usage,
} from '../model';
import { isCrashed } from './liveness';
import type { CheckpointSummary, RunSummary } from './runStore';
import type { SqlRow } from './sqlDriver';

export const num = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v));
export const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v));
export const json = (v: unknown): unknown => (v === null || v === undefined ? undefined : JSON.parse(String(v)));
export const toJson = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/** Drops keys whose value is undefined, so exported JSON has no `"x": undefined` noise and round-trips exactly. */
export function compact<T extends object>(o: T): T {
  for (const key of Object.keys(o) as (keyof T)[]) if (o[key] === undefined) delete o[key];
  return o;
}

/** A `runs` row as a RunSummary (crash state computed now); its enums and metadata are parsed, not cast. */
export function rowToRunSummary(row: SqlRow): RunSummary {
  const runId = String(row.run_id);
  const where = `store run ${runId}`;
  const status = parseWith(RunStatusSchema, row.status, where, ['status']);
  const ownerPid = num(row.owner_pid);
  const heartbeatAt = num(row.heartbeat_at);
  return compact({
    runId,
    sessionId: String(row.session_id),
    agentId: String(row.agent_id),
    parentRunId: str(row.parent_run_id),
    forkFromCheckpointId: str(row.fork_from_checkpoint_id),
    status,
    mode: parseWith(RunModeSchema, row.mode, where, ['mode']),
    startedAt: Number(row.started_at),
    endedAt: num(row.ended_at),
    error: json(row.error_json),
    metadata: parseWith(DebugRunSchema.shape.metadata, json(row.metadata_json), where, ['metadata']),
    checkpointCount: Number(row.checkpoint_count),
    toolCallCount: Number(row.tool_call_count),
    toolErrorCount: Number(row.tool_error_count),
    stepCount: Number(row.max_step) + 1,
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    crashed: isCrashed(status, ownerPid ?? null, str(row.owner_host) ?? null, heartbeatAt ?? null),
    ownerPid,
    heartbeatAt,
    lastCheckpointAt: num(row.last_checkpoint_at),
    changeSeq: Number(row.change_seq),
    // absent (0) on a run never reopened: most runs, and a store read before its schema had the column
    rewrites: Number(row.rewrites ?? 0) || undefined,
  });
}

/**
 * A checkpoint id as `checkpoints.checkpoint_id` holds it (schema 7): a UUID in its canonical form
 * (lowercase, 8-4-4-4-12) is its 16 bytes; any other id is its text — on an engine whose columns hold one type
 * (`bytesOnly`, PostgreSQL) its UTF-8 bytes, with a 0xff byte after an id of exactly 16 bytes (UTF-8 never holds
 * one), so no text id reads as a UUID. The id a user sees is the same everywhere: `checkpointIdOf` gives it back.
 */
export function checkpointKey(id: string, bytesOnly = false): string | Buffer {
  if (id.length === 36 && UUID.test(id)) return Buffer.from(id.replace(/-/g, ''), 'hex');
  if (!bytesOnly) return id;
  const bytes = Buffer.from(id, 'utf8');
  return bytes.length === 16 ? Buffer.concat([bytes, TEXT_MARK]) : bytes;
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TEXT_MARK = Buffer.from([0xff]);

/** The checkpoint id a `checkpoint_id` cell holds (see checkpointKey). */
export function checkpointIdOf(value: unknown): string {
  if (!(value instanceof Uint8Array)) return String(value);
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (bytes.length === 16) {
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return (bytes.at(-1) === 0xff ? bytes.subarray(0, -1) : bytes).toString('utf8');
}

/**
 * A boundary as `checkpoints.boundary` holds it (schema 7): a small number, fixed here for good (the order of
 * `CHECKPOINT_BOUNDARIES` at schema 7; a boundary added later takes the next number).
 */
export const BOUNDARY_CODES: Readonly<Record<CheckpointBoundary, number>> = {
  before_prompt_build: 0,
  before_model_call: 1,
  after_model_call: 2,
  before_tool_call: 3,
  after_tool_call: 4,
  agent_end: 5,
};
const BOUNDARY_NAMES = new Map(Object.entries(BOUNDARY_CODES).map(([name, code]) => [code, name]));
if (BOUNDARY_NAMES.size !== CHECKPOINT_BOUNDARIES.length) throw new Error('every boundary needs a code of its own');

/** The boundary a `boundary` cell holds (a number of another meaning is left for the schema to refuse). */
export function boundaryOf(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'bigint' ? (BOUNDARY_NAMES.get(Number(value)) ?? value) : value;
}

/**
 * A usage as `checkpoints.usage_json` holds it (schema 7): `[inputTokens,outputTokens]` when that is all it has
 * (both whole numbers, the usual case), its JSON otherwise.
 */
export function usageColumn(usage: Usage | undefined): string | null {
  if (usage === undefined) return null;
  const keys = Object.keys(usage);
  if (
    keys.length === 2 &&
    Number.isSafeInteger(usage.inputTokens) &&
    Number.isSafeInteger(usage.outputTokens) &&
    Math.abs(usage.inputTokens) < 1e15 &&
    Math.abs(usage.outputTokens) < 1e15
  ) {
    return `[${usage.inputTokens},${usage.outputTokens}]`;
  }
  return JSON.stringify(usage);
}

/** The usage a `usage_json` cell holds (see usageColumn); undefined for NULL. */
export function usageOf(value: unknown): unknown {
  const v = json(value);
  return Array.isArray(v) && v.length === 2 ? { inputTokens: v[0] as unknown, outputTokens: v[1] as unknown } : v;
}

/** Made once: a zod schema built per call costs more than the parse (it was 3 % of an append). */
const OPTIONAL_USAGE = UsageSchema.optional();

/** A `checkpoints` row (joined with its tool name) as a CheckpointSummary; boundary and usage are parsed. */
export function rowToCheckpointSummary(row: SqlRow): CheckpointSummary {
  const checkpointId = checkpointIdOf(row.checkpoint_id);
  const where = `store checkpoint ${checkpointId}`;
  return compact({
    checkpointId,
    runId: String(row.run_id),
    index: Number(row.seq),
    boundary: parseWith(CheckpointBoundarySchema, boundaryOf(row.boundary), where, ['boundary']),
    stepIndex: Number(row.step_index),
    toolCallId: str(row.tool_call_id),
    toolName: str(row.tool_name),
    finishReason: str(row.finish_reason),
    usage: parseWith(OPTIONAL_USAGE, usageOf(row.usage_json), where, ['usage']),
    messageCount: Number(row.message_count),
    promptVersion: str(row.prompt_version),
    createdAt: Number(row.created_at),
    heldMs: num(row.held_ms),
  });
}

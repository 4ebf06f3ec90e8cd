/** Mapping between SQLite rows and model objects for the run store: nullable columns, JSON columns, summaries. */
import {
  CheckpointBoundarySchema,
  DebugRunSchema,
  RunModeSchema,
  RunStatusSchema,
  UsageSchema,
  parseWith,
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
  });
}

/** Made once: a zod schema built per call costs more than the parse (it was 3 % of an append). */
const OPTIONAL_USAGE = UsageSchema.optional();

/** A `checkpoints` row (joined with its tool name) as a CheckpointSummary; boundary and usage are parsed. */
export function rowToCheckpointSummary(row: SqlRow): CheckpointSummary {
  const checkpointId = String(row.checkpoint_id);
  const where = `store checkpoint ${checkpointId}`;
  return compact({
    checkpointId,
    runId: String(row.run_id),
    index: Number(row.seq),
    boundary: parseWith(CheckpointBoundarySchema, row.boundary, where, ['boundary']),
    stepIndex: Number(row.step_index),
    toolCallId: str(row.tool_call_id),
    toolName: str(row.tool_name),
    finishReason: str(row.finish_reason),
    usage: parseWith(OPTIONAL_USAGE, json(row.usage_json), where, ['usage']),
    messageCount: Number(row.message_count),
    promptVersion: str(row.prompt_version),
    createdAt: Number(row.created_at),
  });
}

/** DebugRun, RunStatus (and the end statuses), RunMode: the top-level record of one agent execution. Pure. */
import { z } from 'zod';
import { ArtifactRefSchema } from './artifact';
import { CheckpointSchema } from './checkpoint';
import { errorMessage } from './errors';
import { LiveEditRecordSchema } from './live';
import { IdSchema, OptionalIdSchema } from './names';
import { ToolCallRecordSchema } from './toolCall';

/**
 * `diverged`: a fork (or replay) stopped where its prompt reached something the recording has no answer for —
 * an answer to the what-if question, not a failure; the error says where (`{ code: 'diverged', divergence }`).
 */
export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled', 'diverged'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** The statuses a run can end with: every RunStatus but 'running' (SDK end, HTTP end body, importers, forks). */
export const RunEndStatusSchema = RunStatusSchema.exclude(['running']);
export type RunEndStatus = z.infer<typeof RunEndStatusSchema>;

export const RUN_MODES = ['live', 'replay', 'fork'] as const;
export const RunModeSchema = z.enum(RUN_MODES);
export type RunMode = z.infer<typeof RunModeSchema>;

/**
 * What readers may rely on in a stored `error` (of a run, a fork request or a fork outcome): an object with
 * an optional `code` (`diverged`, `forbidden_replay`, ...) and `message`; other keys are kept.
 */
export const RunErrorSchema = z.looseObject({
  code: z.string().optional(),
  message: z.string().optional(),
});
export type RunError = z.infer<typeof RunErrorSchema>;

/** A stored error read as a RunError (a non-object becomes its message); undefined when there is none. */
export function readRunError(value: unknown): RunError | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = RunErrorSchema.safeParse(value);
  return parsed.success ? parsed.data : { message: errorMessage(value) };
}

export const DebugRunSchema = z.object({
  runId: IdSchema,
  sessionId: OptionalIdSchema,
  agentId: IdSchema,
  parentRunId: IdSchema.optional(),
  forkFromCheckpointId: IdSchema.optional(),
  status: RunStatusSchema,
  mode: RunModeSchema,
  startedAt: z.number(),
  endedAt: z.number().optional(),
  error: z.unknown().optional(),
  checkpoints: z.array(CheckpointSchema),
  toolLedger: z.array(ToolCallRecordSchema),
  artifactRefs: z.array(ArtifactRefSchema),
  metadata: z.record(z.string(), z.unknown()),
  /** The edits a live debugger made while the run was recorded, in order (absent: none). */
  liveEdits: z.array(LiveEditRecordSchema).optional(),
});
export type DebugRun = z.infer<typeof DebugRunSchema>;

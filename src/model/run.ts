/** DebugRun, RunStatus (and the end statuses), RunMode: the top-level record of one agent execution. Pure. */
import { z } from 'zod';
import { ArtifactRefSchema } from './artifact';
import { CheckpointSchema } from './checkpoint';
import { ToolCallRecordSchema } from './toolCall';

export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** The statuses a run can end with: every RunStatus but 'running' (SDK end, HTTP end body, importers, forks). */
export const RunEndStatusSchema = RunStatusSchema.exclude(['running']);
export type RunEndStatus = z.infer<typeof RunEndStatusSchema>;
export const RUN_END_STATUSES = RunEndStatusSchema.options;

export const RUN_MODES = ['live', 'replay', 'fork'] as const;
export const RunModeSchema = z.enum(RUN_MODES);
export type RunMode = z.infer<typeof RunModeSchema>;

export const DebugRunSchema = z.object({
  runId: z.string().min(1),
  sessionId: z.string(),
  agentId: z.string().min(1),
  parentRunId: z.string().optional(),
  forkFromCheckpointId: z.string().optional(),
  status: RunStatusSchema,
  mode: RunModeSchema,
  startedAt: z.number(),
  endedAt: z.number().optional(),
  error: z.unknown().optional(),
  checkpoints: z.array(CheckpointSchema),
  toolLedger: z.array(ToolCallRecordSchema),
  artifactRefs: z.array(ArtifactRefSchema),
  metadata: z.record(z.string(), z.unknown()),
});
export type DebugRun = z.infer<typeof DebugRunSchema>;

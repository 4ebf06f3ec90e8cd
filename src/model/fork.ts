/**
 * ForkConfig: how a new run is derived from a checkpoint of an existing one;
 * ForkRequestRecord: the stored request of one fork and its status. Pure.
 */
import { z } from 'zod';
import { ReplayPolicySchema } from './toolCall';

/**
 * Where a fork's model turns come from. `captured`: the recorded turns, while the fork's prompt matches the
 * recording (the first difference stops the fork as diverged); `recorded`: the recorded turns whatever the
 * prompt (the recorded outputs under the edited context, so the tools run as the gate decides; the first
 * difference is reported, not fatal); `real`: the model endpoint with the recorded model; `override`: another
 * provider/model.
 */
/** Metadata key under which a fork run records where it came from. */
export const FORK_METADATA_KEY = 'fork';

export const MODEL_MODES = ['captured', 'recorded', 'real', 'override'] as const;
export const ModelModeSchema = z.enum(MODEL_MODES);
export type ModelMode = z.infer<typeof ModelModeSchema>;

export const ModelOverrideSchema = z.object({
  mode: ModelModeSchema,
  provider: z.string().optional(),
  model: z.string().optional(),
});
export type ModelOverride = z.infer<typeof ModelOverrideSchema>;

/**
 * Captured model only: what happens at the first divergence of the rendered prompt from the recording.
 * 'fail' (default) stops the fork there, as diverged (error code `diverged`); 'continue_real' goes on from
 * there with the real model (the endpoint the settings name).
 */
export const ON_DIVERGENCE_CHOICES = ['fail', 'continue_real'] as const;
export const OnDivergenceSchema = z.enum(ON_DIVERGENCE_CHOICES);
export type OnDivergence = z.infer<typeof OnDivergenceSchema>;

export const ForkConfigSchema = z.object({
  sourceRunId: z.string().min(1),
  sourceCheckpointId: z.string().min(1),
  modelOverride: ModelOverrideSchema.optional(),
  /** Deep-merged into the checkpoint's runtimeContext; `null` removes a key. Validated after the merge. */
  contextPatch: z.record(z.string(), z.unknown()).optional(),
  /** Tool name or '*' -> policy. A named tool beats '*'. */
  toolPolicyMap: z.record(z.string(), ReplayPolicySchema).optional(),
  toolMockResults: z.record(z.string(), z.unknown()).optional(),
  promptVersionOverride: z.string().optional(),
  /** Captured model only: what happens at the first divergence (see OnDivergenceSchema). */
  onDivergence: OnDivergenceSchema.optional(),
});
export type ForkConfig = z.infer<typeof ForkConfigSchema>;

/**
 * Where a fork request is: created (pending), run by the built-in runner (running), handed to the agent
 * program (waiting_for_agent, until it claims it), and how it ended: completed, diverged (a captured fork
 * reached a prompt the recording has no answer for; the error says where), or failed.
 */
export const FORK_REQUEST_STATUSES = [
  'pending',
  'running',
  'waiting_for_agent',
  'completed',
  'diverged',
  'failed',
] as const;
export const ForkRequestStatusSchema = z.enum(FORK_REQUEST_STATUSES);
export type ForkRequestStatus = z.infer<typeof ForkRequestStatusSchema>;

/** One fork request as the store keeps it and `GET /forks/:id` answers it. */
export const ForkRequestRecordSchema = z.object({
  forkRequestId: z.string().min(1),
  sourceRunId: z.string().min(1),
  sourceCheckpointId: z.string().min(1),
  forkRunId: z.string().optional(),
  config: ForkConfigSchema,
  acknowledgedTools: z.array(z.string()),
  status: ForkRequestStatusSchema,
  error: z.unknown().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type ForkRequestRecord = z.infer<typeof ForkRequestRecordSchema>;

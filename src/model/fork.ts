/** ForkConfig: how a new run is derived from a checkpoint of an existing one. Pure. */
import { z } from 'zod';
import { ReplayPolicySchema } from './toolCall';

export const MODEL_MODES = ['captured', 'real', 'override'] as const;
export const ModelModeSchema = z.enum(MODEL_MODES);
export type ModelMode = z.infer<typeof ModelModeSchema>;

export const ModelOverrideSchema = z.object({
  mode: ModelModeSchema,
  provider: z.string().optional(),
  model: z.string().optional(),
});
export type ModelOverride = z.infer<typeof ModelOverrideSchema>;

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
  /**
   * Captured model only: what happens at the first divergence of the rendered prompt from the recording.
   * 'fail' (default) stops the fork as failed with code `diverged`; 'continue_real' goes on from there with
   * the real model (the endpoint the settings name).
   */
  onDivergence: z.enum(['fail', 'continue_real']).optional(),
});
export type ForkConfig = z.infer<typeof ForkConfigSchema>;

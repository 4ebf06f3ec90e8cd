/**
 * Checkpoint, CheckpointBoundary, ModelConfig, Message: a full state snapshot
 * at one of six execution boundaries. Field names follow @ocdb/core. Pure.
 */
import { z } from 'zod';
import { ArtifactRefSchema } from './artifact';
import { RuntimeContextSnapshotSchema } from './context';
import { IdSchema } from './names';
import { ToolCallRecordSchema } from './toolCall';

export const CHECKPOINT_BOUNDARIES = [
  'before_prompt_build',
  'before_model_call',
  'after_model_call',
  'before_tool_call',
  'after_tool_call',
  'agent_end',
] as const;
export const CheckpointBoundarySchema = z.enum(CHECKPOINT_BOUNDARIES);
export type CheckpointBoundary = z.infer<typeof CheckpointBoundarySchema>;

/** Boundaries that belong to one tool call (carry `toolCallId`). */
export const TOOL_BOUNDARIES: ReadonlySet<CheckpointBoundary> = new Set(['before_tool_call', 'after_tool_call']);

export const ModelConfigSchema = z.looseObject({
  provider: z.string(),
  model: z.string(),
  temperature: z.number().optional(),
});
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

export const MESSAGE_ROLES = ['user', 'assistant', 'tool', 'system'] as const;

/**
 * A conversation message. `content` is a string or an array of parts; this
 * project writes assistant tool calls as parts
 * `{ type: 'tool_call', toolCallId, toolName, args }` (see messageParts.ts).
 * Unknown keys are kept.
 */
export const MessageSchema = z.looseObject({
  role: z.enum(MESSAGE_ROLES),
  content: z.unknown(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
});
export type Message = z.infer<typeof MessageSchema>;

export const UsageSchema = z.looseObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** True when the turn was re-emitted from a recording and spent no tokens. */
  captured: z.boolean().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const CheckpointSchema = z.object({
  checkpointId: IdSchema,
  runId: IdSchema,
  boundary: CheckpointBoundarySchema,
  stepIndex: z.number().int().min(-1),
  messages: z.array(MessageSchema),
  systemPrompt: z.string().optional(),
  model: ModelConfigSchema.optional(),
  promptVersion: z.string().optional(),
  runtimeContext: RuntimeContextSnapshotSchema,
  toolCallId: IdSchema.optional(),
  toolLedgerSnapshot: z.array(ToolCallRecordSchema),
  artifactRefs: z.array(ArtifactRefSchema).optional(),
  finishReason: z.string().optional(),
  usage: UsageSchema.optional(),
  createdAt: z.number(),
  /**
   * How long a live debugger held the agent at the stop of the checkpoint before this one (ms, on the agent's
   * clock): part of the time between the two, not the agent's — at an after_model_call, the hold before the model was
   * called. A hold before a tool ran is its call's own `heldMs` instead. Absent when nothing held the agent there.
   */
  heldMs: z.number().nonnegative().optional(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

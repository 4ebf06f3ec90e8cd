/** zod schemas of the recorder SDK's arguments: what an agent passes in is checked with located errors. */
import { z } from 'zod';
import type { CreateRunWrite } from '../writer';
import {
  ArtifactRefSchema,
  IdSchema,
  MessageSchema,
  ModelConfigSchema,
  ReplayPolicySchema,
  RunEndStatusSchema,
  RunModeSchema,
  RuntimeContextSnapshotSchema,
  SideEffectLevelSchema,
  UsageSchema,
} from '../model';

export const StartRunInputSchema = z.object({
  agentId: z.string().min(1, 'agentId is required'),
  sessionId: z.string().optional(),
  runId: z.string().min(1).optional(),
  runtimeContext: RuntimeContextSnapshotSchema,
  metadata: z.record(z.string(), z.unknown()).optional(),
  messages: z.array(MessageSchema).optional(),
  systemPrompt: z.string().optional(),
  model: ModelConfigSchema.optional(),
  promptVersion: z.string().optional(),
  artifactRefs: z.array(ArtifactRefSchema).optional(),
  mode: RunModeSchema.optional(),
  parentRunId: z.string().optional(),
  forkFromCheckpointId: z.string().optional(),
});
export type StartRunInput = z.input<typeof StartRunInputSchema>;

/** State a checkpoint may update; anything omitted carries over from the previous checkpoint. */
export const CheckpointInputSchema = z.object({
  messages: z.array(MessageSchema).optional(),
  systemPrompt: z.string().optional(),
  model: ModelConfigSchema.optional(),
  promptVersion: z.string().optional(),
  runtimeContext: RuntimeContextSnapshotSchema.optional(),
  artifactRefs: z.array(ArtifactRefSchema).optional(),
  // ids as the store checks them (model/names.ts): the store takes the SDK's checkpoints as validated here
  toolCallId: IdSchema.optional(),
  finishReason: z.string().optional(),
  usage: UsageSchema.optional(),
  stepIndex: z.number().int().min(-1).optional(),
  checkpointId: IdSchema.optional(),
});
export type CheckpointInput = z.input<typeof CheckpointInputSchema>;

export const ToolOptionsSchema = z.object({
  sideEffectLevel: SideEffectLevelSchema,
  replayPolicy: ReplayPolicySchema.optional(),
  toolCallId: z.string().min(1).optional(),
  /** Record before/after_tool_call checkpoints around the call (default true). */
  checkpoints: z.boolean().optional(),
});
export type ToolOptions = z.input<typeof ToolOptionsSchema>;

export const ModelResponseSchema = z.object({
  message: MessageSchema,
  finishReason: z.string().optional(),
  usage: UsageSchema.optional(),
  model: ModelConfigSchema.optional(),
});
export type ModelResponse = z.input<typeof ModelResponseSchema>;

export const EndRunInputSchema = z.object({
  status: RunEndStatusSchema.optional(),
  error: z.unknown().optional(),
  messages: z.array(MessageSchema).optional(),
});
export type EndRunInput = z.input<typeof EndRunInputSchema>;

/** A parsed startRun input (the SDK's, or HTTP's POST /runs body) as what RunWriter.create takes. */
export function runCreationOf(
  data: z.output<typeof StartRunInputSchema> & { startedAt?: number },
  extra: { ownerPid?: number } = {},
): CreateRunWrite {
  const defined = <T extends object>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
      [K in keyof T]: Exclude<T[K], undefined>;
    };
  const { messages, systemPrompt, model, promptVersion, runtimeContext, artifactRefs, ...run } = data;
  return {
    ...defined({ ...run, ...extra }),
    state: { ...defined({ messages, systemPrompt, model, promptVersion, artifactRefs }), runtimeContext },
  };
}

const ArtifactFields = {
  /** What the artifact is: free text; a MIME type (`text/markdown`, `image/png`) is served as such over HTTP. */
  type: z.string().min(1, 'type is required (e.g. "text/markdown", "image/png", "report")'),
  /** Its name (the ArtifactRef's artifactId): one line; recording the same name again makes its next version. */
  name: IdSchema,
  /** `utf8` (default): `content` is the text; `base64`: `content` is the bytes in base64. */
  encoding: z.enum(['utf8', 'base64']).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
};

/**
 * `run.artifact(...)` of the SDK: `content` (a string, or bytes as a Uint8Array / Buffer) or `path` (a file read
 * as bytes), exactly one of them.
 */
export const ArtifactInputSchema = z
  .object({
    ...ArtifactFields,
    content: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
    path: z.string().min(1).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.content !== undefined && v.path !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'give content or path, not both' });
    } else if (v.content === undefined && v.path === undefined) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'give content (text or bytes) or path (a file)' });
    }
    if (v.encoding === 'base64' && typeof v.content !== 'string') {
      ctx.addIssue({ code: 'custom', path: ['encoding'], message: 'base64 is for content given as a string' });
    }
  });
export type ArtifactInput = z.input<typeof ArtifactInputSchema>;

/** POST /runs/:id/artifacts: the SDK's artifact input with the content in the body (text, or base64 bytes). */
export const ArtifactBodySchema = z
  .object({
    ...ArtifactFields,
    content: z.string({ error: 'content is required: the text, or the bytes in base64 with "encoding": "base64"' }),
    path: z.unknown().optional(),
    createdAt: z.number().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.path !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['path'],
        message: 'the server reads no files: send the file\'s bytes as content with "encoding": "base64"',
      });
    }
  });

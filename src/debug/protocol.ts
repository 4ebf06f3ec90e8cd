/**
 * The custom DAP protocol of the `agent-replay` debugger — what it speaks
 * beyond standard DAP — in one typed module shared by both ends, as
 * rust-analyzer's lsp_ext.ts is: the adapter (agentReplaySession.ts,
 * replayController.ts) answers these requests and sends these events, the
 * extension (src/extension) sends and receives them through `sendRequest` and
 * `parseEvent`. Each request names its command, the zod schema of its
 * arguments (parsed where they enter the adapter) and of its response body
 * (parsed where it enters the extension). Shapes are derived from src/model.
 * Pure: zod and the model only; no vscode, no DAP transport.
 */
import { z } from 'zod';
import { ForkConfigSchema, parseWith } from '../model';

/** A custom request: its command and the schemas of its arguments and response body. */
export interface CustomRequestType<A extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  readonly command: string;
  readonly args: A;
  readonly body: B;
}

/** A custom event: its name and the schema of its body. */
export interface CustomEventType<B extends z.ZodType = z.ZodType> {
  readonly event: string;
  readonly body: B;
}

/** The edits of the runtime context staged with `setVariable` at one checkpoint: the next fork's contextPatch. */
export const StagedPatchSchema = z.object({
  /** The checkpoint the edits were made at: the fork's source. */
  runId: z.string().min(1),
  checkpointId: z.string().min(1),
  contextPatch: ForkConfigSchema.shape.contextPatch.unwrap(),
});
export type StagedPatch = z.infer<typeof StagedPatchSchema>;

// ---- fork ------------------------------------------------------------------------------------------------------

/** Arguments of `fork`: the ForkConfig without its source (taken from checkpointId, else the current checkpoint). */
export const ForkRequestArgsSchema = z.object({
  /** The source checkpoint; default: the current one. */
  checkpointId: z.string().min(1).optional(),
  /**
   * A ForkConfig whose source may be left out; sourceRunId / sourceCheckpointId are accepted so a whole ForkConfig
   * can be sent and must agree with checkpointId. contextPatch defaults to the staged edits of that checkpoint.
   */
  forkConfig: ForkConfigSchema.partial({ sourceRunId: true, sourceCheckpointId: true }).default({}),
  /** Hazardous tools the user acknowledged may run again. */
  acknowledgedTools: z.array(z.string().min(1)).default([]),
});
export type ForkRequestArgs = z.input<typeof ForkRequestArgsSchema>;

export const ForkResponseBodySchema = z.object({ runId: z.string().min(1), forkRequestId: z.string().min(1) });
export type ForkResponseBody = z.infer<typeof ForkResponseBodySchema>;

/** `fork`: creates a fork run through ForkService (the `runsChanged` event follows). */
export const forkRequest = {
  command: 'fork',
  args: ForkRequestArgsSchema,
  body: ForkResponseBodySchema,
} as const satisfies CustomRequestType;

// ---- stagedContextPatch -----------------------------------------------------------------------------------------

export const StagedContextPatchArgsSchema = z
  .object({
    /** Forget the staged edits after answering them (a fork has used them). */
    clear: z.boolean().optional(),
  })
  .default({});
export type StagedContextPatchArgs = z.input<typeof StagedContextPatchArgsSchema>;

/** The staged edits, or an empty contextPatch (and no checkpoint) when nothing is staged. */
export const StagedContextPatchBodySchema = z.union([
  StagedPatchSchema,
  z.object({ contextPatch: z.strictObject({}) }),
]);
export type StagedContextPatchBody = z.infer<typeof StagedContextPatchBodySchema>;

/** `stagedContextPatch`: answers the edits staged with setVariable; `clear` forgets them. */
export const stagedContextPatchRequest = {
  command: 'stagedContextPatch',
  args: StagedContextPatchArgsSchema,
  body: StagedContextPatchBodySchema,
} as const satisfies CustomRequestType;

/** The staged patch of a stagedContextPatch answer, or undefined when nothing is staged. */
export function stagedPatchOf(body: StagedContextPatchBody): StagedPatch | undefined {
  return 'checkpointId' in body ? body : undefined;
}

// ---- fileOfVariable ---------------------------------------------------------------------------------------------

export const FileOfVariableArgsSchema = z.object({
  /** The variablesReference of a file's variable in the Files scope (valid until the next stop). */
  variablesReference: z.number().int().positive(),
});

export const FileOfVariableBodySchema = z.object({
  runId: z.string().min(1),
  checkpointId: z.string().min(1),
  checkpointIndex: z.number().int().nonnegative(),
  /** The file's absolute path (relative paths of the agent resolved against the folder it ran in). */
  path: z.string().min(1),
});
export type FileOfVariableBody = z.infer<typeof FileOfVariableBodySchema>;

/** `fileOfVariable`: which file, at which checkpoint of which run, a variable of the Files scope stands for. */
export const fileOfVariableRequest = {
  command: 'fileOfVariable',
  args: FileOfVariableArgsSchema,
  body: FileOfVariableBodySchema,
} as const satisfies CustomRequestType;

// ---- events -----------------------------------------------------------------------------------------------------

export const RunsChangedBodySchema = z.object({
  /** Runs the session wrote (the fork it created). */
  runIds: z.array(z.string().min(1)),
  /** The run they were forked from. */
  parentRunId: z.string().min(1),
});
export type RunsChangedBody = z.infer<typeof RunsChangedBodySchema>;

/** `runsChanged`: the session wrote runs to the store (after `fork`); the extension re-reads the store. */
export const runsChangedEvent = {
  event: 'runsChanged',
  body: RunsChangedBodySchema,
} as const satisfies CustomEventType;

// ---- the client side ----------------------------------------------------------------------------------------------

/** What sending a custom request needs of a debug session (vscode.DebugSession has it). */
export interface CustomRequestSender {
  customRequest(command: string, args?: unknown): PromiseLike<unknown>;
}

/** Sends a custom request with typed arguments and answers its parsed body (InvalidInput when the body is not one). */
export async function sendRequest<A extends z.ZodType, B extends z.ZodType>(
  session: CustomRequestSender,
  request: CustomRequestType<A, B>,
  args: z.input<A>,
): Promise<z.output<B>> {
  const body = await session.customRequest(request.command, args);
  return parseWith(request.body, body, `${request.command} response`);
}

/** The parsed body of a custom event of type `type`; undefined for another event or a body not of its shape. */
export function parseEvent<B extends z.ZodType>(
  type: CustomEventType<B>,
  event: { event: string; body?: unknown },
): z.output<B> | undefined {
  if (event.event !== type.event) return undefined;
  const parsed = type.body.safeParse(event.body);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The launch configuration of "Replay agent run" (debug type `agent-replay`)
 * as a zod schema: the one source for validation in the adapter and for the
 * `configurationAttributes` the extension contributes. Pure: no I/O.
 */
import { z } from 'zod';
import { parseWith } from '../model';
import { DEFAULT_TRANSCRIPT_DETAIL, TranscriptDetailSchema } from '../replay/transcript';
import { resolveStorePath } from '../store';

export const LaunchArgsSchema = z.looseObject({
  /** The run to replay. */
  runId: z.string().min(1, 'runId is required: the id of the run to replay (see `ocdb runs`)'),
  /** Run store file; default: $OCDB_STORE, else `<cwd>/.ocdb/runs.db` (as the CLI). */
  store: z.string().min(1).optional(),
  /** Stop at the first checkpoint (or `checkpointId`) after launch. Default true. */
  stopOnEntry: z.boolean().default(true),
  /** Start at this checkpoint instead of the first one. */
  checkpointId: z.string().min(1).optional(),
  /** The agent program that executes forks (used by the fork runner, not by replay). */
  program: z.string().min(1).optional(),
  /** Excerpt length of the transcript lines (the extension fills in its `transcriptDetail` setting). */
  transcriptDetail: TranscriptDetailSchema.default(DEFAULT_TRANSCRIPT_DETAIL),
});
export type LaunchArgs = z.output<typeof LaunchArgsSchema>;

/** Launch arguments with the store path resolved. */
export interface ResolvedLaunchArgs extends LaunchArgs {
  storePath: string;
}

/**
 * Parses the client's launch arguments (throws InvalidInput naming the field)
 * and resolves the store path like the CLI does.
 */
export function parseLaunchArgs(
  value: unknown,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ResolvedLaunchArgs {
  const args = parseWith(LaunchArgsSchema, value, 'launch configuration');
  return { ...args, storePath: resolveStorePath(args.store, env, cwd) };
}

/**
 * The attach configuration of "Attach to agent run" (request `attach`): a run being recorded now (`runId`) or the
 * next runs of an agent (`agentId`, like "wait for process": each run is a thread). Stops are decided by the
 * breakpoints; `stopOnEntry` stops each run at the first boundary it reaches, `stopBeforeModelCall` before every
 * model call.
 */
export const AttachArgsSchema = z
  .looseObject({
    /** The running run to attach to. */
    runId: z.string().min(1, 'runId must not be empty: the id of a running run (see `ocdb runs`)').optional(),
    /** Attach to the next runs of this agent id (the run's `agentId`). */
    agentId: z.string().min(1, 'agentId must not be empty: the agent id its runs are recorded with').optional(),
    /** Run store file; default: $OCDB_STORE, else `<cwd>/.ocdb/runs.db` (as the CLI). */
    store: z.string().min(1).optional(),
    /** Stop each attached run at the first boundary it reaches. Default false. */
    stopOnEntry: z.boolean().default(false),
    /** Stop before every model call (the system prompt and messages can be edited there). Default false. */
    stopBeforeModelCall: z.boolean().default(false),
    /** The agent program that executes forks made during this session (as in launch). */
    program: z.string().min(1).optional(),
    /** Excerpt length of the transcript lines. */
    transcriptDetail: TranscriptDetailSchema.default(DEFAULT_TRANSCRIPT_DETAIL),
  })
  .refine((a) => a.runId !== undefined || a.agentId !== undefined, {
    message: 'attach needs runId (a running run) or agentId (wait for the next run of that agent)',
    path: ['runId'],
  });
export type AttachArgs = z.output<typeof AttachArgsSchema>;

/** Attach arguments with the store path resolved. */
export interface ResolvedAttachArgs extends AttachArgs {
  storePath: string;
}

/** Parses the client's attach arguments (InvalidInput naming the field) and resolves the store path. */
export function parseAttachArgs(
  value: unknown,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ResolvedAttachArgs {
  const args = parseWith(AttachArgsSchema, value, 'attach configuration');
  return { ...args, storePath: resolveStorePath(args.store, env, cwd) };
}

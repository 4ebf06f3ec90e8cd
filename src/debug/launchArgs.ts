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

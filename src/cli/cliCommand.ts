/** The shape of one `ocdb` subcommand and the helpers they share (store option, output, exit codes). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { openRunStore, resolveStorePath, type RunStore } from '../store';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CliIo {
  out: (text: string) => void;
  /**
   * Writes raw text to stdout, resolving once the stream takes more (backpressure): what a command printing
   * more than fits in memory uses (`ocdb export`). Absent in tests, where `out` collects the lines.
   */
  write?: (text: string) => Promise<void>;
  /** Writes bytes to stdout as they are (binary content); absent in tests. */
  writeBytes?: (data: Uint8Array) => Promise<void>;
  err: (text: string) => void;
  isTty: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface CliContext {
  args: string[];
  io: CliIo;
}

export interface CliCommand {
  name: string;
  /** One line for `ocdb --help`. */
  summary: string;
  /** Usage and options text for `ocdb <name> --help`. */
  help: string;
  run(ctx: CliContext): Promise<number>;
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3, rejected: 4, diverged: 5 } as const;

export const STORE_OPTION = { store: { type: 'string' } } as const;
export const STORE_HELP =
  '  --store <path|url>   run store: a file, or postgres://user@host/db (default: $OCDB_STORE, else ./.ocdb/runs.db)';

/** Parses a command's arguments strictly (unknown options are usage errors). */
export function parseCommandArgs<const O extends OptionSpec>(args: string[], options: O, allowPositionals = true) {
  return parseArgs({ args, options, allowPositionals, strict: true });
}

/**
 * Opens the store named by --store / OCDB_STORE / the default. Readers pass create=false for a clear "no store"
 * error; a long-lived writer (`serve`, `acp`) `longLived`: its WAL checkpoints in a thread of their own.
 */
export function openStoreFor(io: CliIo, storeFlag: unknown, create: boolean, longLived = false): RunStore {
  return openRunStore(resolveStorePath(typeof storeFlag === 'string' ? storeFlag : undefined, io.env, io.cwd), {
    create,
    ...(longLived ? { backgroundCheckpoints: true } : {}),
  });
}

/**
 * The messages between a `TeamStore` (teamClient.ts, on the caller's thread) and its worker (teamWorker.ts, the
 * thread that waits on the network). Both ends are ours and built together: plain structured-clone shapes.
 */
import type { ListRunsOptions, RunSummary, StoreChanges } from '../store';

export type TeamOp =
  | { type: 'open' }
  | { type: 'listRuns'; options: ListRunsOptions }
  | { type: 'getRuns'; runIds: string[] }
  | { type: 'changeSeq' }
  | { type: 'changesSince'; seq: number }
  /** Copies runs (with ancestors) from the team store into the SQLite store at `localPath`. */
  | { type: 'pull'; runIds: string[]; localPath: string }
  /** Copies runs (with ancestors) from the SQLite store at `localPath` to the team store. */
  | { type: 'push'; runIds: string[]; localPath: string }
  /** Ships a local-first recorder's runs, ended or still being recorded (runShipping.ts). */
  | { type: 'ship'; runIds: string[]; localPath: string };

export interface TeamRequest {
  id: number;
  op: TeamOp;
  /**
   * A caller that waits on its own thread (a recorder confirming its run before a write tool runs): the reply goes
   * to `port`, then `flag[0]` is set to 1 and notified (Atomics), instead of a message on the worker's own port.
   */
  sync?: { flag: SharedArrayBuffer; port: MessagePort };
}

/** What a failure carries across the thread: enough to rebuild an OcdbError, never the connection string. */
export interface TeamFailure {
  message: string;
  code?: string;
  /** The server refused the credentials: retrying will not help until the password changes. */
  auth?: boolean;
  /** The server could not be reached (or went away): retry later. */
  offline?: boolean;
  /** The server answered but its database holds no run store (yet): said as such, looked for again later. */
  noStore?: boolean;
}

export type TeamReply =
  | { id: number; ok: true; value: TeamValue }
  | { id: number; ok: false; error: TeamFailure }
  /** The team store's change feed fired (another process wrote). */
  | { id: 0; event: 'changed' };

export type TeamValue =
  | undefined
  | number
  | StoreChanges
  | RunSummary[]
  | { runs: RunSummary[]; total: number }
  | { copied: string[]; unchanged: string[]; skipped: string[] };

export interface TeamWorkerData {
  url: string;
  connectTimeoutMs: number;
  /** Forward the team store's change feed (LISTEN/NOTIFY) as `changed` events. */
  changeFeed: boolean;
}

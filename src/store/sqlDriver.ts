/**
 * The driver seam: the few SQLite operations the store needs, so the same SQL
 * runs on Node's built-in `node:sqlite` (every runtime that has it: the VS Code
 * extension host, Node 22 and 24) or on better-sqlite3 (Node 20) — openDriver.ts
 * chooses — and on PostgreSQL (pgDriver.ts: the statements translated by
 * pgDialect.ts, the `pg` client in a worker thread, answered synchronously). Only src/store may touch SQL.
 */
import type { ReadAheadName } from './pgDialect';

export type SqlValue = string | number | bigint | null | Uint8Array;
export type SqlRow = Record<string, SqlValue>;

export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): SqlRow | undefined;
  all(...params: SqlValue[]): SqlRow[];
}

export type DriverName = 'better-sqlite3' | 'node:sqlite' | 'pg';

/**
 * How a write transaction begins: 'write' (SQLite `BEGIN IMMEDIATE`; PostgreSQL `BEGIN` and the store's write lock
 * shared, so writers run at once) or 'exclusive' (SQLite `BEGIN EXCLUSIVE`; PostgreSQL the write lock exclusively:
 * nothing else writes until it ends, deleteRun's garbage collection).
 */
export type BeginMode = 'write' | 'exclusive';

export interface SqlDriver {
  readonly name: DriverName;
  /** Runs statements whose results nobody reads (DDL, a savepoint); never a transaction's start or end. */
  exec(sql: string): void;
  prepare(sql: string, options?: PrepareOptions): SqlStatement;
  /** Begins a write transaction (explicit calls: no driver reads a statement's text to learn one began). */
  begin(mode: BeginMode): void;
  commit(): void;
  rollback(): void;
  /** Milliseconds a writer waits for another's lock before it fails (SQLite busy_timeout, PostgreSQL lock_timeout). */
  setLockTimeout(ms: number): void;
  /**
   * Engines whose writers run at once (PostgreSQL; SQLite has one writer and needs none of these): hold the lock
   * of row `id` of `table` to the end of the transaction, before a read-check-write on it (pgDriver.ts).
   */
  lockRow?(table: string, id: string): void;
  /** The commit-tail lock, taken last, just before the change counter's bump and the COMMIT. */
  lockChanges?(): void;
  /** The store's write lock exclusively: nothing else writes until this transaction ends (garbage collection). */
  lockStore?(): void;
  /**
   * Engines shared by many hosts (PostgreSQL): how far the server's clock is ahead of this host's, in ms
   * (measured at connect, again every minute). Heartbeats are then compared on one clock (liveness.ts).
   */
  clockOffsetMs?(): number;
  /**
   * A SQLite file's writer: copies its WAL back into the database in a thread of its own (walCheckpointer.ts), not
   * in the commit that reaches the autocheckpoint size. Absent where the driver cannot (node:sqlite).
   */
  checkpointInBackground?(): void;
  /** Engines with a change notification of their own (PostgreSQL LISTEN/NOTIFY): calls `listener` per commit. */
  onNotify?(listener: (payload: string) => void): () => void;
  close(): void;
}

export interface PrepareOptions {
  /**
   * The statement is one step of a walk over rows that never change (a list node by id, then its parent): an engine
   * with round trips (PostgreSQL) reads the chain ahead in one query (pgDialect.ts READ_AHEAD); SQLite ignores it.
   */
  readAhead?: ReadAheadName;
  /**
   * The INSERT's id column, whose new value `run().lastInsertRowid` answers: SQLite's rowid (the column is its
   * alias), PostgreSQL's `RETURNING <column>`. Declared by the caller, never read from the statement's text.
   */
  returnsId?: string;
  /** Each call answers anew (a sequence's next values): never answered from what the transaction read before. */
  volatile?: boolean;
}

export interface OpenDriverOptions {
  /** Open read-write and create the file when missing. */
  create: boolean;
  /** Force one driver (tests, benches); default: node:sqlite where the runtime has it, else better-sqlite3 (openDriver.ts). */
  driver?: DriverName;
}

/** SQLite's statement for each way a write transaction begins (both SQLite drivers). */
export const BEGIN_SQL: Readonly<Record<BeginMode, string>> = {
  write: 'BEGIN IMMEDIATE',
  exclusive: 'BEGIN EXCLUSIVE',
};

/** A lock timeout as a whole number of milliseconds (5000 for anything that is not a number). */
export function lockTimeoutMs(ms: number): number {
  return Number.isFinite(ms) ? Math.max(0, Math.floor(ms)) : 5000;
}

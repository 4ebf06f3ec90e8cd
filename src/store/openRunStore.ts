/**
 * Opening a run store: a SQLite file (its folder made, WAL and busy timeout set, migrated, fixed up) or, for a
 * `postgres://` / `postgresql://` connection string, a PostgreSQL database (pgStore.ts). Either way the same
 * SqlRunStore over the driver seam (see src/store/README.md "Two engines").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OcdbError } from '../model';
import { fileClockOffset } from './fileClock';
import { applyFixups } from './fixups';
import { migrate } from './migrations';
import { openDriver } from './openDriver';
import { isPostgresLocation } from './pgDialect';
import { openPgDriver } from './pgStore';
import type { DriverName, SqlDriver } from './sqlDriver';
import { SqlRunStore } from './sqlRunStore';
import { translateSqliteError } from './sqliteErrors';
import { parseStoreUrl } from './storePath';
import { StoreTransactions, type GroupCommitOptions } from './storeTransactions';

export type { GroupCommitOptions } from './storeTransactions';

export interface OpenStoreOptions {
  /** Create the file (and its folder) when missing; default true. Readers pass false to get a clear error instead. */
  create?: boolean;
  driver?: DriverName;
  /** Milliseconds a writer waits for another process's lock before StoreLocked; default 5000. */
  busyTimeoutMs?: number;
  /**
   * A long-lived writer (the SDK's recorder, `ocdb serve`): WAL checkpoints in a thread of its own, so no commit
   * stalls on copying the WAL into the database (SQLite with better-sqlite3; walCheckpointer.ts).
   */
  backgroundCheckpoints?: boolean;
  /**
   * Group commit (SQLite; PostgreSQL ignores it): the writes of one event-loop turn share one transaction, each in a
   * savepoint of its own (a failed write rolls back alone). The transaction commits at the end of the turn
   * (setImmediate), after `maxWrites` writes or `maxMs` of being open, at `flush()`, at `close()`, an exclusive write,
   * or the process's exit (storeTransactions.ts).
   */
  groupCommit?: boolean | GroupCommitOptions;
  /** PostgreSQL: milliseconds a connection attempt may take before the store reads unreachable; default 10000. */
  connectTimeoutMs?: number;
}

/**
 * Opens (and migrates) the store at `file`: a SQLite file, or — for a `postgres://` / `postgresql://` connection
 * string — a PostgreSQL database (pgStore.ts; the same store over another driver, see src/store/README.md "Two engines").
 */
export function openRunStore(file: string, options: OpenStoreOptions = {}): SqlRunStore {
  const create = options.create ?? true;
  if (isPostgresLocation(file)) {
    parseStoreUrl(file); // a malformed URL refused here, in one line without its password
    const { db, location } = openPgDriver(file, {
      create,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      connectTimeoutMs: options.connectTimeoutMs,
    });
    return new SqlRunStore(location, db);
  }
  // SQLite's in-memory database is a name, not a path: resolved, it would be a file called ":memory:" in the cwd
  const inMemory = file === ':memory:';
  const abs = inMemory ? file : path.resolve(file);
  if (!create && !inMemory && !fs.existsSync(abs)) {
    throw new OcdbError(
      'StoreUnavailable',
      `No run store at ${abs}. Record a run, run \`ocdb demo --store ${abs}\`, or point --store / OCDB_STORE at an existing store.`,
      { path: abs },
    );
  }
  if (create && !inMemory) fs.mkdirSync(path.dirname(abs), { recursive: true });
  let db: SqlDriver;
  try {
    db = openDriver(abs, { create, driver: options.driver });
  } catch (e) {
    throw translateSqliteError(e, abs);
  }
  try {
    db.setLockTimeout(options.busyTimeoutMs ?? 5000);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // a migration or fix-up that writes commits this process's open groups first (see storeTransactions.ts)
    const writing: SqlDriver = {
      ...db,
      begin: (mode) => {
        StoreTransactions.commitOpenGroups();
        db.begin(mode);
      },
    };
    migrate(writing);
    applyFixups(writing);
    if (options.backgroundCheckpoints) db.checkpointInBackground?.();
  } catch (e) {
    db.close();
    throw translateSqliteError(e, abs);
  }
  // leases and heartbeats judged on the store's clock: the file system's (fileClock.ts)
  Object.assign(db, { clockOffsetMs: fileClockOffset(abs) });
  const store = new SqlRunStore(abs, db);
  if (options.groupCommit) store.groupCommits(options.groupCommit === true ? {} : options.groupCommit);
  return store;
}

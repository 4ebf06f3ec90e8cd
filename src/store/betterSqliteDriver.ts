/** The better-sqlite3 implementation of the driver seam (the default). */
import { BEGIN_SQL, lockTimeoutMs, type SqlDriver, type SqlStatement, type SqlValue } from './sqlDriver';
import {
  DEFAULT_AUTOCHECKPOINT,
  startWalCheckpointer,
  WRITER_AUTOCHECKPOINT,
  type WalCheckpointer,
} from './walCheckpointer';

type BetterSqliteModule = typeof import('better-sqlite3');

let loaded: BetterSqliteModule | undefined;
let loadError: unknown;

/** Loads better-sqlite3 lazily; returns undefined (and remembers why) when its binary does not load here. */
export function loadBetterSqlite(): BetterSqliteModule | undefined {
  if (loaded || loadError) return loaded;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily so a broken native binary can fall back to node:sqlite
    loaded = require('better-sqlite3') as BetterSqliteModule;
    // Opening a database proves the native binary matches this runtime's ABI.
    new loaded(':memory:').close();
  } catch (e) {
    loaded = undefined;
    loadError = e;
  }
  return loaded;
}

export function betterSqliteLoadError(): unknown {
  return loadError;
}

/** The savepoint statements of a grouped write (storeTransactions.ts `groupedWrite`): prepared once, like BEGIN. */
const SAVEPOINTS = new Set(['SAVEPOINT w', 'RELEASE w', 'ROLLBACK TO w']);

export function openBetterSqlite(path: string, create: boolean): SqlDriver {
  const Database = loadBetterSqlite();
  if (!Database) throw betterSqliteLoadError();
  const db = new Database(path, { fileMustExist: !create });
  // A transaction's BEGIN and COMMIT run once per write: prepared once, not compiled again at every call by exec.
  const control = new Map<string, { run(): unknown }>();
  const run = (sql: string) => {
    let stmt = control.get(sql);
    if (!stmt) control.set(sql, (stmt = db.prepare(sql)));
    stmt.run();
  };
  let checkpointer: WalCheckpointer | undefined;
  return {
    name: 'better-sqlite3',
    exec: (sql) => {
      if (!SAVEPOINTS.has(sql)) return void db.exec(sql);
      run(sql);
    },
    begin: (mode) => run(BEGIN_SQL[mode]),
    commit: () => {
      run('COMMIT');
      checkpointer?.committed();
    },
    rollback: () => run('ROLLBACK'),
    setLockTimeout: (ms) => void db.pragma(`busy_timeout = ${lockTimeoutMs(ms)}`),
    checkpointInBackground: () => {
      if (checkpointer || path === ':memory:') return;
      checkpointer = startWalCheckpointer(path, require.resolve('better-sqlite3'), () => {
        // the worker is gone: this connection checkpoints as SQLite's default does
        if (db.open) db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
      });
      db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT}`);
    },
    prepare(sql): SqlStatement {
      const stmt = db.prepare(sql);
      const returnsData = stmt.reader;
      return {
        run: (...params: SqlValue[]) => {
          const r = stmt.run(...params);
          return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
        },
        get: (...params: SqlValue[]) => (returnsData ? (stmt.get(...params) as never) : undefined),
        all: (...params: SqlValue[]) => (returnsData ? (stmt.all(...params) as never) : []),
      };
    },
    close: () => {
      // the worker's connection closed first: this one's close is the last, which checkpoints and removes the WAL
      checkpointer?.stop();
      db.close();
    },
  };
}

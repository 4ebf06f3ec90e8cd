/**
 * The `node:sqlite` implementation of the driver seam: the driver of every runtime that has it (openDriver.ts) — the
 * VS Code extension host, Node 22 and 24. Uses only what Node 22.15's `node:sqlite` offers (no backup(),
 * aggregate(), isTransaction or location()), so no supported release lacks a call made here. Node 22 prints an
 * ExperimentalWarning when the module loads: that one warning is dropped, every other passes.
 */
import { BEGIN_SQL, lockTimeoutMs, type SqlDriver, type SqlRow, type SqlStatement, type SqlValue } from './sqlDriver';

interface NodeSqliteStatement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
}
interface NodeSqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): NodeSqliteStatement;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { open?: boolean; readOnly?: boolean }) => NodeSqliteDatabase;
}

let loaded: NodeSqliteModule | undefined;
let missing = false;

/** Drops the one ExperimentalWarning `node:sqlite` emits as it loads (Node 22; 24.15+ no longer emits it). */
function isSqliteWarning(warning: unknown, typeOrOptions: unknown): boolean {
  const type = typeof typeOrOptions === 'string' ? typeOrOptions : (typeOrOptions as { type?: unknown })?.type;
  const name = warning instanceof Error ? warning.name : type;
  const text = warning instanceof Error ? warning.message : String(warning);
  return name === 'ExperimentalWarning' && /\bSQLite\b/.test(text);
}

function loadNodeSqlite(): NodeSqliteModule | undefined {
  if (loaded || missing) return loaded;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteWarning(warning, rest[0])) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a built-in absent before Node 22.5 (unflagged from 22.13)
    loaded = require('node:sqlite') as NodeSqliteModule;
  } catch {
    missing = true;
  } finally {
    process.emitWarning = emitWarning;
  }
  return loaded;
}

/** Whether this runtime has `node:sqlite` (Node 22.13 and later, without a flag). */
export function nodeSqliteAvailable(): boolean {
  return loadNodeSqlite() !== undefined;
}

export function openNodeSqlite(path: string, create: boolean): SqlDriver {
  const mod = loadNodeSqlite();
  if (!mod) throw new Error(`node:sqlite is not available in Node ${process.versions.node} (it needs 22.13 or later)`);
  if (!create) {
    // node:sqlite has no "must exist" flag: check first so a missing store is reported, not created.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fs = require('node:fs') as typeof import('node:fs');
    if (!fs.existsSync(path))
      throw Object.assign(new Error(`unable to open database file`), { code: 'SQLITE_CANTOPEN' });
  }
  const db = new mod.DatabaseSync(path);
  return {
    name: 'node:sqlite',
    exec: (sql) => db.exec(sql),
    begin: (mode) => db.exec(BEGIN_SQL[mode]),
    commit: () => db.exec('COMMIT'),
    rollback: () => db.exec('ROLLBACK'),
    setLockTimeout: (ms) => db.exec(`PRAGMA busy_timeout = ${lockTimeoutMs(ms)}`),
    prepare(sql): SqlStatement {
      const stmt = db.prepare(sql);
      return {
        run: (...params) => {
          const r = stmt.run(...params);
          return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
        },
        get: (...params) => stmt.get(...params) as SqlRow | undefined,
        all: (...params) => stmt.all(...params) as SqlRow[],
      };
    },
    close: () => db.close(),
  };
}

/**
 * The `node:sqlite` implementation of the driver seam: the fallback when the
 * better-sqlite3 binary cannot load (Node 22+ hosts such as desktop VS Code's
 * Electron). `node:sqlite` exists from Node 22.5; on Node 20 this throws.
 */
import type { SqlDriver, SqlRow, SqlStatement, SqlValue } from './sqlDriver';

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

export function openNodeSqlite(path: string, create: boolean): SqlDriver {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional built-in, absent before Node 22.5
  const mod = require('node:sqlite') as NodeSqliteModule;
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

/**
 * The driver seam: the few SQLite operations the store needs, so the same SQL
 * runs on better-sqlite3 (fast, native, the default) or on Node's built-in
 * `node:sqlite` (for hosts whose Electron ABI cannot load the native binary,
 * e.g. desktop VS Code on Node 22). Only src/store may touch SQLite.
 */
export type SqlValue = string | number | bigint | null | Uint8Array;
export type SqlRow = Record<string, SqlValue>;

export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): SqlRow | undefined;
  all(...params: SqlValue[]): SqlRow[];
}

export type DriverName = 'better-sqlite3' | 'node:sqlite';

export interface SqlDriver {
  readonly name: DriverName;
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  close(): void;
}

export interface OpenDriverOptions {
  /** Open read-write and create the file when missing. */
  create: boolean;
  /** Force one driver (tests); default: better-sqlite3, falling back to node:sqlite when it cannot load. */
  driver?: DriverName;
}

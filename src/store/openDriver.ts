/**
 * The one choice of SQLite driver, for every host: `node:sqlite` wherever the runtime has it (the extension host of
 * every supported VS Code — Node 22.17 and later — and a CLI or SDK on Node 22 or 24), better-sqlite3 where it
 * does not (Node 20). So the .vsix ships no native module and serves every platform, and Node 20 keeps its store.
 * `OCDB_SQLITE_DRIVER` or `options.driver` force one (tests, benches).
 */
import { betterSqliteLoadError, loadBetterSqlite, openBetterSqlite } from './betterSqliteDriver';
import { nodeSqliteAvailable, openNodeSqlite } from './nodeSqliteDriver';
import type { DriverName, OpenDriverOptions, SqlDriver } from './sqlDriver';

/** The driver `openDriver` opens a SQLite file with in this runtime, unless one is forced. */
export function defaultSqliteDriver(): Exclude<DriverName, 'pg'> {
  return nodeSqliteAvailable() ? 'node:sqlite' : 'better-sqlite3';
}

export function openDriver(path: string, options: OpenDriverOptions): SqlDriver {
  const forced = options.driver ?? (process.env.OCDB_SQLITE_DRIVER as OpenDriverOptions['driver']);
  const wanted = forced ?? defaultSqliteDriver();
  if (wanted === 'node:sqlite') return openNodeSqlite(path, options.create);
  if (loadBetterSqlite()) return openBetterSqlite(path, options.create);
  throw new Error(
    `No SQLite driver works in this runtime (Node ${process.versions.node}, ABI ${process.versions.modules}): node:sqlite needs Node 22.13 or later, and better-sqlite3 failed to load (${String(
      betterSqliteLoadError(),
    )}). Use Node 22 or later (in VS Code, release 1.103 or later), or rebuild better-sqlite3 for this runtime (npm rebuild better-sqlite3).`,
  );
}

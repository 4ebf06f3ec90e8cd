/** Picks the SQLite driver: better-sqlite3 when its binary loads here, else node:sqlite. */
import { betterSqliteLoadError, loadBetterSqlite, openBetterSqlite } from './betterSqliteDriver';
import { openNodeSqlite } from './nodeSqliteDriver';
import type { OpenDriverOptions, SqlDriver } from './sqlDriver';

export function openDriver(path: string, options: OpenDriverOptions): SqlDriver {
  const wanted = options.driver ?? (process.env.OCDB_SQLITE_DRIVER as OpenDriverOptions['driver']);
  if (wanted === 'node:sqlite') return openNodeSqlite(path, options.create);
  if (wanted === 'better-sqlite3' || loadBetterSqlite()) return openBetterSqlite(path, options.create);
  try {
    return openNodeSqlite(path, options.create);
  } catch (e) {
    throw new Error(
      `No SQLite driver works in this runtime (Node ${process.versions.node}, ABI ${process.versions.modules}): better-sqlite3 failed to load (${String(
        betterSqliteLoadError(),
      )}) and node:sqlite is unavailable (${String(e)}). Use a runtime with node:sqlite (Node 22.13 or later; in VS Code, a desktop release on Electron 35 or later), or rebuild better-sqlite3 for this one (npm rebuild better-sqlite3).`,
      { cause: e },
    );
  }
}

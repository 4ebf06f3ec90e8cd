/**
 * Opening a PostgreSQL run store: the driver (pgDriver.ts: `pg` in a worker thread, answered synchronously), the
 * lock timeout, the migrations (pgMigrations.ts). SqlRunStore then runs the same code over it as over a file.
 * The location a store shows (`store.path`, every error) is the connection string redacted: no password.
 */
import { OcdbError, redactUrl } from '../model';
import { PgDriver } from './pgDriver';
import { applyFixups } from './fixups';
import { migratePg, pgSchemaVersion } from './pgMigrations';
import type { SqlDriver } from './sqlDriver';

export interface OpenPgOptions {
  /** Create the schema in an empty database; false: an empty database is "no run store" (StoreUnavailable). */
  create: boolean;
  /** Milliseconds a writer waits for another writer's lock before StoreLocked. */
  busyTimeoutMs: number;
  /** Milliseconds a connection attempt may take; default the driver's. */
  connectTimeoutMs?: number;
}

/** Connects to `url` and brings its schema up to date; answers the driver and the location to show. */
export function openPgDriver(url: string, options: OpenPgOptions): { db: SqlDriver; location: string } {
  const location = redactUrl(url.trim());
  const db = new PgDriver({ url: url.trim(), location, connectTimeoutMs: options.connectTimeoutMs });
  try {
    // a migration another process is applying may take a while: wait for it longer than for a write
    db.setLockTimeout(Math.max(options.busyTimeoutMs, 60_000));
    if (!options.create && pgSchemaVersion(db) === 0) {
      throw new OcdbError(
        'StoreUnavailable',
        `No run store in ${location} (the database has no Agent Time Travel tables). Record a run, run \`ocdb demo --store <url>\`, or point --store / OCDB_STORE at an existing store.`,
        { path: location },
      );
    }
    migratePg(db);
    applyFixups(db);
    db.setLockTimeout(options.busyTimeoutMs);
  } catch (e) {
    db.close();
    throw e;
  }
  return { db, location };
}

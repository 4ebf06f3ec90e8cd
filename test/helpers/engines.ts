/**
 * The store engines the tests run on. `OCDB_TEST_ENGINE=postgres` (test/run.mjs --postgres) makes every store a
 * test opens through `tmpLocation` / `tmpStore` a fresh schema of the PostgreSQL server at OCDB_TEST_PG_URL
 * (test/support/pgCluster.sh starts a throwaway one); otherwise a fresh SQLite file. Schemas are dropped when the
 * test file's process ends.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgDriver } from '../../src/store/pgDriver';

export type EngineName = 'sqlite' | 'postgres';

/** The engine of this test process. */
export const TEST_ENGINE: EngineName = process.env.OCDB_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** The PostgreSQL server of the tests (a connection string with its password: never printed). */
export const PG_URL = process.env.OCDB_TEST_PG_URL;

let admin: PgDriver | undefined;
const schemas: string[] = [];
const cleanups: (() => void)[] = [];
/** Runs `fn` when the test file's process is done (node:test's `after` would run early when called from a hook). */
function atExit(fn: () => void): void {
  if (cleanups.length === 0) process.once('beforeExit', () => cleanups.splice(0).forEach((f) => f()));
  cleanups.push(fn);
}

function adminDriver(): PgDriver {
  if (!PG_URL) {
    throw new Error(
      'OCDB_TEST_ENGINE=postgres needs OCDB_TEST_PG_URL: eval "$(bash test/support/pgCluster.sh start)" starts a server',
    );
  }
  if (!admin) {
    admin = new PgDriver({ url: PG_URL, location: 'the test server' });
    const a = admin;
    atExit(() => {
      for (const s of schemas.splice(0)) a.exec(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      a.close();
      admin = undefined;
    });
  }
  return admin;
}

/** The connection string of a fresh, empty schema on the test server. */
export function pgSchemaUrl(): string {
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  adminDriver().exec(`CREATE SCHEMA ${schema}`);
  schemas.push(schema);
  const url = new URL(PG_URL as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Runs one statement on the test server as its admin (tests that tamper with rows, or read sizes). */
export function pgAdminQuery(sql: string, ...params: (string | number | null)[]): Record<string, unknown>[] {
  return adminDriver()
    .prepare(sql)
    .all(...params);
}

/** A fresh, empty store location on `engine`: a file in a temporary folder, or a new schema. */
export function tmpLocation(name = 'runs.db', engine: EngineName = TEST_ENGINE): string {
  if (engine === 'postgres') return pgSchemaUrl();
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-test-'));
  atExit(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, name);
}

/**
 * The bytes a store takes: the SQLite file (after folding its WAL), or on PostgreSQL the schema's tables with their
 * indexes and TOAST, after a VACUUM. The two one-row tables updated in place at every write (`runs`' counters,
 * `meta`'s change counter) count their live rows only: the dead row versions their updates leave are reclaimable,
 * but a VACUUM cannot reclaim them while another session of the cluster holds an older snapshot (the parallel
 * PostgreSQL pass always has some), which made this figure depend on the other tests running.
 */
export function storeBytes(location: string): number {
  if (!location.startsWith('postgres')) return statSync(location).size;
  const schema = schemaOf(location);
  adminDriver().exec(`VACUUM`);
  const row = pgAdminQuery(
    `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ? AND c.relkind = 'r' AND c.relname NOT IN ('runs', 'meta')`,
    schema,
  )[0];
  const live = pgAdminQuery(
    `SELECT (SELECT COALESCE(SUM(pg_column_size(r.*)), 0) FROM "${schema}".runs r)
          + (SELECT COALESCE(SUM(pg_column_size(m.*)), 0) FROM "${schema}".meta m) AS bytes`,
  )[0];
  return Number(row?.bytes ?? 0) + Number(live?.bytes ?? 0);
}

/** The schema a location made by pgSchemaUrl names. */
export function schemaOf(location: string): string {
  return /search_path=(\w+)/.exec(decodeURIComponent(location))?.[1] ?? 'public';
}

/**
 * A SQLite fixture store's rows copied into a fresh PostgreSQL schema at the matching PostgreSQL schema version, so
 * a migration test can open it as the previous code left it (the migration-in-place tests of schema 6 and 7).
 */
import { copyFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { PgDriver } from '../../src/store/pgDriver';
import { PG_MIGRATIONS } from '../../src/store/pgMigrations';
import { tmpDir } from './tmp';

/**
 * Applies PostgreSQL migrations 1…`pgVersion` at `location` and copies every row of the SQLite store `fixture` into
 * them: blob text as raw deflate (PostgreSQL's blob data is always bytes), `meta` by key, the list-node sequence
 * where SQLite's AUTOINCREMENT left it, every other sequence past the rows copied. One transaction.
 */
export function loadSqliteFixtureIntoPg(location: string, fixture: string, pgVersion: number): void {
  const pg = new PgDriver({ url: location, location: `schema ${pgVersion}` });
  const copy = join(tmpDir(), basename(fixture)); // read from a copy: opening the fixture itself would write beside it
  copyFileSync(fixture, copy);
  const old = new Database(copy, { readonly: true });
  try {
    pg.begin('write');
    pg.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    for (let v = 0; v < pgVersion; v++) {
      pg.exec(PG_MIGRATIONS[v] as string);
      pg.prepare('INSERT INTO schema_migrations (version) VALUES (?)').run(v + 1);
    }
    const tables = (
      old.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
        name: string;
      }[]
    ).map((t) => t.name);
    for (const table of tables) {
      const withoutRowid = /WITHOUT ROWID/i.test(
        String((old.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as { sql: string }).sql),
      );
      const rows = old.prepare(`SELECT * FROM ${table}${withoutRowid ? '' : ' ORDER BY rowid'}`).all() as Record<
        string,
        unknown
      >[];
      for (const row of rows) {
        if (table === 'blobs' && typeof row.data === 'string') row.data = deflateRawSync(row.data);
        const cols = Object.keys(row);
        const sql =
          table === 'meta'
            ? 'UPDATE meta SET value = ? WHERE key = ?'
            : `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
        const params = table === 'meta' ? [row.value, row.key] : cols.map((c) => row[c]);
        pg.prepare(sql).run(...(params as (string | number | null | Uint8Array)[]));
      }
    }
    pg.prepare("SELECT setval(pg_get_serial_sequence('list_nodes', 'id'), ?)").get(
      Number((old.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'list_nodes'").get() as { seq: number }).seq),
    );
    // The other sequences (runs.run_key, checkpoint_heads.head_id from PostgreSQL schema 4 on) past the rows copied.
    const serials = pg
      .prepare(
        `SELECT table_name AS t, column_name AS c FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%' AND table_name <> 'list_nodes'`,
      )
      .all() as { t: string; c: string }[];
    for (const { t, c } of serials) {
      pg.prepare(
        `SELECT setval(pg_get_serial_sequence('${t}', '${c}'), COALESCE((SELECT MAX(${c}) FROM ${t}), 0) + 1, false)`,
      ).get();
    }
    pg.commit();
  } finally {
    old.close();
    pg.close();
  }
}

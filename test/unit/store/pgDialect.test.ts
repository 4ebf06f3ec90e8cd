/**
 * The one translation of the store's SQLite statements to PostgreSQL (src/store/pgDialect.ts), on the statements
 * the table modules really use: parameters, INSERT OR IGNORE, scalar MAX, INDEXED BY, LIMIT -1, rowids — and never
 * inside a string literal. Whether PostgreSQL accepts the result is the PostgreSQL pass's business (test/run.mjs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPostgresLocation, toPostgres } from '../../../src/store/pgDialect';
import { resolveStorePath } from '../../../src/store';
import { translatePgError } from '../../../src/store/pgErrors';
import { isOcdbError } from '../../../src/model';

test('parameters are numbered in order, never inside a literal', () => {
  const t = toPostgres("SELECT '?' AS q, ? AS a FROM runs WHERE status = 'running?' AND run_id = ?");
  assert.equal(t.text, "SELECT '?' AS q, $1 AS a FROM runs WHERE status = 'running?' AND run_id = $2");
  assert.equal(t.params, 2);
});

test('INSERT OR IGNORE becomes ON CONFLICT DO NOTHING; an insert returns the id its caller names, and only then', () => {
  assert.equal(
    toPostgres('INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)').text,
    'INSERT INTO blobs (hash, data) VALUES ($1, $2) ON CONFLICT DO NOTHING',
  );
  // a hash-consed row: nothing comes back when it was there (its writer then reads its id)
  const node = toPostgres('INSERT OR IGNORE INTO list_nodes (parent, item, len) VALUES (?, ?, ?)', 'id');
  assert.equal(
    node.text,
    'INSERT INTO list_nodes (parent, item, len) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id',
  );
  assert.equal(node.returnsRowid, true);
  assert.equal(toPostgres('INSERT INTO deleted_runs (run_id, change_seq) VALUES (?, ?)').returnsRowid, false);
  // the table's name is not read: the same list-node insert without a named id returns nothing
  const plain = toPostgres('INSERT OR IGNORE INTO list_nodes (parent, item, len) VALUES (?, ?, ?)');
  assert.equal(plain.returnsRowid, false);
  assert.doesNotMatch(plain.text, /RETURNING/);
});

test('scalar MAX/MIN become GREATEST/LEAST; aggregates stay', () => {
  const t = toPostgres(
    `UPDATE runs SET max_step = MAX(max_step, ?), last_checkpoint_at = MAX(COALESCE(last_checkpoint_at, ?), ?),
     x = (SELECT COALESCE(MAX(step_index), -1) FROM checkpoints WHERE run_id = ?) WHERE run_id = ?`,
  ).text;
  assert.match(t, /max_step = GREATEST\(max_step, \$1\)/);
  assert.match(t, /last_checkpoint_at = GREATEST\(COALESCE\(last_checkpoint_at, \$2\), \$3\)/);
  assert.match(t, /COALESCE\(MAX\(step_index\), -1\)/);
  assert.match(toPostgres('SELECT MIN(a, b) FROM t').text, /LEAST\(a, b\)/);
});

test('INDEXED BY goes, LIMIT -1 means no limit, SQLite casts become PostgreSQL types', () => {
  assert.equal(
    toPostgres('SELECT * FROM runs INDEXED BY runs_roots_by_start WHERE parent_run_id IS NULL LIMIT ? OFFSET ?').text,
    'SELECT * FROM runs WHERE parent_run_id IS NULL LIMIT NULLIF($1, -1) OFFSET $2',
  );
  assert.equal(
    toPostgres("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_seq'").text,
    "UPDATE meta SET value = CAST(value AS BIGINT) + 1 WHERE key = 'change_seq'",
  );
  assert.match(toPostgres('SELECT SUM(LENGTH(CAST(data AS BLOB))) FROM blobs').text, /CAST\(data AS BYTEA\)/);
});

test('json_group_array becomes json_agg; a literal of that name stays', () => {
  assert.equal(
    toPostgres("SELECT CAST(json_group_array(seq) AS TEXT) AS seq, 'json_group_array(' AS t FROM c WHERE k = ?").text,
    "SELECT CAST(json_agg(seq) AS TEXT) AS seq, 'json_group_array(' AS t FROM c WHERE k = $1",
  );
});

test('a postgres:// or postgresql:// store is a connection string, not a path', () => {
  assert.equal(isPostgresLocation('postgres://u@db.example/team'), true);
  assert.equal(isPostgresLocation('POSTGRESQL://db/team'), true);
  assert.equal(isPostgresLocation('/home/me/.ocdb/runs.db'), false);
  assert.equal(isPostgresLocation('postgres.db'), false);
  assert.equal(resolveStorePath('postgres://db.example/team', {}, '/work'), 'postgres://db.example/team');
  assert.equal(resolveStorePath(undefined, { OCDB_STORE: 'postgresql://db/x' }, '/work'), 'postgresql://db/x');
  assert.equal(resolveStorePath('runs.db', {}, '/work'), '/work/runs.db');
});

test('a deadlock between two writers, or a serialization failure, is StoreLocked: nothing written, retry', () => {
  for (const code of ['40P01', '40001']) {
    const e = translatePgError({ message: 'deadlock detected', code }, 'postgres://[REDACTED]@db/x');
    assert.ok(isOcdbError(e) && e.code === 'StoreLocked', String(e));
    assert.match(e.message, /nothing was written: retry/);
  }
});

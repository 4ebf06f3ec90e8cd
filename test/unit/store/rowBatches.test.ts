/**
 * The bounds of the store's multi-row statements (rowBatches.ts): every row written once, in order; at most
 * MAX_ROWS rows and MAX_BYTES of values a statement; a few statement texts a table however long the batches; a
 * look-up always the same statement. Against a real SQLite table, so the statements are ones SQLite takes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDriver } from '../../../src/store/openDriver';
import { insertRows, lookUpRows, LOOKUP_KEYS, MAX_BYTES, MAX_ROWS } from '../../../src/store/rowBatches';
import type { SqlStatement, SqlValue } from '../../../src/store/sqlDriver';

function table() {
  const db = openDriver(':memory:', { create: true });
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
  const statements: { text: string; rows: number; bytes: number }[] = [];
  const sql = (text: string): SqlStatement => {
    const s = db.prepare(text);
    return {
      ...s,
      run: (...params: SqlValue[]) => {
        statements.push({
          text,
          rows: params.length / 2,
          bytes: params.reduce<number>((n, p) => n + (typeof p === 'string' ? p.length : 8), 0),
        });
        return s.run(...params);
      },
      all: (...params: SqlValue[]) => {
        statements.push({ text, rows: params.length, bytes: 0 });
        return s.all(...params);
      },
    };
  };
  return { db, sql, statements };
}

test('a thousand rows go in a few statements of at most MAX_ROWS rows, each row once and in order', () => {
  const { db, sql, statements } = table();
  const rows = Array.from({ length: 1000 }, (_, i) => [i, `row ${i}`]);
  insertRows(sql, 'INSERT INTO t (k, v)', 2, rows);
  assert.deepEqual(
    db
      .prepare('SELECT k, v FROM t ORDER BY k')
      .all()
      .map((r) => [r.k, r.v]),
    rows,
  );
  assert.ok(statements.length <= Math.ceil(1000 / MAX_ROWS) + 8, `${statements.length} statements`);
  assert.ok(statements.every((s) => s.rows <= MAX_ROWS));
  // lengths of any kind use the same few texts (power-of-two row counts): the driver keeps each prepared
  for (const n of [1, 3, 77, 255, 256, 257, 999])
    insertRows(sql, 'INSERT OR IGNORE INTO t (k, v)', 2, rows.slice(0, n));
  const texts = new Set(statements.filter((s) => s.text.includes('OR IGNORE')).map((s) => s.text));
  assert.ok(texts.size <= 9, `${texts.size} texts`);
  db.close();
});

test('large values split the batch by bytes, and a value larger than the bound goes alone', () => {
  const { db, sql, statements } = table();
  const big = 'x'.repeat(MAX_BYTES / 3);
  const huge = 'y'.repeat(MAX_BYTES + 10);
  const rows = [
    [1, big],
    [2, big],
    [3, big],
    [4, huge],
    [5, 'small'],
    [6, big],
  ];
  insertRows(sql, 'INSERT INTO t (k, v)', 2, rows);
  assert.equal(Number(db.prepare('SELECT count(*) AS n FROM t').get()?.n), rows.length);
  assert.ok(
    statements.every((s) => s.rows === 1 || s.bytes <= MAX_BYTES),
    statements.map((s) => `${s.rows}:${s.bytes}`).join(' '),
  );
  assert.ok(
    statements.some((s) => s.rows === 1 && s.bytes > MAX_BYTES),
    'the huge row alone',
  );
  db.close();
});

test('a look-up of many keys answers each present key once, in reads of LOOKUP_KEYS keys', () => {
  const { db, sql, statements } = table();
  insertRows(
    sql,
    'INSERT INTO t (k, v)',
    2,
    Array.from({ length: 700 }, (_, i) => [i * 2, 'v']),
  );
  statements.length = 0;
  const keys = Array.from({ length: 1200 }, (_, i) => i);
  const found = lookUpRows(sql, 'SELECT k FROM t WHERE k IN', keys).map((r) => Number(r.k));
  assert.deepEqual(
    found.sort((a, b) => a - b),
    keys.filter((k) => k % 2 === 0 && k < 1400),
  );
  assert.equal(statements.length, Math.ceil(1200 / LOOKUP_KEYS));
  assert.equal(new Set(statements.map((s) => s.text)).size, 1, 'one statement, the last key repeated');
  db.close();
});

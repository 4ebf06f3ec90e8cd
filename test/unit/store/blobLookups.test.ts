/**
 * A writer of new content stops looking each blob up before it writes it; content stored before is looked up again
 * (and not compressed again), and either way every text is one row that reads back whole. Both
 * engines: on PostgreSQL the insert's answer is what turns the look-ups back on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openRunStore } from '../../../src/store';
import { ContentStore } from '../../../src/store/contentStore';
import { openDriver } from '../../../src/store/openDriver';
import { openPgDriver } from '../../../src/store/pgStore';
import type { SqlDriver } from '../../../src/store/sqlDriver';
import { TEST_ENGINE, tmpLocation } from '../../helpers/engines';

const LOOKUP = 'SELECT 1 AS x FROM blobs WHERE hash = ?';

/** The driver of a fresh store, counting the blob look-ups it runs. */
function countingDriver(): { db: SqlDriver; lookups: () => number } {
  const location = tmpLocation();
  openRunStore(location).close();
  const db =
    TEST_ENGINE === 'postgres'
      ? openPgDriver(location, { create: false, busyTimeoutMs: 5000 }).db
      : openDriver(location, { create: false });
  let lookups = 0;
  const counting: SqlDriver = Object.create(db) as SqlDriver;
  counting.prepare = (sql) => {
    const stmt = db.prepare(sql);
    if (sql !== LOOKUP) return stmt;
    return { ...stmt, get: (...params) => (lookups++, stmt.get(...params)) };
  };
  return { db: counting, lookups: () => lookups };
}

/** ~1 KB of text no other call writes. */
const text = (i: number): string =>
  `${i}: ${Array.from({ length: 150 }, (_, k) => `w${(i * 7919 + k) % 9973}`).join(' ')}`;

/** Writes each text in a transaction of its own (a recording's checkpoints); answers their hashes. */
function writeEach(db: SqlDriver, content: ContentStore, texts: string[]): string[] {
  return texts.map((t) => {
    db.begin('write');
    const hash = content.putText(t);
    db.commit();
    content.transactionEnded();
    return hash;
  });
}

const blobCount = (db: SqlDriver): number => Number(db.prepare('SELECT COUNT(*) AS n FROM blobs').get()?.n);

test('new content is written without a look-up each; content written again is looked up again, stored once', () => {
  const { db, lookups } = countingDriver();
  try {
    const content = new ContentStore(db);
    const before = blobCount(db);
    const texts = Array.from({ length: 200 }, (_, i) => text(i));
    const hashes = writeEach(db, content, texts);
    // the first few find nothing; after that a blob costs its insert alone
    assert.ok(lookups() <= 20, `a recording of 200 new blobs looked up ${lookups()} of them`);
    assert.equal(blobCount(db), before + 200);

    // the same content again (an import repeated, a fork's inherited results): look-ups come back within a few
    const seen = lookups();
    assert.deepEqual(writeEach(db, content, texts), hashes);
    assert.ok(lookups() - seen >= 180, `writing 200 stored blobs again looked up only ${lookups() - seen}`);
    assert.equal(blobCount(db), before + 200, 'nothing is stored twice');

    const reader = new ContentStore(db);
    hashes.forEach((h, i) => assert.equal(reader.getText(h), texts[i]));
  } finally {
    db.close();
  }
});

/**
 * What a reader following a live run relies on to read only what is new (schema 12): a run's `rewrites` counts the
 * times its recorded end was cut and written again (reopenRun), so what was read of it before is known stale; the
 * ranges it reads — checkpoints from an index, calls after a ledger place, live edits from one — are searches of
 * an index, not scans of the run; and a store of schema 11 opens migrated, its runs never rewritten.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openRunStore, type RunStore } from '../../../src/store';
import { MIGRATIONS } from '../../../src/store/migrations';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';
import { tmpDir, tmpStore } from '../../helpers/tmp';

function writeEnded(store: RunStore, runId: string): void {
  const writer = RunWriter.create(store, { runId, agentId: 'a', state: { runtimeContext: testContext() } });
  for (let i = 0; i < 3; i++) {
    writer.checkpoint('before_model_call');
    writer.checkpoint('after_model_call');
    const { record } = writer.beginTool({ toolName: 'lookup', args: { i }, sideEffectLevel: 'read_only' });
    writer.finishTool(record.toolCallId, 'success', { ok: i });
  }
  writer.end();
}

test("a run's end cut and written again counts as a rewrite; nothing else does", () => {
  const store = tmpStore();
  writeEnded(store, 'reopened');
  writeEnded(store, 'kept');
  assert.equal(store.getRun('reopened').rewrites, undefined, 'a run recorded once was never rewritten');
  store.reopenRun('reopened', { keepCheckpoints: 6, metadata: {} });
  assert.equal(store.getRun('reopened').rewrites, 1);
  store.finishRun('reopened', { status: 'completed', endedAt: Date.now() });
  store.reopenRun('reopened', { keepCheckpoints: 6, metadata: {} });
  assert.equal(store.getRun('reopened').rewrites, 2);
  assert.equal(store.getRun('kept').rewrites, undefined);
});

test('a SQLite store of schema 11 opens migrated; the ranges a live reader reads are index searches', () => {
  const file = join(tmpDir(), 'schema11.db');
  const store = openRunStore(file);
  writeEnded(store, 'old-run');
  store.close();
  // the store as schema 11 left it: no rewrites column, no index of calls by their ledger place
  const old = new Database(file);
  old.exec('DROP INDEX tool_calls_by_seq; ALTER TABLE runs DROP COLUMN rewrites; PRAGMA user_version = 11');
  old.close();
  const migrated = openRunStore(file);
  try {
    assert.equal(migrated.getRun('old-run').rewrites, undefined);
    assert.equal(migrated.listCheckpointMarks('old-run', 4).boundary.length, 9);
    assert.equal(migrated.listToolCallMarks('old-run', { afterSeq: 1 }).length, 1);
  } finally {
    migrated.close();
  }
  const db = new Database(file, { readonly: true });
  try {
    assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
    const checkpoints = plan(
      'SELECT created_at FROM checkpoints WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND seq >= ?',
      'old-run',
      4,
    );
    assert.match(checkpoints, /SEARCH checkpoints USING PRIMARY KEY \(run_key=\? AND seq>\?\)/);
    const calls = plan('SELECT tool_name FROM tool_calls WHERE run_id = ? AND seq > ? ORDER BY seq', 'old-run', 1);
    assert.match(calls, /SEARCH tool_calls USING INDEX tool_calls_by_seq \(run_id=\? AND seq>\?\)/);
    assert.doesNotMatch(calls, /SCAN|TEMP B-TREE/);
    const edits = plan('SELECT * FROM live_edits WHERE run_id = ? AND seq >= ? ORDER BY seq', 'old-run', 1);
    assert.match(edits, /SEARCH live_edits USING (PRIMARY KEY|INDEX \S+) \(run_id=\? AND seq>\?\)/);
  } finally {
    db.close();
  }
});

/**
 * The Timeline's marks (listCheckpointMarks, listToolCallMarks), read as one row of columns, on the engine of the
 * test run (OCDB_TEST_ENGINE): each equals what the full reads of the same rows say (listCheckpoints,
 * listToolCallFacts) — usages short and full, holds, a live edit, every state, calls in the order they were begun
 * whatever their ids — for a run with nothing in it too; the columns come in `seq` order whatever order the engine
 * fed its aggregates in; a corrupt row is a StoreCorrupt that names it, not a wrong timeline.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { isOcdbError } from '../../../src/model';
import { openRunStore, type CheckpointMarks, type RunStore, type ToolCallMarks } from '../../../src/store';
import { markColumns } from '../../../src/store/markColumns';
import type { SqlRow, SqlStatement } from '../../../src/store/sqlDriver';
import { tmpLocation } from '../../helpers/engines';
import { tmpStore } from '../../helpers/tmp';
import { BEGUN, MARKS_RUN, writeMarksRun } from './marksRun';

/** The marks as the full reads give them (summaries, facts). */
function expectedCheckpointMarks(store: RunStore, runId: string): CheckpointMarks {
  const cps = store.listCheckpoints(runId);
  return {
    createdAt: cps.map((c) => c.createdAt),
    stepIndex: cps.map((c) => c.stepIndex),
    boundary: cps.map((c) => c.boundary),
    toolCallId: cps.map((c) => c.toolCallId),
    usage: cps.map((c) => c.usage),
    heldMs: cps.map((c) => c.heldMs),
  };
}

test('the marks are what the full reads of the same rows say, calls in the order they were begun', () => {
  const store = tmpStore();
  writeMarksRun(store);
  const marks = store.listCheckpointMarks(MARKS_RUN);
  assert.deepStrictEqual(marks, expectedCheckpointMarks(store, MARKS_RUN));
  assert.ok(
    marks.usage.some((u) => u?.captured === true && u.inputTokens === 1.5),
    'a usage in full reads back',
  );
  assert.ok(marks.heldMs.includes(75), 'the hold at a stop');

  const calls = store.listToolCallMarks(MARKS_RUN);
  const facts = store.listToolCallFacts(MARKS_RUN);
  assert.deepStrictEqual(
    calls.map((c) => c.toolCallId),
    BEGUN,
    'in the order they were begun',
  );
  assert.deepStrictEqual(
    calls.map(({ state: _s, liveEdited: _e, seq: _q, ...f }) => f),
    facts,
    'the facts as listToolCallFacts reads them',
  );
  const how = (c: ToolCallMarks) => [c.toolCallId, c.state, c.liveEdited, c.heldMs];
  assert.deepStrictEqual(calls.map(how), [
    ['zz-held', 'success', false, 240],
    ['aa-failed', 'error', false, undefined],
    ['mm-edited', 'success', true, undefined],
    ['qq-cancelled', 'cancelled', false, undefined],
    ['bb-open', 'running', false, undefined],
  ]);
  assert.ok(calls.every((c, i) => c.startedAt === facts[i]?.startedAt));
  assert.deepStrictEqual(
    calls.map((c) => c.seq),
    [0, 1, 2, 3, 4],
    'each call its place in the ledger',
  );
});

test('the marks since a point: checkpoints from an index, calls begun after one and those named, edits from one', () => {
  const store = tmpStore();
  writeMarksRun(store);
  const all = store.listCheckpointMarks(MARKS_RUN);
  const tail = store.listCheckpointMarks(MARKS_RUN, 5);
  assert.deepStrictEqual(tail, {
    createdAt: all.createdAt.slice(5),
    stepIndex: all.stepIndex.slice(5),
    boundary: all.boundary.slice(5),
    toolCallId: all.toolCallId.slice(5),
    usage: all.usage.slice(5),
    heldMs: all.heldMs.slice(5),
  });
  assert.equal(store.listCheckpointMarks(MARKS_RUN, all.boundary.length).boundary.length, 0);
  const calls = store.listToolCallMarks(MARKS_RUN);
  assert.deepStrictEqual(store.listToolCallMarks(MARKS_RUN, { afterSeq: 2 }), calls.slice(3));
  // a call named (one read while it ran) comes once, in ledger order, with those begun since
  assert.deepStrictEqual(
    store.listToolCallMarks(MARKS_RUN, { afterSeq: 3, ids: ['aa-failed', 'bb-open'] }).map((c) => c.toolCallId),
    ['aa-failed', 'bb-open'],
  );
  assert.deepStrictEqual(store.listToolCallMarks(MARKS_RUN, { afterSeq: 4 }), []);
  assert.equal(store.listLiveEdits(MARKS_RUN).length, 1);
  assert.deepStrictEqual(store.listLiveEdits(MARKS_RUN, 1), []);
  assert.deepStrictEqual(store.listLiveEdits(MARKS_RUN, 0), store.listLiveEdits(MARKS_RUN));
});

test('a run with no checkpoint and no call has empty marks', () => {
  const store = tmpStore();
  store.createRun({ runId: 'empty', sessionId: 's', agentId: 'a', startedAt: 1 });
  assert.deepStrictEqual(store.listCheckpointMarks('empty'), {
    createdAt: [],
    stepIndex: [],
    boundary: [],
    toolCallId: [],
    usage: [],
    heldMs: [],
  });
  assert.deepStrictEqual(store.listToolCallMarks('empty'), []);
  assert.throws(
    () => store.listCheckpointMarks('nope'),
    (e: unknown) => isOcdbError(e) && e.code === 'RunNotFound',
  );
});

test('the columns come in seq order whatever order the engine fed its aggregates in', () => {
  const row: SqlRow = {
    n: 4,
    seq: '[2,0,3,1]',
    name: '["c","a","d","b"]',
    at: '[30,10,40,20]',
  };
  const stmt = { get: () => row } as unknown as SqlStatement;
  const texts: string[] = [];
  const cols = markColumns(
    (text) => (texts.push(text), stmt),
    ['name', 'at'] as const,
    'things WHERE k = ?',
    'k',
    'the things',
  );
  assert.deepStrictEqual(cols, { seq: [0, 1, 2, 3], name: ['a', 'b', 'c', 'd'], at: [10, 20, 30, 40] });
  assert.match(texts[0] ?? '', /json_group_array\(name\)/);
  // a column that does not have one value a row is a corrupt store, not a shifted timeline
  row.at = '[30,10,40]';
  assert.throws(
    () => markColumns(() => stmt, ['name', 'at'] as const, 'things', 'k', 'the things'),
    (e: unknown) => isOcdbError(e) && e.code === 'StoreCorrupt' && /the things: column at/.test(e.message),
  );
});

// on a SQLite file whatever the engine of the run: the rows are tampered with through SQLite
test('a corrupt row is a StoreCorrupt naming it', () => {
  const cases: [string, string, RegExp, (s: RunStore) => unknown][] = [
    [
      'UPDATE checkpoints SET boundary = 9 WHERE seq = 2',
      'boundary',
      /checkpoint 2 of run marks-run: unknown boundary 9/,
      (s) => s.listCheckpointMarks(MARKS_RUN),
    ],
    [
      `UPDATE checkpoints SET usage_json = '{"inputTokens":1}' WHERE seq = 1`,
      'usage',
      /checkpoint 1 of run marks-run: usage without its token counts/,
      (s) => s.listCheckpointMarks(MARKS_RUN),
    ],
    [
      `UPDATE tool_calls SET state = 'lost' WHERE tool_call_id = 'aa-failed'`,
      'state',
      /tool call aa-failed: unknown state lost/,
      (s) => s.listToolCallMarks(MARKS_RUN),
    ],
    [
      `UPDATE tool_calls SET side_effect_level = 'odd' WHERE tool_call_id = 'bb-open'`,
      'level',
      /tool call bb-open: unknown side-effect level odd/,
      (s) => s.listToolCallMarks(MARKS_RUN),
    ],
  ];
  for (const [sql, what, message, read] of cases) {
    const location = tmpLocation(`${what}.db`, 'sqlite');
    const store = openRunStore(location);
    writeMarksRun(store);
    store.close();
    const db = new Database(location);
    db.prepare(sql).run();
    db.close();
    const again = openRunStore(location);
    try {
      assert.throws(
        () => read(again),
        (e: unknown) => isOcdbError(e) && e.code === 'StoreCorrupt' && message.test(e.message),
        what,
      );
    } finally {
      again.close();
    }
  }
});

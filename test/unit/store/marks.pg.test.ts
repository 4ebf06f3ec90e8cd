/**
 * The Timeline's marks are the same on both engines (the PostgreSQL pass of test/run.mjs runs this file): the same
 * runs written into a SQLite file and a PostgreSQL schema give equal checkpoint and call marks — the columns read as
 * JSON aggregates on each (`json_group_array`, `json_agg`), numbers, nulls and booleans alike — and equal timelines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { timelineOf } from '../../../src/replay/timeline';
import { openRunStore, type RunStore } from '../../../src/store';
import { tmpLocation } from '../../helpers/engines';
import { MARKS_RUN, writeMarksRun } from './marksRun';

function both(): { sqlite: RunStore; pg: RunStore } {
  const sqlite = openRunStore(tmpLocation('marks.db', 'sqlite'));
  const pg = openRunStore(tmpLocation('marks', 'postgres'));
  for (const store of [sqlite, pg]) {
    writeMarksRun(store);
    writeDemoStore(store);
  }
  return { sqlite, pg };
}

test('the same runs give the same marks and timelines on SQLite and PostgreSQL', () => {
  const { sqlite, pg } = both();
  try {
    const runIds = sqlite
      .listRuns({ limit: 1000 })
      .runs.map((r) => r.runId)
      .sort();
    assert.deepEqual(
      pg
        .listRuns({ limit: 1000 })
        .runs.map((r) => r.runId)
        .sort(),
      runIds,
    );
    assert.ok(runIds.includes(MARKS_RUN) && runIds.length > 3);
    for (const runId of runIds) {
      assert.deepStrictEqual(
        pg.listCheckpointMarks(runId),
        sqlite.listCheckpointMarks(runId),
        `checkpoints of ${runId}`,
      );
      assert.deepStrictEqual(pg.listToolCallMarks(runId), sqlite.listToolCallMarks(runId), `calls of ${runId}`);
    }
    assert.ok(
      sqlite.listToolCallMarks(MARKS_RUN).some((c) => c.liveEdited),
      'a live edit to compare',
    );
    for (const runId of [MARKS_RUN, 'demo-support-refund'])
      assert.deepStrictEqual(timelineOf(pg, runId), timelineOf(sqlite, runId), `the timeline of ${runId}`);
  } finally {
    sqlite.close();
    pg.close();
  }
});

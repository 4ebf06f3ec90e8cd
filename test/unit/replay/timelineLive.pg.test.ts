/**
 * The live Timeline on PostgreSQL (the PostgreSQL pass of test/run.mjs runs this file): the same recording as on
 * SQLite — calls that end after they were sent, a live edit on an earlier checkpoint, a hold, a new fork, the run
 * ending, the run reopened — gives deltas that, applied to the first timeline, equal a fresh `timelineOf` after
 * each stretch; the range reads (`json_agg` columns from a checkpoint, calls after a ledger place and those named,
 * edits from one) read what is new only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openRunStore } from '../../../src/store';
import { tmpLocation } from '../../helpers/engines';
import { assertRefreshReadsNew, runLiveScenario } from './liveTimelineScenario';

test('deltas applied to the first timeline equal timelineOf on PostgreSQL', () => {
  const store = openRunStore(tmpLocation('live-timeline', 'postgres'));
  try {
    const { sent } = runLiveScenario(store);
    assert.ok(sent.filter((s) => s.delta).length >= 10);
  } finally {
    store.close();
  }
});

test('a refresh after N new checkpoints reads what they added on PostgreSQL', () => {
  const store = openRunStore(tmpLocation('live-timeline-long', 'postgres'));
  try {
    assertRefreshReadsNew(store);
  } finally {
    store.close();
  }
});

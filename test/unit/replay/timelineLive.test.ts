/**
 * The Timeline of a run being recorded, read again at the cost of what is new (replay/timelineLive.ts) on the
 * engine of the test run: each delta applied to what the page was sent equals a fresh `timelineOf` — calls that end
 * after they were sent, a live edit on an earlier checkpoint, a hold, a new fork, a run ending, a run reopened —
 * and a refresh after N new checkpoints of a long run reads what they added, not the run again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tmpStore } from '../../helpers/tmp';
import { LIVE_RUN, assertRefreshReadsNew, runLiveScenario } from './liveTimelineScenario';

test('deltas applied to the first timeline equal timelineOf after each stretch of a live run', () => {
  const { sent } = runLiveScenario(tmpStore());
  const by = new Map(sent.map((s) => [s.name, s.delta]));
  // what the page was sent says what happened, lane by lane
  const answered = by.get('the model call answered');
  assert.equal(answered?.runs.length, 0, 'a grown lane is not sent whole');
  assert.deepEqual(
    answered?.lanes[0]?.calls.map((c) => [c.kind, c.endCp !== undefined]),
    [['model', true]],
    'the open model call, replaced by the answered one',
  );
  const ended = by.get('the call sent running ended, held');
  const call = ended?.lanes[0]?.calls.find((c) => c.kind === 'tool');
  assert.ok(call && call.state === 'success' && call.edited === true && call.held === 700 && call.end !== undefined);
  assert.deepEqual(by.get('a live edit on a checkpoint already sent')?.lanes[0]?.liveEdits.length, 1);
  const forked = by.get('a new fork');
  assert.equal(forked?.runs.length, 1, 'the new fork comes whole');
  assert.equal(forked?.runs[0]?.kind, 'fork');
  assert.equal(forked?.order.length, 2);
  assert.equal(by.get('the run ends')?.lanes[0]?.header.status, 'completed');
  assert.equal(by.get('nothing new'), undefined, 'nothing new: nothing sent');
  const reopened = by.get('the run reopened, its end cut');
  assert.deepEqual(
    reopened?.runs.map((r) => r.runId),
    [LIVE_RUN],
    'a run whose end was rewritten is sent whole',
  );
});

test('a refresh after N new checkpoints of a long live run reads what they added, not the run', () => {
  assertRefreshReadsNew(tmpStore());
});

/**
 * A cancelled tool call is no error: a run's error count says what its transcript shows, and a store an older
 * release wrote (which counted cancellations) is corrected once when it is opened, with the change feed told.
 * Both engines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openRecorder } from '../../../src/recorder';
import { renderTranscript } from '../../../src/replay/transcript';
import { openRunStore } from '../../../src/store';
import { openDriver } from '../../../src/store/openDriver';
import { PgDriver } from '../../../src/store/pgDriver';
import type { SqlDriver } from '../../../src/store/sqlDriver';
import { testContext } from '../../helpers/context';
import { TEST_ENGINE, tmpLocation } from '../../helpers/engines';

/** A run with one call that failed, one cancelled and one that succeeded. */
async function recordMixed(location: string): Promise<void> {
  const recorder = openRecorder({ store: location, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId: 'mixed',
    agentId: 'fixups',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'go' }],
  });
  const ok = run.tool('lookup', { sideEffectLevel: 'read_only' }, () => ({ found: true }));
  const broken = run.tool('fetch', { sideEffectLevel: 'read_only' }, () => {
    throw new Error('503 from upstream');
  });
  await ok({}, { toolCallId: 'c-ok' });
  await assert.rejects(broken({}, { toolCallId: 'c-error' }), /503/);
  const id = run.beginTool('deploy', { env: 'staging' }, { sideEffectLevel: 'write', toolCallId: 'c-cancel' });
  run.finishTool(id, 'cancelled', 'the user interrupted it');
  run.end();
  recorder.close();
}

/** Raw SQL on the store at `location` (what an older release left there). */
function raw(location: string): SqlDriver {
  return TEST_ENGINE === 'postgres'
    ? new PgDriver({ url: location, location: 'the test store' })
    : openDriver(location, { create: false });
}

test('a cancelled call is not counted as an error: the run says 1 error, as its transcript shows', async () => {
  const location = tmpLocation();
  await recordMixed(location);
  const store = openRunStore(location, { create: false });
  try {
    const run = store.getRun('mixed');
    assert.equal(run.toolCallCount, 3);
    assert.equal(run.toolErrorCount, 1);
    assert.equal(store.listRuns().runs[0]?.toolErrorCount, 1);
    const transcript = renderTranscript(run, store.listCheckpoints('mixed'), (id) => store.getCheckpoint(id), {
      toolCalls: store.listToolCalls('mixed'),
    }).text;
    assert.match(transcript, /3 tool calls \(1 error\)/);
    assert.match(transcript, /deploy ⊘ cancelled: the user interrupted it/);
  } finally {
    store.close();
  }
});

test('a store whose count an older release wrote with its cancellations is corrected once, at open', async () => {
  const location = tmpLocation();
  await recordMixed(location);
  // as an older release left it: the cancellation counted, and no fix-up applied yet
  const db = raw(location);
  try {
    db.prepare("UPDATE runs SET tool_error_count = 2 WHERE run_id = 'mixed'").run();
    db.prepare("DELETE FROM meta WHERE key = 'fixup_tool_error_count'").run();
  } finally {
    db.close();
  }
  const seq = (() => {
    const old = raw(location);
    try {
      return Number(old.prepare("SELECT value FROM meta WHERE key = 'change_seq'").get()?.value);
    } finally {
      old.close();
    }
  })();

  const store = openRunStore(location, { create: false });
  try {
    assert.equal(store.getRun('mixed').toolErrorCount, 1);
    assert.ok(store.changeSeq() > seq, 'the correction is a change');
    assert.deepEqual(
      store.changesSince(seq).changedRuns.map((r) => [r.runId, r.toolErrorCount]),
      [['mixed', 1]],
    );
  } finally {
    store.close();
  }
  // applied once: a later count an older writer makes is not recounted at every open
  const again = raw(location);
  try {
    again.prepare("UPDATE runs SET tool_error_count = 2 WHERE run_id = 'mixed'").run();
  } finally {
    again.close();
  }
  const reopened = openRunStore(location, { create: false });
  try {
    assert.equal(reopened.getRun('mixed').toolErrorCount, 2);
  } finally {
    reopened.close();
  }
});

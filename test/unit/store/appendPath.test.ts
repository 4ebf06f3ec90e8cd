/**
 * What the lean append path must keep, on both engines: a used checkpoint id is
 * refused with the clear message and the refused write leaves nothing behind (SQLite lets the unique index find
 * the id after the lists were written; the transaction rolls back), and the change feed sees every write of a
 * recorded run exactly once, in order, deletions included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OcdbError, type Message } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { openRunStore, type RunStore } from '../../../src/store';
import { RunWriter } from '../../../src/writer';
import { testContext } from '../../helpers/context';
import { tmpLocation } from '../../helpers/engines';

const bigText = (seed: number) =>
  Array.from({ length: 200 }, (_, k) => `w${(seed * 7919 + k * 104729) % 99991}`).join(' ');

/** A writer of a new run of `store` per call, its ids `<run>-id-<n>`. */
function writerOf(store: RunStore): (runId: string) => RunWriter {
  let n = 0;
  return (runId) =>
    RunWriter.create(
      store,
      { runId, agentId: 'a', state: { runtimeContext: testContext(), messages: [] } },
      { newId: () => `${runId}-id-${++n}` },
    );
}

test('a checkpoint id already used is refused with the clear message; the refused write leaves no blob, node or change', () => {
  const store = openRunStore(tmpLocation());
  try {
    const writer = writerOf(store);
    const other = writer('other');
    other.checkpoint('before_model_call', { checkpointId: 'taken-elsewhere' });
    const w = writer('run');
    w.checkpoint('before_model_call', { checkpointId: 'first' });
    const message: Message = { role: 'assistant', content: [{ type: 'text', text: bigText(1) }] };
    const before = { bytes: store.contentBytes(), seq: store.changeSeq(), count: store.getRun('run').checkpointCount };
    for (const [id, owner] of [
      ['first', 'run'],
      ['taken-elsewhere', 'other'],
    ] as const) {
      assert.throws(
        () => w.checkpoint('after_model_call', { checkpointId: id, messages: [message] }),
        (e: unknown) =>
          e instanceof OcdbError &&
          e.code === 'InvalidInput' &&
          e.message === `checkpointId ${id} is already used (run ${owner}); checkpoint ids are unique in a store.` &&
          e.details.path === 'checkpointId',
      );
      // the new message's blob and list node were written before the id was refused: rolled back with it
      assert.deepEqual(store.contentBytes(), before.bytes, `nothing of the refused write to ${id} is kept`);
      assert.equal(store.changeSeq(), before.seq, 'a refused write is no change');
      assert.equal(store.getRun('run').checkpointCount, before.count);
    }
    // the writer goes on where it was: the same message under a fresh id is stored whole and reads back
    const ok = w.checkpoint('after_model_call', { checkpointId: 'second', messages: [message] });
    assert.equal(ok.index, 1);
    assert.deepEqual(store.getCheckpoint('second').messages, [message]);
    assert.equal(store.getCheckpoint('taken-elsewhere').runId, 'other');
    const next = w.checkpoint('before_model_call', { checkpointId: 'third' });
    assert.equal(next.index, 2);
    assert.deepEqual(store.getCheckpoint('third').messages, [message]);
    assert.equal(store.integrityCheck(), 'ok');
  } finally {
    store.close();
  }
});

test('a tool call id already used in the run is refused and the refused begin keeps nothing', () => {
  const store = openRunStore(tmpLocation());
  try {
    const w = RunWriter.create(store, { runId: 'run', agentId: 'a', state: { runtimeContext: testContext() } });
    const args = { q: bigText(2) };
    w.beginTool({ toolCallId: 'call-1', toolName: 'search', args, sideEffectLevel: 'read_only' });
    const before = { bytes: store.contentBytes(), seq: store.changeSeq(), run: store.getRun('run') };
    assert.throws(
      () =>
        w.beginTool({
          toolCallId: 'call-1',
          toolName: 'search',
          args: { q: bigText(3) },
          sideEffectLevel: 'read_only',
        }),
      (e: unknown) =>
        e instanceof OcdbError &&
        e.code === 'ToolCallAlreadyExists' &&
        e.message === 'Tool call call-1 already exists in run run.',
    );
    assert.deepEqual(store.contentBytes(), before.bytes);
    assert.equal(store.changeSeq(), before.seq);
    const run = store.getRun('run');
    assert.equal(run.toolCallCount, 1);
    assert.equal(run.checkpointCount, before.run.checkpointCount);
    assert.deepEqual(store.getToolCall('run', 'call-1').args, args, 'the first call is as it was');
    w.finishTool('call-1', 'success', { ok: true });
    assert.equal(store.getRun('run').checkpointCount, before.run.checkpointCount + 1);
  } finally {
    store.close();
  }
});

test('the change feed sees every write of two runs recorded through the SDK once, in order, and a deletion once', async () => {
  const location = tmpLocation();
  const reader = openRunStore(location);
  // every call its own transaction, so each is its own change (group commit's feed: test/unit/store/groupCommit.test.ts)
  const recorder = openRecorder({ store: location, heartbeatMs: 0, groupCommit: false });
  try {
    let seq = reader.changeSeq();
    /** One write happened since the last look: the counter moved by one and names exactly `runId`. */
    const expectOne = (runId: string, what: string) => {
      const changes = reader.changesSince(seq);
      assert.equal(changes.changeSeq, seq + 1, `${what}: one change`);
      assert.deepEqual(
        changes.changedRuns.map((r) => r.runId),
        [runId],
        what,
      );
      assert.equal(changes.changedRuns[0]?.changeSeq, changes.changeSeq, `${what}: the run stamped with the counter`);
      assert.deepEqual(changes.deletedRunIds, []);
      assert.deepEqual(reader.changesSince(changes.changeSeq).changedRuns, [], `${what}: not reported twice`);
      seq = changes.changeSeq;
    };
    const ctx = testContext();
    const a = recorder.startRun({ runId: 'feed-a', agentId: 'x', runtimeContext: ctx, messages: [] });
    expectOne('feed-a', 'start a');
    const b = recorder.startRun({ runId: 'feed-b', agentId: 'x', runtimeContext: ctx, messages: [] });
    expectOne('feed-b', 'start b');
    const toolA = a.tool('search', { sideEffectLevel: 'read_only' }, (q: string) => ({ hits: [bigText(q.length)] }));
    for (let step = 0; step < 3; step++) {
      for (const [run, id] of [
        [a, 'feed-a'],
        [b, 'feed-b'],
      ] as const) {
        // a model call is two writes (before and after), each seen on its own
        const stops: string[] = [];
        await run.modelCall({}, () => {
          expectOne(id, `before_model_call ${step} of ${id}`);
          stops.push('called');
          return Promise.resolve({ message: { role: 'assistant', content: bigText(step) } });
        });
        expectOne(id, `after_model_call ${step} of ${id}`);
        assert.deepEqual(stops, ['called']);
      }
      await toolA(`q${step}`);
      // begin (with its checkpoint) and finish (with its checkpoint) are two transactions: two changes
      const changes = reader.changesSince(seq);
      assert.equal(changes.changeSeq, seq + 2, `tool call ${step}: two changes`);
      assert.deepEqual(
        changes.changedRuns.map((r) => r.runId),
        ['feed-a'],
      );
      seq = changes.changeSeq;
    }
    a.end();
    expectOne('feed-a', 'end a');
    b.end();
    expectOne('feed-b', 'end b');
    assert.equal(reader.getRun('feed-a').checkpointCount, 3 * 4 + 1);
    assert.equal(reader.getRun('feed-b').checkpointCount, 3 * 2 + 1);
    // the change numbers of the runs' rows are the counter's last values for each
    const all = reader.changesSince(0);
    assert.deepEqual(
      all.changedRuns.map((r) => r.runId),
      ['feed-a', 'feed-b'],
      'ordered by their last change',
    );
    reader.deleteRun('feed-a');
    const deleted = reader.changesSince(seq);
    assert.equal(deleted.changeSeq, seq + 1);
    assert.deepEqual(deleted.deletedRunIds, ['feed-a']);
    assert.deepEqual(reader.changesSince(deleted.changeSeq).deletedRunIds, []);
  } finally {
    recorder.close();
    reader.close();
  }
});

test('one transaction reads a run counts once and keeps them true: seqs in order, an end or a deletion inside it refuses what follows', () => {
  const store = openRunStore(tmpLocation());
  try {
    const writer = writerOf(store);
    const w = writer('run');
    const gone = writer('gone');
    store.transaction(() => {
      // checkpoints and tool calls interleaved in one transaction (as an import writes them): each seq the next one
      const seqs = [w.checkpoint('before_model_call').index];
      for (let k = 0; k < 3; k++) {
        const call = `call-${k}`;
        w.beginTool({ toolCallId: call, toolName: 'search', args: { k }, sideEffectLevel: 'read_only' });
        w.finishTool(call, 'success', { hits: k });
        seqs.push(w.checkpoint('before_model_call').index);
      }
      assert.deepEqual(seqs, [0, 3, 6, 9]);
      assert.equal(store.getRun('run').toolCallCount, 3);
      assert.deepEqual(
        store.listToolCalls('run').map((c) => c.toolCallId),
        ['call-0', 'call-1', 'call-2'],
      );
      // ended inside the transaction: the counts read earlier in it do not let the next checkpoint through
      store.finishRun('run', { status: 'completed', endedAt: 1 });
      assert.throws(
        () => w.checkpoint('before_model_call'),
        (e: unknown) => e instanceof OcdbError && e.code === 'RunNotRunning',
      );
      gone.checkpoint('before_model_call');
      store.deleteRun('gone');
      assert.throws(
        () => gone.beginTool({ toolCallId: 'late', toolName: 'search', args: {}, sideEffectLevel: 'read_only' }),
        (e: unknown) => e instanceof OcdbError && e.code === 'RunNotFound',
      );
    });
    assert.equal(store.getRun('run').checkpointCount, 10);
    assert.equal(store.getRun('run').status, 'completed');
    assert.equal(store.hasRun('gone'), false);
  } finally {
    store.close();
  }
});

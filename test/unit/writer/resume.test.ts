/**
 * Continuing a run already in the store (RunWriter.resume: HTTP ingest after a restart, a fork run): the writer
 * starts from the last checkpoint's state without reading its conversation or ledger, and what it writes next is
 * what a writer that never stopped would have written — also when a call began or finished after that checkpoint
 * (without one of its own).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../../../src/model';
import { isUnread, type SqlRunStore } from '../../../src/store';
import { RunWriter } from '../../../src/writer';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const say = (i: number): Message => ({ role: 'assistant', content: `turn ${i}: ${'lorem ipsum '.repeat(60)}` });

/** The first part of a run: 40 turns, each with a finished call; then one call finished and one begun, no checkpoint. */
function firstPart(writer: RunWriter): void {
  let clock = 1_000;
  for (let i = 0; i < 40; i++) {
    writer.checkpoint('before_model_call', {
      messages: [...(writer.state?.messages ?? []), say(i)],
      createdAt: clock++,
    });
    writer.beginTool({
      toolCallId: `c${i}`,
      toolName: 'search',
      args: { i },
      sideEffectLevel: 'read_only',
      startedAt: clock++,
    });
    writer.finishTool(`c${i}`, 'success', { hits: [`result ${i}`.repeat(80)] }, { endedAt: clock++ });
  }
  writer.beginTool(
    {
      toolCallId: 'late-finished',
      toolName: 'search',
      args: { i: 'a' },
      sideEffectLevel: 'read_only',
      startedAt: clock++,
    },
    { checkpoint: false },
  );
  writer.finishTool('late-finished', 'success', { hits: ['a'] }, { endedAt: clock++, checkpoint: false });
  writer.beginTool(
    { toolCallId: 'late-open', toolName: 'search', args: { i: 'b' }, sideEffectLevel: 'read_only', startedAt: clock++ },
    { checkpoint: false },
  );
}

/** The rest: a checkpoint, the open call finished with its tool message, the end. */
function rest(writer: RunWriter): void {
  writer.checkpoint('before_model_call', { createdAt: 5_000 });
  writer.finishTool('late-open', 'success', { hits: ['b'] }, { endedAt: 5_001, checkpoint: { createdAt: 5_002 } });
  writer.end({ endedAt: 5_003 });
}

const start = (store: SqlRunStore, runId: string) =>
  RunWriter.create(
    store,
    { runId, agentId: 'a', startedAt: 1, state: { runtimeContext: testContext(), messages: [] } },
    {
      now: () => 42,
      newId: (() => {
        let n = 0;
        return (kind) => `${runId}-${kind}-${n++}`;
      })(),
    },
  );

/** A run's checkpoints as a user compares them: everything but ids. */
function comparable(store: SqlRunStore, runId: string) {
  return store.exportRun(runId).checkpoints.map((cp) => ({ ...cp, checkpointId: '', runId: '' }));
}

test('a resumed run writes what a writer that never stopped writes, calls finished after the last checkpoint included', () => {
  const store = tmpStore();
  const straight = start(store, 'straight');
  firstPart(straight);
  rest(straight);

  const first = start(store, 'resumed');
  firstPart(first);
  first.dispose();
  let n = 0;
  const resumed = RunWriter.resume(store, 'resumed', {
    now: () => 42,
    newId: (kind) => `resumed-${kind}-again-${n++}`,
  });
  // Nothing of the 80-message conversation or the 40-record ledger is read to continue it.
  const state = resumed.state?.messages ?? [];
  assert.equal(state.length, 80);
  assert.ok(
    state.every((m) => isUnread(m)),
    'the carried-over conversation is not read',
  );
  assert.equal(resumed.tool('late-finished')?.endedAt !== undefined, true, 'the call finished after the checkpoint');
  assert.equal(resumed.tool('late-open')?.endedAt, undefined, 'the call begun after the checkpoint is open');
  assert.equal(resumed.toolCallCount, 42);
  rest(resumed);
  assert.deepEqual(comparable(store, 'resumed'), comparable(store, 'straight'));
  assert.deepEqual(
    store.listToolCalls('resumed').map((r) => ({ ...r })),
    store.listToolCalls('straight').map((r) => ({ ...r })),
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

test('a message the agent mutates in place between checkpoints is recorded as it was each time', () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'streamer', runtimeContext: testContext() });
  const parts: unknown[] = [{ type: 'text', text: 'Hel' }];
  const streaming: Message = { role: 'assistant', content: parts };
  const messages: Message[] = [{ role: 'user', content: 'hi' }, streaming];
  run.checkpoint('before_model_call', { messages });
  parts.push({ type: 'text', text: 'lo' }); // a streaming agent appends to the same array
  run.checkpoint('after_model_call', { messages });
  (streaming as { content: unknown }).content = 'Hello, done';
  run.checkpoint('after_model_call', { messages });
  run.end();
  recorder.close();
  const cps = store.listCheckpoints(run.runId).map((c) => store.getCheckpoint(c.checkpointId));
  assert.deepEqual(cps[0]?.messages[1]?.content, [{ type: 'text', text: 'Hel' }]);
  assert.deepEqual(cps[1]?.messages[1]?.content, [
    { type: 'text', text: 'Hel' },
    { type: 'text', text: 'lo' },
  ]);
  assert.equal(cps[2]?.messages[1]?.content, 'Hello, done');
});

test('new list items are validated with the path of the item; unchanged ones are not re-read', () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'v', runtimeContext: testContext() });
  const messages: Message[] = [{ role: 'user', content: 'one' }];
  run.checkpoint('before_model_call', { messages });
  const bad = [...messages, { role: 'assistant', content: 'two' }, { role: 'oracle', content: 'three' }];
  assert.throws(
    () => store.appendCheckpoint({ ...store.getCheckpointAt(run.runId, 0), checkpointId: 'x', messages: bad as never }),
    /checkpoint: messages\[2\]\.role/,
  );
  const ledger = [
    {
      toolCallId: 't',
      toolName: 'x',
      args: {},
      argsHash: 'nothex',
      sideEffectLevel: 'none',
      replayPolicy: 'reuse_result',
      startedAt: 1,
    },
  ];
  assert.throws(
    () =>
      store.appendCheckpoint({
        ...store.getCheckpointAt(run.runId, 0),
        checkpointId: 'y',
        toolLedgerSnapshot: ledger as never,
      }),
    /checkpoint: toolLedgerSnapshot\[0\]\.argsHash/,
  );
  assert.equal(store.getRun(run.runId).checkpointCount, 1, 'nothing of the bad checkpoints was written');
  // the recorder's ledger records are frozen facts
  const id = run.beginTool('search', { q: 1 }, { sideEffectLevel: 'read_only' });
  run.finishTool(id, 'success', { hits: 2 });
  assert.ok(Object.isFrozen(run.toolLedger[0]) && Object.isFrozen(run.toolLedger[0]?.result));
  run.end();
  recorder.close();
  const last = store.getCheckpointAt(run.runId, store.getRun(run.runId).checkpointCount - 1);
  assert.deepEqual(last.toolLedgerSnapshot[0]?.result, { hits: 2 });
});

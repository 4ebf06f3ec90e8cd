/**
 * The writer's conversation grows in place at each model answer and tool result (a copy of the whole
 * conversation at every append made a step cost O(conversation)). What a user sees must not change: each
 * checkpoint stores the conversation as it was then, `run.messages` read earlier stays as it was, the messages a
 * model call is given are the conversation before its answer, and a write that fails takes its message off again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, type Message } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const texts = (messages: readonly Message[]) => messages.map((m) => `${m.role}:${canonicalJson(m.content)}`);

test('each checkpoint keeps the conversation of its time while the conversation grows in place', async () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId: 'grow-run',
    agentId: 'agent',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'go' }],
  });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { step: number }) => ({
    hits: [`hit ${args.step}`],
  }));
  const seenByModel: string[][] = [];
  const earlier: (readonly Message[])[] = [];
  for (let step = 0; step < 30; step++) {
    await run.modelCall({}, (messages) => {
      seenByModel.push(texts(messages));
      return Promise.resolve({
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: `step ${step}` },
            { type: 'tool_call', toolCallId: `c${step}`, toolName: 'search', args: { step } },
          ],
        },
      });
    });
    await search({ step }, { toolCallId: `c${step}` });
    earlier.push(run.messages);
  }
  // what a caller read earlier is as it was: 1 + 2 messages a step
  earlier.forEach((messages, step) => assert.equal(messages.length, 3 + 2 * step, `run.messages after step ${step}`));
  assert.ok(Object.isFrozen(earlier[0]));
  // a model call is given the conversation before its answer
  seenByModel.forEach((seen, step) => assert.equal(seen.length, 1 + 2 * step, `the prompt of step ${step}`));
  // every checkpoint stored the conversation of its time, and the last one the whole of it
  store.listCheckpoints('grow-run').forEach((summary, index) => {
    const cp = store.getCheckpoint(summary.checkpointId);
    assert.equal(cp.messages.length, summary.messageCount, `checkpoint ${index}`);
  });
  const summaries = store.listCheckpoints('grow-run');
  const last = store.getCheckpoint(summaries.at(-1)?.checkpointId ?? '');
  assert.deepEqual(texts(last.messages), texts(run.messages));
  const afterStep = (step: number) =>
    summaries.filter((s) => s.boundary === 'after_tool_call')[step]?.checkpointId ?? '';
  assert.deepEqual(texts(store.getCheckpoint(afterStep(4)).messages), texts(earlier[4] ?? []));
  run.end();
  recorder.close();
  store.close();
});

test('a tool result whose write fails is not left in the conversation', async () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId: 'fail-run',
    agentId: 'agent',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'go' }],
  });
  const writer = (run as unknown as { writer: import('../../../src/writer/runWriter').RunWriter }).writer;
  writer.beginTool({ toolCallId: 't1', toolName: 'search', args: {}, sideEffectLevel: 'read_only' });
  const before = texts(run.messages);
  // the after_tool_call checkpoint is refused (its id is taken), so the call's whole write is rolled back
  const taken = store.listCheckpoints('fail-run').at(-1)?.checkpointId ?? '';
  assert.throws(() => writer.finishTool('t1', 'success', 'result', { checkpoint: { checkpointId: taken } }));
  assert.deepEqual(texts(run.messages), before, 'the tool message is gone with the failed write');
  // and the next write appends to the conversation as it was
  writer.finishTool('t1', 'success', 'result again');
  const last = store.getCheckpoint(store.listCheckpoints('fail-run').at(-1)?.checkpointId ?? '');
  assert.deepEqual(texts(last.messages), [...before, 'tool:"result again"']);
  assert.deepEqual(texts(run.messages), texts(last.messages));
  recorder.close();
  store.close();
});

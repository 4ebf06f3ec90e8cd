/**
 * The SDK's group commit (RecorderOptions.groupCommit), as another process sees a run: the
 * checkpoint before a tool is in the store before the tool runs (a tool may block the event loop), the one before a
 * model call once the turn ends while the model is awaited (a debugger, the runs tree, a fork see what the agent is
 * waiting on); an answer's checkpoint at the end of its turn; the run's end when end() returns; `groupCommit: false`
 * commits every call as it returns.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpLocation } from '../../helpers/engines';

/** The boundaries of `runId` another connection sees, and its status. */
function elsewhere(file: string, runId: string): { boundaries: string[]; status?: string } {
  const other = openRunStore(file, { create: false });
  try {
    if (!other.hasRun(runId)) return { boundaries: [] };
    return {
      boundaries: other.listCheckpoints(runId).map((c) => c.boundary),
      status: other.getRun(runId).status,
    };
  } finally {
    other.close();
  }
}

test('the checkpoint before a tool is in the store before the tool runs; the one before a model call while it awaits', async () => {
  const file = tmpLocation('sdk-group.db', 'sqlite');
  // the store the SDK opens, with its group's age limit (20 ms) out of reach: a slow turn (a loaded machine, the
  // first call compiling) would otherwise commit early, and what is seen would depend on the machine's speed
  const store = openRunStore(file, { groupCommit: { maxMs: 60_000 } });
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, liveDebugging: false });
  const run = recorder.startRun({ runId: 'g', agentId: 'a', runtimeContext: testContext(), messages: [] });
  const seenInModel: string[][] = [];
  const seenInTool: string[][] = [];
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (_args: { q: string }) => {
    seenInTool.push(elsewhere(file, 'g').boundaries);
    return { hits: 1 };
  });
  await run.modelCall({}, async () => {
    seenInModel.push(elsewhere(file, 'g').boundaries);
    await turn(); // a model call awaits I/O: the turn ends while the request is out
    seenInModel.push(elsewhere(file, 'g').boundaries);
    return { message: { role: 'assistant', content: 'searching' } };
  });
  await search({ q: 'x' });
  assert.deepEqual(
    seenInModel,
    [[], ['before_model_call']],
    'the checkpoint before the model call is in the store once the turn ends, while the model answers',
  );
  assert.deepEqual(
    seenInTool,
    [['before_model_call', 'after_model_call', 'before_tool_call']],
    'the tool ran with its checkpoint, and the model answer before it, in the store',
  );
  await turn();
  assert.deepEqual(elsewhere(file, 'g').boundaries.at(-1), 'after_tool_call', 'the tool result once the turn ended');

  run.checkpoint('before_model_call');
  run.end();
  assert.deepEqual(
    elsewhere(file, 'g'),
    {
      boundaries: [
        'before_model_call',
        'after_model_call',
        'before_tool_call',
        'after_tool_call',
        'before_model_call',
        'agent_end',
      ],
      status: 'completed',
    },
    'the end is in the store when end() returns',
  );
  recorder.close();
  store.close();
});

test('groupCommit: false commits every call as it returns; the default commits the turn together', async () => {
  for (const groupCommit of [false, true]) {
    const file = tmpLocation(`sdk-${groupCommit}.db`, 'sqlite');
    // grouped: the recorder's limits but the time (a first write compiles its statements, slowly on a busy machine)
    const store = groupCommit ? openRunStore(file, { groupCommit: { maxMs: 60_000 } }) : undefined;
    const recorder = openRecorder({
      ...(store ? { runStore: store } : { store: file, groupCommit }),
      heartbeatMs: 0,
      liveDebugging: false,
    });
    const run = recorder.startRun({ runId: 'r', agentId: 'a', runtimeContext: testContext(), messages: [] });
    await run.modelCall({}, () => Promise.resolve({ message: { role: 'assistant', content: 'hi' } }));
    const atReturn = elsewhere(file, 'r').boundaries;
    await turn();
    const atTurnEnd = elsewhere(file, 'r').boundaries;
    if (groupCommit) {
      assert.deepEqual(atReturn, [], 'grouped: the model answered within the turn, which has not ended');
    } else {
      assert.deepEqual(atReturn, ['before_model_call', 'after_model_call'], 'ungrouped: in the store at return');
    }
    assert.deepEqual(atTurnEnd, ['before_model_call', 'after_model_call']);
    recorder.close();
    store?.close();
  }
});

test('close() commits what the last turn wrote, also into a store passed in that stays open', () => {
  const file = tmpLocation('sdk-close.db', 'sqlite');
  const store = openRunStore(file, { groupCommit: { maxMs: 60_000 } });
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, liveDebugging: false });
  const run = recorder.startRun({ runId: 'c', agentId: 'a', runtimeContext: testContext(), messages: [] });
  run.checkpoint('after_model_call');
  assert.deepEqual(elsewhere(file, 'c').boundaries, []);
  recorder.close();
  assert.deepEqual(elsewhere(file, 'c').boundaries, ['after_model_call']);
  store.close();
});

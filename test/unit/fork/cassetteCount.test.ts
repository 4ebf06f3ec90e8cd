/**
 * The tool cassette of a captured replay answers the n-th call with a key (tool name and arguments) with the n-th
 * recorded result, counting the calls that had finished at the fork point: a run that asks for the weather in Oslo
 * three times (rain, then snow, then sun), forked before, between and during those calls, gets in its fork the
 * answers the recording got from that point on.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { openRecorder } from '../../../src/recorder';
import { openRunStore, type RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpLocation } from '../../helpers/engines';

const RUN = 'weather-thrice';
const SKIES = ['rain', 'snow', 'sun'];
let location: string;
let store: RunStore;

before(async () => {
  location = tmpLocation();
  const recorder = openRecorder({ store: location, heartbeatMs: 0 });
  const run = recorder.startRun({ runId: RUN, agentId: 'forecaster', runtimeContext: testContext() });
  let asked = 0;
  const weather = run.tool('weather', { sideEffectLevel: 'read_only' }, (args: { city: string }) => ({
    city: args.city,
    sky: SKIES[asked++],
  }));
  for (let step = 0; step < 3; step++) {
    const toolCallId = `weather-${step}`;
    await run.modelCall({}, () =>
      Promise.resolve({
        message: {
          role: 'assistant',
          content: [{ type: 'tool_call', toolCallId, toolName: 'weather', args: { city: 'Oslo' } }],
        },
        finishReason: 'tool_calls',
      }),
    );
    await weather({ city: 'Oslo' }, { toolCallId });
  }
  await run.modelCall({}, () =>
    Promise.resolve({ message: { role: 'assistant', content: 'Rain, snow, then sun.' }, finishReason: 'stop' }),
  );
  run.end();
  recorder.close();
  store = openRunStore(location, { create: false });
});
after(() => store.close());

/** The skies the fork's own weather calls were answered with, replaying `RUN` from its checkpoint `index`. */
async function skiesOfFork(index: number): Promise<string[]> {
  const from = store.listCheckpoints(RUN, { offset: index, limit: 1 })[0]?.checkpointId as string;
  const created = new ForkService(store).createReplay(RUN, { fromCheckpointId: from, captured: true });
  const outcome = await runFork(store, created.forkRequestId);
  assert.equal(outcome.status, 'completed', `the fork of checkpoint ${index} ran to its end`);
  return store.listToolCalls(created.runId).map((c) => (c.result as { sky: string }).sky);
}

/** The index of the checkpoint of `RUN` at `boundary` of weather call `step`. */
function checkpointOf(boundary: 'before_tool_call' | 'after_tool_call', step: number): number {
  const index = store
    .listCheckpoints(RUN)
    .findIndex((c) => c.boundary === boundary && c.toolCallId === `weather-${step}`);
  assert.ok(index >= 0, `${boundary} of weather-${step}`);
  return index;
}

test('a fork of the first checkpoint is answered rain, snow, sun, as the recording was', async () => {
  assert.deepEqual(await skiesOfFork(0), SKIES);
});

test('a fork after the first call finished is answered snow, then sun', async () => {
  assert.deepEqual(await skiesOfFork(checkpointOf('after_tool_call', 0) + 1), ['snow', 'sun']);
});

test('a fork after two calls finished is answered sun', async () => {
  assert.deepEqual(await skiesOfFork(checkpointOf('after_tool_call', 1)), ['sun']);
});

test('a fork at the second call, begun but not finished there, answers it snow, then sun', async () => {
  assert.deepEqual(await skiesOfFork(checkpointOf('before_tool_call', 1)), ['snow', 'sun']);
});

test('a fork of a fork is answered as the fork was: sun after its own snow, snow and sun from its start', async () => {
  // the first fork inherits the recording's rain and is answered snow, then sun
  const from = store.listCheckpoints(RUN, { offset: checkpointOf('after_tool_call', 0) + 1, limit: 1 })[0];
  const first = new ForkService(store).createReplay(RUN, {
    fromCheckpointId: from?.checkpointId as string,
    captured: true,
  });
  assert.equal((await runFork(store, first.forkRequestId)).status, 'completed');
  assert.deepEqual(
    store.listToolCalls(first.runId).map((c) => (c.result as { sky: string }).sky),
    ['snow', 'sun'],
  );
  // forked again after its snow: its rain (inherited) and its snow are used, sun is next
  const cps = store.listCheckpoints(first.runId);
  const at = cps.findIndex((c) => c.boundary === 'after_tool_call');
  const second = new ForkService(store).createReplay(first.runId, {
    fromCheckpointId: cps[at + 1]?.checkpointId as string,
    captured: true,
  });
  const o2 = await runFork(store, second.forkRequestId);
  assert.equal(o2.status, 'completed');
  assert.deepEqual(
    store.listToolCalls(second.runId).map((c) => (c.result as { sky: string }).sky),
    ['sun'],
  );
  // forked again at its start: only the inherited rain was used, snow and sun are next
  const third = new ForkService(store).createReplay(first.runId, {
    fromCheckpointId: cps[0]?.checkpointId as string,
    captured: true,
  });
  assert.equal((await runFork(store, third.forkRequestId)).status, 'completed');
  assert.deepEqual(
    store.listToolCalls(third.runId).map((c) => (c.result as { sky: string }).sky),
    ['snow', 'sun'],
  );
});

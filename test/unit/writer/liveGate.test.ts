/**
 * LiveGate and the edits the SDK applies, in one process: the gate waits while stopped and lets go when
 * resumed or when the lease runs out; bounded waits read open; a mocked outcome skips the tool; edited messages
 * reach the model; edits that do not apply at a boundary are neither applied nor recorded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openRecorder } from '../../../src/recorder';
import { LiveGate, RunWriter } from '../../../src/writer';
import { TestDebugger } from '../../fixtures/liveDebugger';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function started(store: ReturnType<typeof tmpStore>) {
  const writer = RunWriter.create(store, { runId: 'r1', agentId: 'bot', state: { runtimeContext: testContext() } });
  const cp = writer.checkpoint('before_prompt_build');
  return { writer, point: { runId: 'r1', agentId: 'bot', checkpointId: cp.checkpointId, boundary: cp.boundary } };
}

test('no debugger: the gate asks nothing and the agent goes on at once', async () => {
  const store = tmpStore();
  const { point } = started(store);
  const gate = new LiveGate(store);
  assert.equal(gate.ask(point), undefined);
  assert.equal(await gate.check(point), undefined);
  assert.equal(gate.checkSync(point), undefined);
});

test('the gate waits while stopped and returns the edits it was resumed with', async () => {
  const store = tmpStore();
  const { point } = started(store);
  const dbg = new TestDebugger(store, 'a1', { runId: 'r1' });
  try {
    const gate = new LiveGate(store);
    let settled = false;
    const waiting = gate.check(point).then((r) => {
      settled = true;
      return r;
    });
    const stop = await dbg.nextStop();
    assert.equal(stop.checkpointId, point.checkpointId);
    dbg.hold(stop, 'breakpoint');
    await tick(100);
    assert.equal(settled, false, 'still stopped');
    dbg.resume(stop, { runtimeContext: testContext({ project: { projectId: 'other' } }), editedBy: 'me' });
    const answer = await waiting;
    assert.equal(answer?.stopId, stop.stopId);
    assert.equal(answer?.edits?.runtimeContext?.project.projectId, 'other');
  } finally {
    dbg.kill();
  }
});

test('a lease that runs out lets the waiting agent go on, and a bounded wait reads open', async () => {
  const store = tmpStore();
  const { point } = started(store);
  const dbg = new TestDebugger(store, 'a1', { runId: 'r1' }, 400, 100);
  const gate = new LiveGate(store);
  const stopId = gate.ask(point);
  assert.ok(stopId);
  const stop = await dbg.nextStop();
  dbg.hold(stop, 'step');
  const open = gate.waitSync(stopId, 50);
  assert.deepEqual(open, { settled: false, stopId, state: 'stopped', reason: 'step' });
  dbg.kill();
  const t0 = Date.now();
  const done = await gate.wait(stopId);
  assert.equal(done.state, 'expired');
  assert.ok(Date.now() - t0 < 1500, 'within the lease');
  assert.equal(store.getLiveStop(stopId).state, 'expired', 'marked expired in the store');
});

test('a store that fails while the agent waits lets it go on', async () => {
  const store = tmpStore();
  const { point } = started(store);
  const dbg = new TestDebugger(store, 'a1', { runId: 'r1' });
  const errors: string[] = [];
  const gate = new LiveGate(store, { onError: (m) => errors.push(m) });
  const stopId = gate.ask(point);
  dbg.kill();
  store.close();
  assert.equal(gate.waitSync(stopId!).state, 'expired');
  assert.match(errors[0] ?? '', /closed/);
  assert.equal(gate.ask(point), undefined, 'asking a closed store: no stop');
});

test('SDK in one process: a mocked outcome skips the tool; edited messages reach the model; edits that do not apply are dropped', async () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const dbg = new TestDebugger(store, 'a1', { agentId: 'support-bot' });
  try {
    const run = recorder.startRun({
      agentId: 'support-bot',
      runtimeContext: testContext(),
      messages: [{ role: 'user', content: 'Where is A-1?' }],
    });
    const ran: unknown[] = [];
    const lookup = run.tool('lookup_order', { sideEffectLevel: 'read_only' }, async (args: { orderId: string }) => {
      ran.push(args);
      return { status: 'shipped' };
    });
    const failing = run.tool('cancel_order', { sideEffectLevel: 'write' }, async () => ({ cancelled: true }));
    const debuggerSide = (async () => {
      for (;;) {
        const stop = await dbg.nextStop();
        const cp = store.getCheckpoint(stop.checkpointId);
        if (stop.boundary === 'before_model_call') {
          dbg.resume(stop, { messages: [{ role: 'user', content: 'Where is B-2?' }], editedBy: 'me' });
        } else if (stop.boundary === 'before_tool_call') {
          const tool = cp.toolLedgerSnapshot.find((r) => r.toolCallId === stop.toolCallId)?.toolName;
          dbg.resume(
            stop,
            tool === 'lookup_order'
              ? { toolOutcome: { outcome: 'success', value: { status: 'lost' } }, editedBy: 'me' }
              : { toolOutcome: { outcome: 'error', value: { message: 'not allowed' } }, editedBy: 'me' },
          );
        } else if (stop.boundary === 'after_model_call') {
          // a tool edit where no tool is pending: not applied, not recorded
          dbg.resume(stop, { toolArgs: { orderId: 'X' }, systemPrompt: 'ignored', editedBy: 'me' });
        } else dbg.resume(stop);
        if (stop.boundary === 'after_tool_call' && stop.toolCallId === 'c2') return;
      }
    })();
    let sent: unknown;
    await run.modelCall({}, async (messages) => {
      sent = messages.at(-1)?.content;
      return { message: { role: 'assistant', content: 'looking' } };
    });
    assert.equal(sent, 'Where is B-2?', 'the model got the edited conversation');
    assert.deepEqual(await lookup({ orderId: 'A-1' }, { toolCallId: 'c1' }), { status: 'lost' });
    assert.deepEqual(ran, [], 'a mocked outcome: the tool did not run');
    await assert.rejects(failing({}, { toolCallId: 'c2' }), (e: Error) => e.name === 'LiveDebuggerMock');
    await debuggerSide;
    dbg.detach();
    run.end();
    const c1 = store.getToolCall(run.runId, 'c1');
    assert.deepEqual(c1.result, { status: 'lost' });
    assert.equal(c1.liveEdit?.mocked, true);
    assert.equal(c1.liveEdit?.originalArgsHash, undefined, 'args unchanged');
    assert.deepEqual(store.getToolCall(run.runId, 'c2').error, { message: 'not allowed' });
    const edits = store.listLiveEdits(run.runId);
    assert.deepEqual(
      edits.map((e) => e.boundary),
      ['before_model_call', 'before_tool_call', 'before_tool_call'],
      'the after_model_call edit applied nowhere, so it is not recorded',
    );
    const after = store.listCheckpoints(run.runId).find((c) => c.boundary === 'after_model_call')!;
    assert.deepEqual(
      store.getCheckpoint(after.checkpointId).messages.map((m) => m.content),
      ['Where is B-2?', 'looking'],
      'the recording carries the conversation as sent',
    );
  } finally {
    dbg.kill();
    recorder.close();
  }
});

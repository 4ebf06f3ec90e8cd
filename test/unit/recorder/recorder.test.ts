import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OcdbError } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

test('the SDK fills runId, stepIndex, ledger snapshots and createdAt', async () => {
  const store = tmpStore();
  let t = 1000;
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, now: () => (t += 10) });
  const run = recorder.startRun({
    agentId: 'a',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'hi' }],
  });
  run.checkpoint('before_prompt_build');
  await run.modelCall({}, async () => ({
    message: {
      role: 'assistant',
      content: [{ type: 'tool_call', toolCallId: 't1', toolName: 'search', args: { q: 'x' } }],
    },
    finishReason: 'tool_calls',
    usage: { inputTokens: 10, outputTokens: 5 },
  }));
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, async (args: { q: string }) => ({
    hits: [args.q],
  }));
  assert.deepEqual(await search({ q: 'x' }, { toolCallId: 't1' }), { hits: ['x'] });
  // a model call right after a tool result starts the next ReAct step
  await run.modelCall({}, async () => ({ message: { role: 'assistant', content: 'done' }, finishReason: 'stop' }));
  run.end();
  recorder.close();

  const cps = store.listCheckpoints(run.runId);
  assert.deepEqual(
    cps.map((c) => `${c.stepIndex}:${c.boundary}`),
    [
      '0:before_prompt_build',
      '0:before_model_call',
      '0:after_model_call',
      '0:before_tool_call',
      '0:after_tool_call',
      '1:before_model_call',
      '1:after_model_call',
      '-1:agent_end',
    ],
  );
  const afterTool = store.getCheckpoint(cps[4]!.checkpointId);
  assert.equal(afterTool.toolCallId, 't1');
  assert.equal(afterTool.toolLedgerSnapshot.length, 1);
  assert.deepEqual(afterTool.toolLedgerSnapshot[0]?.result, { hits: ['x'] });
  assert.equal(afterTool.toolLedgerSnapshot[0]?.replayPolicy, 'reuse_result', 'read_only defaults to reuse_result');
  assert.deepEqual(afterTool.messages.at(-1), {
    role: 'tool',
    toolCallId: 't1',
    toolName: 'search',
    content: { hits: ['x'] },
  });
  const beforeTool = store.getCheckpoint(cps[3]!.checkpointId);
  assert.equal(beforeTool.toolLedgerSnapshot[0]?.result, undefined, 'snapshot taken before the result');
  const amc = store.getCheckpoint(cps[2]!.checkpointId);
  assert.deepEqual(amc.usage, { inputTokens: 10, outputTokens: 5 });
  assert.ok(cps.every((c, i) => i === 0 || c.createdAt > cps[i - 1]!.createdAt));
  const summary = store.getRun(run.runId);
  assert.equal(summary.status, 'completed');
  assert.equal(summary.inputTokens, 10);
});

test('tool calls are a journal: finish exactly once; thrown errors are recorded and rethrown', async () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
  const id = run.beginTool('save_report', { id: 1 }, { sideEffectLevel: 'write' });
  run.finishTool(id, 'success', { saved: true });
  assert.throws(
    () => run.finishTool(id, 'success', {}),
    (e: unknown) => e instanceof OcdbError && e.code === 'ToolCallAlreadyFinished',
  );
  const refund = run.tool('issue_refund', { sideEffectLevel: 'external_irreversible' }, async () => {
    throw Object.assign(new Error('card declined'), { code: 'DECLINED' });
  });
  await assert.rejects(refund({ amount: 5 }), /card declined/);
  const cancelId = run.beginTool('slow', {}, { sideEffectLevel: 'none' });
  run.finishTool(cancelId, 'cancelled');
  run.end({ status: 'cancelled' });
  assert.throws(
    () => run.checkpoint('before_model_call'),
    (e: unknown) => e instanceof OcdbError && e.code === 'RunNotRunning',
  );
  const ledger = store.listToolCalls(run.runId);
  assert.equal(ledger[0]?.replayPolicy, 'manual_confirm');
  assert.deepEqual(ledger[1]?.error, { name: 'Error', message: 'card declined', code: 'DECLINED' });
  assert.equal(ledger[1]?.replayPolicy, 'forbid_replay');
  assert.deepEqual(ledger[2]?.error, { name: 'Cancelled', message: 'cancelled' });
  assert.equal(store.getRun(run.runId).status, 'cancelled');
  // the declined card is an error; the cancelled call is not
  assert.equal(store.getRun(run.runId).toolErrorCount, 1);
  recorder.close();
});

test('bad arguments get located errors and record nothing', () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  assert.throws(
    () => recorder.startRun({ agentId: '', runtimeContext: testContext() }),
    (e: unknown) => e instanceof OcdbError && /startRun: agentId/.test(e.message),
  );
  const ctx = testContext() as unknown as Record<string, unknown>;
  delete ctx.user;
  assert.throws(() => recorder.startRun({ agentId: 'a', runtimeContext: ctx as never }), /runtimeContext\.user/);
  assert.equal(store.listRuns().total, 0);
  const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
  assert.throws(
    () => run.checkpoint('before_model_call', { messages: [{ role: 'wizard', content: 'x' } as never] }),
    /messages\[0\]\.role/,
  );
  assert.throws(() => run.beginTool('t', {}, { sideEffectLevel: 'sometimes' as never }), /sideEffectLevel/);
  assert.equal(store.getRun(run.runId).checkpointCount, 0);
  recorder.close();
});

test('when the store fails under a running agent the agent gets an error at once, every time', () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
  run.checkpoint('before_model_call');
  store.close();
  assert.throws(
    () => run.checkpoint('after_model_call'),
    (e: unknown) => e instanceof OcdbError && e.code === 'StoreUnavailable',
  );
  assert.throws(
    () => run.beginTool('x', {}, { sideEffectLevel: 'none' }),
    (e: unknown) => e instanceof OcdbError && e.code === 'StoreUnavailable',
  );
});

test("with onStoreError 'disable' the agent goes on unrecorded and hears of it once", () => {
  const store = tmpStore();
  const errors: OcdbError[] = [];
  const recorder = openRecorder({
    runStore: store,
    heartbeatMs: 0,
    onStoreError: 'disable',
    onError: (e) => errors.push(e),
  });
  const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
  store.close();
  run.checkpoint('before_model_call');
  run.checkpoint('after_model_call');
  run.end();
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.code, 'StoreUnavailable');
});

test('what the SDK is given is checked as it comes in: a bad id or value is refused there, and the run reads back whole', async () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({
    agentId: 'a',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'hi' }],
  });
  run.checkpoint('before_prompt_build');
  const refused = (where: RegExp) => (e: unknown) =>
    e instanceof OcdbError && e.code === 'InvalidInput' && where.test(e.message);
  // the store takes the SDK's checkpoints as validated: the recorder's schemas check what the store's would
  assert.throws(
    () => run.checkpoint('before_tool_call', { toolCallId: 'a\nb' }),
    refused(/^checkpoint\(before_tool_call\): toolCallId/),
  );
  assert.throws(
    () => run.checkpoint('before_model_call', { checkpointId: 'cp\u0007' }),
    refused(/^checkpoint\(before_model_call\): checkpointId/),
  );
  await assert.rejects(
    run.modelCall({}, async () => ({ message: { role: 'robot', content: 'x' } as never })),
    refused(/^model response: message\.role/),
  );
  await assert.rejects(
    run.modelCall({ messages: [{ role: 'user' } as never] }, async () => ({
      message: { role: 'assistant', content: 'x' },
    })),
    refused(/^checkpoint\(before_model_call\): messages\[0\]/),
  );
  // a tool's result enters as JSON, the same value in its ledger record and its message
  const at = new Date(Date.UTC(2026, 0, 2));
  const tool = run.tool('clock', { sideEffectLevel: 'read_only' }, () => ({ at, skip: undefined, n: Number.NaN }));
  await tool({}, { toolCallId: 't1' });
  run.end();
  recorder.close();
  const cps = store.listCheckpoints(run.runId);
  assert.deepEqual(
    cps.map((c) => c.boundary),
    [
      'before_prompt_build',
      // the refused model response: its call recorded as failed (finishReason error)
      'before_model_call',
      'after_model_call',
      'before_tool_call',
      'after_tool_call',
      'agent_end',
    ],
  );
  const last = store.getCheckpoint(cps.at(-1)!.checkpointId);
  const stored = { at: '2026-01-02T00:00:00.000Z', n: null };
  assert.deepEqual(last.toolLedgerSnapshot.at(-1)?.result, stored);
  assert.deepEqual(last.messages.at(-1)?.content, stored);
  // every checkpoint as stored passes the schemas a DebugRun is loaded with (what the store no longer checked again)
  const copy = tmpStore();
  copy.loadRun(store.exportRun(run.runId));
  assert.equal(copy.listCheckpoints(run.runId).length, cps.length);
});

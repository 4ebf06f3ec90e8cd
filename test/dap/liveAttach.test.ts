/**
 * Live debugging through `ocdb dap`: Microsoft's DebugClient attaches to a real agent process (the
 * README's recording example run longer, test/dap/support/orderAgent.cjs, on the shipped SDK bundle) by agent id or
 * by run id. The agent stops before lookup_order runs; the pending orderId is edited in the Pending scope; the tool
 * runs with the edit; the ledger and the run's recorded edit agree. Step Back walks the recorded past while attached
 * and Next returns to the live stop; disconnect and kill -9 of the adapter let the agent finish; two agents are two
 * threads; Pause stops at the next boundary, where the messages are edited before the model call.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { argsHash } from '../../src/model';
import { openRunStore } from '../../src/store';
import { demoStore as makeDemoStore } from './support/dapClient';
import {
  attach,
  eventFrom,
  go,
  liveProcesses,
  mark,
  scopeNames,
  scopeVars,
  stoppedFrom,
  top,
} from './support/liveAgent';

const LOOKUP = () => ({ breakpoints: [{ name: 'lookup_order' }] });
const toolLine = (l: Record<string, unknown>) => l.tool === 'lookup_order';
/** The thread of a stopped or thread event (always set by this adapter). */
const threadOf = (e: DebugProtocol.StoppedEvent | DebugProtocol.ThreadEvent): number => {
  assert.equal(typeof e.body.threadId, 'number', 'the event names its thread');
  return e.body.threadId as number;
};
const goFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-go-')), 'go');

describe('attach to a running agent', () => {
  let shared: string | undefined;
  /** One demo store for the file (each test attaches to its own agent id). */
  const demoStore = () => (shared ??= makeDemoStore());
  const live = liveProcesses();

  it('by agent id: stops before lookup_order, the edited orderId is what the tool runs with and what the run records', async () => {
    const store = demoStore();
    const client = await live.client();
    await attach(client, { agentId: 'order-bot', store }, () => client.setFunctionBreakpointsRequest(LOOKUP()));
    const from = mark(client);
    const agent = live.agent(store, { agentId: 'order-bot' });
    const stop = await stoppedFrom(client, from);
    assert.equal(stop.body.reason, 'function breakpoint');
    const threadId = threadOf(stop);
    const started = await eventFrom<DebugProtocol.ThreadEvent>(client, from, (e) => e.event === 'thread');
    assert.deepEqual(started.event.body, { reason: 'started', threadId });
    const runId = await agent.runId();
    const threads = (await client.threadsRequest()).body.threads;
    assert.deepEqual(threads, [{ id: threadId, name: `run ${runId} (order-bot)` }]);

    assert.equal((await top(client, threadId)).name, 'step 0 · before_tool_call · lookup_order');
    assert.equal(agent.lines.some(toolLine), false, 'the tool has not run: the agent waits before it');
    assert.equal((await scopeNames(client, threadId))[0], 'Pending');
    const pending = await scopeVars(client, threadId, 'Pending');
    assert.deepEqual(
      pending.vars.map((v) => [v.name, v.value]),
      [
        ['tool', '"lookup_order"'],
        ['toolCallId', '"c1"'],
        ['args', '{orderId}'],
        ['outcome', '"(the tool runs; set a value to skip it and return that)"'],
        ['runtimeContext', '{user, conversation, project, task, tools, …}'],
      ],
    );
    const argsRef = pending.vars.find((v) => v.name === 'args')?.variablesReference ?? 0;
    const args = (await client.variablesRequest({ variablesReference: argsRef })).body.variables;
    assert.deepEqual(
      args.map((v) => [v.name, v.value]),
      [['orderId', '"A-1"']],
    );
    const set = await client.setVariableRequest({ variablesReference: argsRef, name: 'orderId', value: '"B-2"' });
    assert.equal(set.body.value, '"B-2"');

    // time travel while attached: back through what the run recorded, read-only; forward returns to the live stop
    let at = mark(client);
    await client.stepBackRequest({ threadId });
    assert.equal((await stoppedFrom(client, at, threadId)).body.reason, 'step');
    assert.equal((await top(client, threadId)).name, 'step 0 · after_model_call');
    assert.equal((await scopeNames(client, threadId)).includes('Pending'), false, 'the past has no Pending scope');
    at = mark(client);
    await client.stepBackRequest({ threadId });
    await stoppedFrom(client, at, threadId);
    assert.equal((await top(client, threadId)).name, 'step 0 · before_model_call');
    const frames = (await client.stackTraceRequest({ threadId })).body;
    assert.equal(frames.totalFrames, 2, 'frames of the past: the checkpoints up to the cursor');
    // "Fork from this checkpoint" from the recorded past of a live run
    const fork = await client.customRequest('fork', {});
    const forkRunId = (fork.body as { runId: string }).runId;
    const forked = (await eventFrom<DebugProtocol.Event>(client, at, (e) => e.event === 'runsChanged')).event;
    assert.deepEqual(forked.body, { runIds: [forkRunId], parentRunId: runId });
    at = mark(client);
    await client.nextRequest({ threadId });
    await stoppedFrom(client, at, threadId);
    at = mark(client);
    await client.nextRequest({ threadId });
    const back = await stoppedFrom(client, at, threadId);
    assert.match(back.body.description ?? '', /^Back at the live stop: Tool lookup_order/);
    assert.equal((await top(client, threadId)).name, 'step 0 · before_tool_call · lookup_order');
    assert.equal(agent.lines.some(toolLine), false, 'stepping through the recording did not move the agent');
    const again = await scopeVars(client, threadId, 'Pending');
    const argsAgain = again.vars.find((v) => v.name === 'args')?.variablesReference ?? 0;
    assert.deepEqual(
      (await client.variablesRequest({ variablesReference: argsAgain })).body.variables.map((v) => v.value),
      ['"B-2"'],
      'the edit waits at the live stop',
    );

    at = mark(client);
    await client.continueRequest({ threadId });
    assert.deepEqual((await agent.line(toolLine)).orderId, 'B-2', 'the tool ran with the edited argument');
    assert.equal(await agent.exited, 0, agent.stderr);
    const exited = await eventFrom<DebugProtocol.ThreadEvent>(
      client,
      at,
      (e) => e.event === 'thread' && (e as DebugProtocol.ThreadEvent).body.reason === 'exited',
    );
    assert.equal(exited.event.body.threadId, threadId, 'the run ended: its thread exited');

    const s = openRunStore(store, { create: false });
    try {
      assert.equal(s.getRun(runId).status, 'completed');
      const forkRun = s.getRun(forkRunId);
      assert.equal(forkRun.parentRunId, runId);
      assert.equal(s.getCheckpoint(forkRun.forkFromCheckpointId ?? '').boundary, 'before_model_call');
      const [call] = s.listToolCalls(runId);
      assert.deepEqual(call?.args, { orderId: 'B-2' });
      assert.equal(call?.argsHash, argsHash({ orderId: 'B-2' }));
      assert.equal(call?.liveEdit?.editedBy, 'DebugClient test');
      assert.equal(call?.liveEdit?.originalArgsHash, argsHash({ orderId: 'A-1' }));
      const edits = s.listLiveEdits(runId);
      assert.equal(edits.length, 1);
      assert.deepEqual(edits[0]?.edits.toolArgs, call?.args, 'the recorded edit and the ledger agree');
      assert.deepEqual(edits[0]?.edits.paths, ['args.orderId']);
      assert.equal(edits[0]?.toolCallId, 'c1');
      assert.equal(edits[0]?.stopId, call?.liveEdit?.stopId);
    } finally {
      s.close();
    }
  });

  it('by run id: a run being recorded stops at its next boundary (stopOnEntry); when it ends the session ends', async () => {
    const store = demoStore();
    const gate = goFile();
    const agent = live.agent(store, { agentId: 'order-bot-r', go: gate });
    const runId = await agent.runId();
    const client = await live.client();
    await attach(client, { runId, store, stopOnEntry: true });
    const from = mark(client);
    go(gate);
    const stop = await stoppedFrom(client, from);
    assert.equal(stop.body.reason, 'entry');
    const threadId = threadOf(stop);
    assert.equal((await top(client, threadId)).name, 'step 0 · before_model_call');
    assert.equal(
      agent.lines.some((l) => l.model === 'first'),
      false,
      'the model is not called yet',
    );
    // Next lets the agent go on to its next boundary: the model was called, the tool not yet
    let at = mark(client);
    await client.nextRequest({ threadId });
    const next = await stoppedFrom(client, at, threadId);
    assert.equal(next.body.reason, 'step');
    assert.equal((await top(client, threadId)).name, 'step 0 · after_model_call');
    assert.ok(agent.lines.some((l) => l.model === 'first'));
    assert.deepEqual(
      (await scopeVars(client, threadId, 'Pending')).vars.map((v) => v.name),
      ['runtimeContext'],
      'after a model call only the context can be edited',
    );
    at = mark(client);
    await client.continueRequest({ threadId });
    assert.equal(await agent.exited, 0, agent.stderr);
    await eventFrom(
      client,
      at,
      (e) => e.event === 'thread' && (e as DebugProtocol.ThreadEvent).body.reason === 'exited',
    );
    await eventFrom(client, at, (e) => e.event === 'terminated');
  });

  it('an attach to a run that ended, or without runId or agentId, is an error saying what to do', async () => {
    const dc = await live.client();
    const store = demoStore();
    await dc.initializeRequest({ adapterID: 'agent-replay' });
    const ended = await dc.raw('attach', { runId: 'demo-support-refund', store });
    assert.equal(ended.success, false);
    assert.match(ended.message ?? '', /not running.*agentId.*launch/);
    const neither = await dc.raw('attach', { store });
    assert.equal(neither.success, false);
    assert.match(neither.message ?? '', /runId.*agentId/);
  });

  it('disconnect while stopped: the agent goes on at once, with its own arguments', async () => {
    const store = demoStore();
    const gate = goFile();
    const agent = live.agent(store, { agentId: 'order-bot-d', go: gate });
    const runId = await agent.runId();
    const client = await live.client();
    await attach(client, { runId, store }, () => client.setFunctionBreakpointsRequest(LOOKUP()));
    const from = mark(client);
    go(gate);
    const stop = await stoppedFrom(client, from);
    const pending = await scopeVars(client, threadOf(stop), 'Pending');
    const argsRef = pending.vars.find((v) => v.name === 'args')?.variablesReference ?? 0;
    await client.setVariableRequest({ variablesReference: argsRef, name: 'orderId', value: '"never-sent"' });
    const t0 = Date.now();
    await client.disconnectRequest({});
    assert.equal((await agent.line(toolLine)).orderId, 'A-1', 'an edit not continued with is not applied');
    const ms = Date.now() - t0;
    if (process.env.LIVE_TIMINGS) process.stderr.write(`disconnect -> agent went on after ${ms} ms\n`);
    assert.equal(await agent.exited, 0, agent.stderr);
    assert.ok(ms < 4000, `the agent went on ${ms} ms after disconnect (at once, but this machine may be loaded)`);
  });

  it('kill -9 of ocdb dap while stopped: the agent finishes within the lease', async () => {
    const store = demoStore();
    const client = await live.client();
    await attach(client, { agentId: 'order-bot-k', store }, () => client.setFunctionBreakpointsRequest(LOOKUP()));
    const from = mark(client);
    const agent = live.agent(store, { agentId: 'order-bot-k' });
    await stoppedFrom(client, from);
    const t0 = Date.now();
    client.kill9();
    assert.equal((await agent.line(toolLine, 30000)).orderId, 'A-1');
    const ms = Date.now() - t0;
    if (process.env.LIVE_TIMINGS) process.stderr.write(`kill -9 -> agent went on after ${ms} ms\n`);
    assert.equal(await agent.exited, 0, agent.stderr);
    // the lease runs out at most 5 s after the last renewal (each second); 3 s for a loaded machine to schedule it
    assert.ok(ms < 5000 + 3000, `the agent went on ${ms} ms after the adapter died (lease 5 s, renewed every 1 s)`);
  });

  it('two agents of one id are two threads, each stopped and continued on its own', async () => {
    const store = demoStore();
    const client = await live.client();
    await attach(client, { agentId: 'order-bot-2', store }, () => client.setFunctionBreakpointsRequest(LOOKUP()));
    const from = mark(client);
    const a = live.agent(store, { agentId: 'order-bot-2', orderId: 'A-1' });
    const b = live.agent(store, { agentId: 'order-bot-2', orderId: 'C-3' });
    const first = await stoppedFrom(client, from);
    const second = await eventFrom<DebugProtocol.StoppedEvent>(
      client,
      from,
      (e) => e.event === 'stopped' && (e as DebugProtocol.StoppedEvent).body.threadId !== threadOf(first),
    );
    const ids = [threadOf(first), threadOf(second.event)].sort();
    const threads = (await client.threadsRequest()).body.threads;
    assert.deepEqual(threads.map((t) => t.id).sort(), ids);
    const runIds = [await a.runId(), await b.runId()];
    assert.deepEqual(threads.map((t) => t.name).sort(), runIds.map((r) => `run ${r} (order-bot-2)`).sort());
    assert.equal(first.body.allThreadsStopped, false, 'one agent stopping does not stop the other');
    await client.continueRequest({ threadId: threadOf(first) });
    await client.continueRequest({ threadId: threadOf(second.event) });
    assert.deepEqual([await a.exited, await b.exited], [0, 0]);
    assert.deepEqual([(await a.line(toolLine)).orderId, (await b.line(toolLine)).orderId], ['A-1', 'C-3']);
  });

  it('Pause stops a running agent at its next boundary; the messages are edited before the model call', async () => {
    const store = demoStore();
    const gate = goFile();
    const client = await live.client();
    await attach(client, { agentId: 'order-bot-p', store });
    const from = mark(client);
    const agent = live.agent(store, { agentId: 'order-bot-p', go: gate });
    const started = await eventFrom<DebugProtocol.ThreadEvent>(client, from, (e) => e.event === 'thread');
    const threadId = threadOf(started.event);
    await client.pauseRequest({ threadId });
    const at = mark(client);
    go(gate);
    const stop = await stoppedFrom(client, at, threadId);
    assert.equal(stop.body.reason, 'pause');
    assert.equal((await top(client, threadId)).name, 'step 0 · before_model_call');
    const pending = await scopeVars(client, threadId, 'Pending');
    assert.deepEqual(
      pending.vars.map((v) => v.name),
      ['systemPrompt', 'messages', 'runtimeContext'],
    );
    const messagesRef = pending.vars.find((v) => v.name === 'messages')?.variablesReference ?? 0;
    const first = (await client.variablesRequest({ variablesReference: messagesRef })).body.variables[0];
    assert.ok(first);
    await client.setVariableRequest({
      variablesReference: first.variablesReference,
      name: 'content',
      value: 'Where is order D-4?',
    });
    await client.setVariableRequest({
      variablesReference: pending.ref,
      name: 'systemPrompt',
      value: 'Answer in French.',
    });
    await client.continueRequest({ threadId });
    const model = await agent.line((l) => l.model === 'first');
    assert.equal(model.firstMessage, 'Where is order D-4?');
    assert.equal(model.systemPrompt, 'Answer in French.');
    assert.equal(await agent.exited, 0, agent.stderr);
  });
});

/**
 * Live debugging end to end: a real agent process (test/fixtures/agents/liveAgent.ts, the README's
 * recording example, no debugging code) records into a store while this test plays the debugger through the
 * RunStore methods. It stops before lookup_order, the tool runs with the edited arguments, the ledger and the
 * recorded edit agree; context and prompt edits reach the agent and the model; a debugger that dies (stops
 * renewing) or detaches lets the agent finish by itself.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { argsHash, messageText } from '../../../src/model';
import { openRunStore } from '../../../src/store';
import { TestDebugger } from '../../fixtures/liveDebugger';
import { tmpDir } from '../../helpers/tmp';

const AGENT = path.join(__dirname, '../../fixtures/agents/liveAgent.ts');

interface AgentProcess {
  child: ChildProcess;
  events: Record<string, unknown>[];
  /** Resolves with the first event of `kind` (rejects when the process exits first). */
  next(kind: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

function startAgent(storePath: string, agentId: string): AgentProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', AGENT], {
    env: { ...process.env, STORE_PATH: storePath, AGENT_ID: agentId },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  let stderr = '';
  let buffer = '';
  child.stdout?.on('data', (d: Buffer) => {
    buffer += d.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
      buffer = buffer.slice(nl + 1);
    }
  });
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    events,
    exited,
    async next(kind, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find((e) => e.event === kind);
        if (found) return found;
        if (child.exitCode !== null)
          throw new Error(`the agent exited (${child.exitCode}) before "${kind}": ${stderr}`);
        if (Date.now() > until) throw new Error(`no "${kind}" from the agent within ${timeoutMs} ms: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

test('stopped before lookup_order: the tool runs with the edited args; the ledger and the recorded edit agree', async () => {
  const storePath = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(storePath);
  const dbg = new TestDebugger(store, 'att-1', { agentId: 'live-bot' });
  const agent = startAgent(storePath, 'live-bot');
  try {
    const seen: string[] = [];
    for (;;) {
      const stop = await dbg.nextStop();
      seen.push(stop.boundary);
      if (stop.boundary === 'before_prompt_build') {
        // a synchronous checkpoint(): the agent blocks until resumed; the context edit is what it reads next
        dbg.hold(stop, 'entry');
        const heldAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 1600));
        const held = store.getRun(stop.runId);
        assert.equal(held.checkpointCount, 1, 'held at the first checkpoint');
        // blocked, its heartbeat timer cannot fire: the wait beats it, so a held run never reads as crashed
        assert.ok((held.heartbeatAt ?? 0) >= heldAt, 'the blocked agent still beats its heartbeat');
        assert.equal(held.crashed, false);
        const context = store.getCheckpoint(stop.checkpointId).runtimeContext;
        dbg.resume(stop, {
          runtimeContext: { ...context, user: { ...context.user, roleId: 'auditor' } },
          paths: ['runtimeContext.user.roleId'],
          editedBy: 'test debugger',
        });
      } else if (stop.boundary === 'before_model_call' && !seen.includes('before_tool_call')) {
        dbg.resume(stop, { systemPrompt: 'You answer in one word.', editedBy: 'test debugger' });
      } else if (stop.boundary === 'before_tool_call') {
        dbg.hold(stop);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(
          agent.events.some((e) => e.event === 'tool'),
          false,
          'stopped before the tool runs',
        );
        const pending = store
          .getCheckpoint(stop.checkpointId)
          .toolLedgerSnapshot.find((r) => r.toolCallId === stop.toolCallId);
        assert.deepEqual(pending?.args, { orderId: 'A-1' }, 'the pending call the debugger shows');
        dbg.resume(stop, { toolArgs: { orderId: 'B-2' }, paths: ['args.orderId'], editedBy: 'test debugger' });
        break;
      } else dbg.resume(stop);
    }
    // the rest of the run: let every stop go
    const done = agent.next('done');
    while (agent.child.exitCode === null && !agent.events.some((e) => e.event === 'done')) {
      const stop = await Promise.race([dbg.nextStop(), done.then(() => undefined)]);
      if (stop) dbg.resume(stop);
    }
    const end = await done;
    assert.equal(await agent.exited, 0);
    assert.deepEqual(
      agent.events.filter((e) => e.event === 'tool').map((e) => e.args),
      [{ orderId: 'B-2' }],
      'the tool received the edited args, once',
    );
    const models = agent.events.filter((e) => e.event === 'model');
    assert.equal(models[0]?.systemPrompt, 'You answer in one word.', 'the model got the edited system prompt');
    assert.equal((end.context as { user: { roleId: string } }).user.roleId, 'auditor', 'the agent read the edit');

    const runId = String(end.runId);
    const record = store.getToolCall(runId, 'c1');
    assert.deepEqual(record.args, { orderId: 'B-2' });
    assert.equal(record.argsHash, argsHash({ orderId: 'B-2' }), 'argsHash of the args it ran with');
    assert.equal(record.liveEdit?.originalArgsHash, argsHash({ orderId: 'A-1' }));
    assert.equal(record.liveEdit?.editedBy, 'test debugger');
    const edits = store.listLiveEdits(runId);
    assert.deepEqual(
      edits.map((e) => [e.boundary, Object.keys(e.edits).sort().join(',')]),
      [
        ['before_prompt_build', 'editedBy,paths,runtimeContext'],
        ['before_model_call', 'editedBy,systemPrompt'],
        ['before_tool_call', 'editedBy,paths,toolArgs'],
      ],
    );
    assert.equal(edits[2]?.toolCallId, 'c1');
    assert.equal(edits[2]?.edits.editedBy, record.liveEdit?.editedBy);
    assert.equal(edits[2]?.stopId, record.liveEdit?.stopId, 'the ledger names the stop the edit came from');
    const cps = store.listCheckpoints(runId);
    const afterTool = store.getCheckpoint(cps.find((c) => c.boundary === 'after_tool_call')!.checkpointId);
    assert.deepEqual(afterTool.messages.at(-1)?.content, { orderId: 'B-2', status: 'shipped' });
    assert.deepEqual(afterTool.toolLedgerSnapshot[0]?.args, { orderId: 'B-2' });
    const firstModel = store.getCheckpoint(cps.find((c) => c.boundary === 'after_model_call')!.checkpointId);
    assert.equal(firstModel.systemPrompt, 'You answer in one word.', 'the recording carries the edited prompt');
    assert.equal(firstModel.runtimeContext.user.roleId, 'auditor');
    const last = store.getCheckpoint(cps.at(-1)!.checkpointId);
    assert.equal(messageText(last.messages.at(-1)!), 'Order B-2 has shipped.');
    assert.equal(store.getRun(runId).status, 'completed');
    assert.equal(store.exportRun(runId).liveEdits?.length, 3, 'export carries the edits');
  } finally {
    dbg.kill();
    agent.child.kill();
    store.close();
  }
});

test('a debugger that dies while holding the agent: the agent goes on within the lease and finishes', async () => {
  const storePath = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(storePath);
  const dbg = new TestDebugger(store, 'att-2', { agentId: 'orphan-bot' }, 1500, 200);
  const agent = startAgent(storePath, 'orphan-bot');
  try {
    let stop = await dbg.nextStop();
    while (stop.boundary !== 'before_tool_call') {
      dbg.resume(stop);
      stop = await dbg.nextStop();
    }
    dbg.hold(stop);
    dbg.kill(); // no more renewals: the lease runs out 1.5 s after the last one
    const killedAt = Date.now();
    const done = await agent.next('done', 10_000);
    const waited = Date.now() - killedAt;
    assert.ok(waited < 1500 + 2000, `the agent went on ${waited} ms after the debugger died (lease 1500 ms)`);
    assert.ok(waited >= 1000, `it waited for the lease (${waited} ms), not less`);
    assert.deepEqual(
      agent.events.filter((e) => e.event === 'tool').map((e) => e.args),
      [{ orderId: 'A-1' }],
      'unedited',
    );
    assert.equal(store.getLiveStop(stop.stopId).state, 'expired');
    assert.equal(store.getRun(String(done.runId)).status, 'completed');
    assert.deepEqual(store.listLiveEdits(String(done.runId)), []);
    assert.equal(await agent.exited, 0);
  } finally {
    dbg.kill();
    agent.child.kill();
    store.close();
  }
});

test('detach while the agent is held resumes it at once', async () => {
  const storePath = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(storePath);
  const dbg = new TestDebugger(store, 'att-3', { agentId: 'detach-bot' });
  const agent = startAgent(storePath, 'detach-bot');
  try {
    const stop = await dbg.nextStop();
    dbg.hold(stop, 'entry');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const detachedAt = Date.now();
    dbg.detach();
    await agent.next('done', 10_000);
    assert.ok(Date.now() - detachedAt < 1500, 'well within the 5 s lease');
    assert.equal(store.getLiveStop(stop.stopId).state, 'resumed');
    assert.equal(await agent.exited, 0);
  } finally {
    dbg.kill();
    agent.child.kill();
    store.close();
  }
});

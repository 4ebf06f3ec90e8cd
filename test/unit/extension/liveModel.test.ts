/**
 * What live debugging looks like in VS Code, on the pure model: the agents "Debug Next Run of Agent…" offers
 * (the demo store's, newest first, one entry each, a running run counted), the words of a live stop, the status
 * bar of an attached session (at the live stop, or back in the recorded past), and the runs tree: a run being
 * recorded offers Attach (its context value), a run under a debugger says PAUSED before its tool.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ITEM_CONTEXT } from '../../../src/extension/ids';
import {
  agentChoiceDescription,
  agentChoices,
  isRecording,
  liveAttachedText,
  livePositionText,
  stopPlaceText,
} from '../../../src/extension/liveModel';
import { liveMarksOf } from '../../../src/extension/liveRuns';
import { runView, toolCallView } from '../../../src/extension/runsTreeModel';
import { openRecorder } from '../../../src/recorder';
import type { RunStore } from '../../../src/store';
import { openDemoStore } from './demoStore';

let demo: ReturnType<typeof openDemoStore>;
let store: RunStore;
before(() => {
  demo = openDemoStore();
  store = demo.store;
});
after(() => demo.cleanup());

const NOW = Date.parse('2027-01-01T00:00:00Z');

const CONTEXT = {
  user: { userId: 'u-1', roleId: 'support_agent', permissions: ['orders:read'] },
  conversation: { sessionId: 'sess-1' },
  project: { projectId: 'shop' },
  task: { taskId: 't-1', workflowId: 'order-status', stepStates: {} },
  tools: { availableTools: ['lookup_order'] },
  model: { provider: 'openai', model: 'gpt-4.1-mini', promptVersion: 'v1' },
};

test('the agent pick lists each agent of the store once, newest run first, with its run count', () => {
  const runs = store.listRuns({ limit: 1000 }).runs;
  const choices = agentChoices(runs);
  const ids = choices.map((c) => c.agentId);
  assert.deepEqual([...ids].sort(), [...new Set(runs.map((r) => r.agentId))].sort(), 'every agent, once');
  for (let i = 1; i < choices.length; i++) {
    assert.ok(
      (choices[i - 1]?.lastStartedAt ?? 0) >= (choices[i]?.lastStartedAt ?? 0),
      `${ids.join(', ')} newest first`,
    );
  }
  const support = choices.find((c) => c.agentId === 'support-desk');
  assert.ok(support);
  assert.equal(support.runCount, runs.filter((r) => r.agentId === 'support-desk').length);
  assert.match(agentChoiceDescription(support), /^\d+ runs · last \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  // the crashed research run says "running" in the store but nobody records it: not counted as running
  const research = choices.find((c) => c.agentId === 'research-scout');
  assert.equal(research?.runningCount, 0);
});

test('a run being recorded now is offered for Attach and counted as running; a crashed one is not', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'att-live-'));
  const recorder = openRecorder({ store: path.join(dir, 'runs.db'), heartbeatMs: 0 });
  try {
    const run = recorder.startRun({
      agentId: 'support-bot',
      runId: 'live-1',
      runtimeContext: CONTEXT,
      messages: [{ role: 'user', content: 'Where is order A-1?' }],
    });
    run.checkpoint('before_prompt_build');
    const summary = recorder.store.getRun('live-1');
    assert.equal(isRecording(summary), true);
    const view = runView(summary, NOW);
    assert.equal(view.contextValue, ITEM_CONTEXT.runningRun);
    assert.match(view.contextValue, /^agentRun/, 'the run menus (Replay, Fork, Export) still apply');
    assert.equal(agentChoices([summary])[0]?.runningCount, 1);
    assert.match(agentChoiceDescription(agentChoices([summary])[0]!), /1 run · .* · 1 running$/);
    run.end();
    const ended = recorder.store.getRun('live-1');
    assert.equal(runView(ended, NOW).contextValue, ITEM_CONTEXT.run, 'an ended run offers no Attach');
  } finally {
    recorder.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const crashed = store.getRun('demo-research-crashed');
  assert.equal(crashed.status, 'running');
  assert.equal(isRecording(crashed), false);
  assert.equal(runView(crashed, NOW).contextValue, ITEM_CONTEXT.run);
  assert.equal(runView(store.getRun('demo-support-refund-auditor'), NOW).contextValue, ITEM_CONTEXT.forkRun);
});

test('a run under a debugger shows PAUSED before its tool with the pause icon; attached and running otherwise', () => {
  const running = { ...store.getRun('demo-support-refund'), status: 'running' as const, endedAt: undefined };
  const paused = runView(running, NOW, { client: 'VS Code', stoppedAt: 'before lookup_order' });
  assert.match(paused.description ?? '', /^PAUSED before lookup_order · support-desk · /);
  assert.equal(paused.icon.id, 'debug-pause');
  assert.match(paused.tooltip ?? '', /Stopped by VS Code before lookup\\_order: the agent waits until you continue/);
  const attached = runView(running, NOW, { client: 'VS Code' });
  assert.match(attached.description ?? '', /^ATTACHED · /);
  assert.doesNotMatch(attached.description ?? '', /RUNNING/);
  // a mark left on a run that ended meanwhile is not shown
  const done = runView(store.getRun('demo-support-refund'), NOW, { client: 'VS Code', stoppedAt: 'before x' });
  assert.doesNotMatch(done.description ?? '', /PAUSED|ATTACHED/);
  assert.equal(done.icon.id, 'pass');
});

test('a live stop in words, and the status bar at the live stop versus in the recorded past', () => {
  assert.equal(stopPlaceText({ boundary: 'before_tool_call', toolName: 'lookup_order' }), 'before lookup_order');
  assert.equal(stopPlaceText({ boundary: 'before_model_call' }), 'before the model call');
  assert.equal(stopPlaceText({ boundary: 'after_tool_call', toolName: 'lookup_order' }), 'after lookup_order');
  assert.equal(stopPlaceText({ boundary: 'before_prompt_build' }), 'at before_prompt_build');
  const run = { status: 'running' as const, crashed: false, stepCount: 1, checkpointCount: 4 };
  const head = { index: 3, stepIndex: 0, boundary: 'before_tool_call' as const, toolName: 'lookup_order' };
  assert.equal(livePositionText(run, head), 'live · stopped before lookup_order');
  assert.equal(
    livePositionText(run, { index: 1, stepIndex: 0, boundary: 'before_model_call' }),
    'live · recorded step 0/1 · before_model_call',
  );
  // the run ended: nothing waits any more
  assert.equal(livePositionText({ ...run, status: 'completed' }, head), 'live · recorded step 0/1 · before_tool_call');
});

test('the tree marks a run under any debugger from the store: attached, stopped before its tool, gone on detach or lease end', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'att-live-'));
  const recorder = openRecorder({ store: path.join(dir, 'runs.db'), heartbeatMs: 0 });
  const s = recorder.store;
  try {
    const run = recorder.startRun({
      agentId: 'support-bot',
      runId: 'live-2',
      runtimeContext: CONTEXT,
      messages: [{ role: 'user', content: 'Where is order A-1?' }],
    });
    run.checkpoint('before_prompt_build');
    const other = recorder.startRun({ agentId: 'other-bot', runId: 'live-3', runtimeContext: CONTEXT });
    other.checkpoint('before_prompt_build');
    const t0 = Date.now();
    assert.equal(liveMarksOf(s, t0).size, 0, 'nobody attached');
    s.attachLive({ attachId: 'a1', agentId: 'support-bot', client: 'ocdb dap', at: t0, leaseMs: 5000 });
    assert.deepEqual([...liveMarksOf(s, t0)], [['live-2', { client: 'ocdb dap' }]], 'only the runs of that agent');
    run.beginTool('lookup_order', { orderId: 'A-1' }, { sideEffectLevel: 'read_only', toolCallId: 'c1' });
    const before = s.listCheckpoints('live-2').at(-1)!;
    assert.equal(before.boundary, 'before_tool_call');
    s.askLiveStop({
      stopId: 'st1',
      attachId: 'a1',
      runId: 'live-2',
      agentId: 'support-bot',
      checkpointId: before.checkpointId,
      boundary: 'before_tool_call',
      toolCallId: 'c1',
      askedAt: t0 + 1,
    });
    assert.deepEqual(liveMarksOf(s, t0 + 2).get('live-2'), { client: 'ocdb dap' }, 'asking is not stopped yet');
    s.answerLiveStop('st1', { state: 'stopped', reason: 'function breakpoint' }, t0 + 3);
    assert.deepEqual(liveMarksOf(s, t0 + 4).get('live-2'), { client: 'ocdb dap', stoppedAt: 'before lookup_order' });
    // a lease is judged on the store's clock: a second debugger's 50 ms lease on the other agent runs out for real
    s.renewLiveLease('a1', Date.now(), 60_000);
    s.attachLive({ attachId: 'a2', agentId: 'other-bot', client: 'nvim-dap', at: t0, leaseMs: 50 });
    const lapsed = Date.now() + 30_000;
    while (liveMarksOf(s, Date.now()).has('live-3')) {
      assert.ok(Date.now() < lapsed, 'a lease that ran out marks nothing');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual([...liveMarksOf(s, Date.now()).keys()], ['live-2'], 'the live lease still marks its run');
    s.detachLive('a1', t0 + 5);
    assert.equal(liveMarksOf(s, t0 + 6).size, 0, 'detached: nothing marked');
    run.finishTool('c1', 'success', { status: 'shipped' });
    run.end();
    other.end();
  } finally {
    recorder.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a tool call a live debugger edited says so in the Tool Ledger; one it mocked says it did not run', () => {
  const call = store.listToolCalls('demo-support-refund').find((c) => c.toolName === 'lookup_order');
  assert.ok(call);
  assert.doesNotMatch(toolCallView(call).description ?? '', /live/);
  const edited = toolCallView({ ...call, liveEdit: { stopId: 's1', editedBy: 'VS Code', at: NOW } });
  assert.match(edited.description ?? '', /^✎ edited live · read_only · /);
  assert.match(edited.tooltip ?? '', /Edited by VS Code at a live stop .*: it ran with these args/);
  const mocked = toolCallView({ ...call, liveEdit: { stopId: 's1', editedBy: 'VS Code', at: NOW, mocked: true } });
  assert.match(mocked.description ?? '', /^✎ mocked live · /);
  assert.match(mocked.tooltip ?? '', /Not run: VS Code gave its outcome at a live stop/);
});

test('an attached session no agent is stopped in says what it waits for', () => {
  assert.equal(liveAttachedText({ agentId: 'support-bot' }), 'live · waiting for support-bot');
  assert.equal(liveAttachedText({ runId: 'run-7' }), 'live · attached to run-7');
  assert.equal(
    liveAttachedText({ runId: '44632b6d-bfd2-40d3-ba3d-40358b159a4f' }),
    'live · attached to 44632b6d…',
    'a long id is shortened: the status bar is narrow',
  );
});

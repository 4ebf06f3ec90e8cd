/**
 * The debugger's side of the stop protocol (LiveController; src/debug/README.md, "Live debugging") on a real store file: which of the
 * stops an agent asks are stops (function breakpoints before the tool, hit counts, the tool-error filter after it,
 * data breakpoints, stopBeforeModelCall, steps, Pause, stop on entry), the edits of the Pending scope as the agent
 * receives them, the way back to the live stop from the recorded past, and detaching. The agent is simulated by
 * asking the store for each recorded checkpoint in turn, as the SDK's gate does; the DAP tests run a real agent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OcdbError, type LiveStop } from '../../../src/model';
import type { RunStore, CheckpointSummary } from '../../../src/store';
import { RunWriter } from '../../../src/writer';
import { LiveController, type LiveEvent } from '../../../src/debug/liveController';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

/** A running run of nine checkpoints: a model call, lookup_order, a role change, a failing refund, a model call. */
function recordRun(store: RunStore, runId = 'live-1', agentId = 'support-bot'): CheckpointSummary[] {
  const w = RunWriter.create(store, {
    runId,
    agentId,
    state: { runtimeContext: testContext(), messages: [{ role: 'user', content: 'Where is order A-1?' }] },
  });
  w.checkpoint('before_prompt_build'); // 0
  w.checkpoint('before_model_call', { systemPrompt: 'You are a support agent.' }); // 1
  w.checkpoint('after_model_call', { finishReason: 'tool_calls' }); // 2
  w.beginTool({ toolCallId: 'c1', toolName: 'lookup_order', args: { orderId: 'A-1' }, sideEffectLevel: 'read_only' }); // 3
  w.finishTool('c1', 'success', { status: 'shipped' }); // 4
  w.checkpoint('before_prompt_build', {
    runtimeContext: testContext({ user: { userId: 'u-1', roleId: 'admin', permissions: ['reports:read'] } }),
  }); // 5
  w.beginTool({ toolCallId: 'c2', toolName: 'issue_refund', args: { orderId: 'A-1' }, sideEffectLevel: 'read_only' }); // 6
  w.finishTool('c2', 'error', { message: 'refund refused' }); // 7
  w.checkpoint('before_model_call'); // 8
  return store.listCheckpoints(runId);
}

interface Rig {
  store: RunStore;
  live: LiveController;
  events: LiveEvent[];
  cps: CheckpointSummary[];
  /** The agent asks at checkpoint `i`; the controller decides; the stop as the agent reads it. */
  ask(i: number): LiveStop;
}

function rig(args: Record<string, unknown> = {}, configure: (live: LiveController) => void = () => undefined): Rig {
  const store = tmpStore();
  const cps = recordRun(store);
  const live = LiveController.open({ store: store.path, runId: 'live-1', ...args }, 'unit test');
  configure(live);
  const events: LiveEvent[] = [];
  const agentStore = store; // the agent's process, in this test the same file through another handle
  return {
    store,
    live,
    events,
    cps,
    ask(i) {
      const cp = cps[i] as CheckpointSummary;
      agentStore.askLiveStop({
        stopId: `s${i}`,
        attachId: live.attachId,
        runId: cp.runId,
        agentId: 'support-bot',
        checkpointId: cp.checkpointId,
        boundary: cp.boundary,
        ...(cp.toolCallId ? { toolCallId: cp.toolCallId } : {}),
        askedAt: Date.now(),
      });
      events.push(...live.tick(Date.now(), true));
      return agentStore.getLiveStop(`s${i}`);
    },
  };
}

/** Asks at every checkpoint from `from`, continuing each stop; the indexes it stopped at, with their reasons. */
function runThrough(r: Rig, from = 0): string[] {
  const stops: string[] = [];
  for (let i = from; i < r.cps.length; i++) {
    const s = r.ask(i);
    if (s.state === 'stopped') {
      stops.push(`${i}:${s.reason ?? ''}`);
      const t = r.live.threads[0];
      assert.ok(t);
      r.live.resume(t, 'continue', 'unit test');
    } else {
      assert.equal(s.state, 'resumed', `stop at [${i}] is answered at once`);
    }
  }
  return stops;
}

const isInvalid = (pattern: RegExp) => (e: unknown) =>
  e instanceof OcdbError && e.code === 'InvalidInput' && pattern.test(e.message);

describe('LiveController: which asked stops are stops', () => {
  it('without breakpoints every stop is answered resumed at once, and the run is one thread', () => {
    const r = rig();
    assert.deepEqual(runThrough(r), []);
    assert.equal(r.live.threads.length, 1);
    assert.equal(r.events.filter((e) => e.kind === 'thread' && e.reason === 'started').length, 1);
    r.live.close();
  });

  it('a function breakpoint stops before the tool runs; a hit count stops at that hit only', () => {
    const r = rig({}, (live) => live.rules.breakpoints.setFunctionBreakpoints([{ name: 'lookup_order' }], undefined));
    assert.deepEqual(runThrough(r), ['3:function breakpoint']);
    const r2 = rig({}, (live) =>
      live.rules.breakpoints.setFunctionBreakpoints([{ name: '*', hitCondition: '2' }], undefined),
    );
    assert.deepEqual(runThrough(r2), ['6:function breakpoint'], 'the second tool call');
    r.live.close();
    r2.live.close();
  });

  it('a condition over the pending args narrows a function breakpoint', () => {
    const r = rig({}, (live) =>
      live.rules.breakpoints.setFunctionBreakpoints(
        [{ name: '*', condition: 'args.orderId == "A-1" && toolName == "issue_refund"' }],
        undefined,
      ),
    );
    assert.deepEqual(runThrough(r), ['6:function breakpoint']);
    r.live.close();
  });

  it('the tool-error filter stops after the failed call; a data breakpoint where the role changed', () => {
    const r = rig({}, (live) => live.rules.setExceptionFilters(['toolError'], []));
    assert.deepEqual(runThrough(r), ['7:exception']);
    const r2 = rig({}, (live) => live.rules.breakpoints.setDataBreakpoints([{ dataId: 'runtimeContext.user.roleId' }]));
    assert.deepEqual(runThrough(r2), ['5:data breakpoint']);
    r.live.close();
    r2.live.close();
  });

  it('stopBeforeModelCall stops before each model call; stopOnEntry at the first stop asked', () => {
    const r = rig({ stopBeforeModelCall: true });
    assert.deepEqual(runThrough(r), ['1:breakpoint', '8:breakpoint']);
    const r2 = rig({ stopOnEntry: true });
    assert.deepEqual(runThrough(r2, 2), ['2:entry']);
    r.live.close();
    r2.live.close();
  });

  it('Next at a live stop stops at the next boundary, Step Out at the next step; Pause at the next boundary', () => {
    const r = rig({}, (live) => live.rules.breakpoints.setFunctionBreakpoints([{ name: 'lookup_order' }], undefined));
    for (let i = 0; i < 3; i++) assert.equal(r.ask(i).state, 'resumed');
    assert.equal(r.ask(3).state, 'stopped');
    const t = r.live.threads[0];
    assert.ok(t);
    r.live.resume(t, 'next', 'unit test');
    assert.equal(r.ask(4).reason, 'step', 'next: the after_tool_call');
    r.live.resume(t, 'stepOut', 'unit test');
    assert.equal(r.ask(5).reason, 'step', 'step out: the first checkpoint of the next step');
    r.live.resume(t, 'continue', 'unit test');
    assert.equal(r.live.pause(t), undefined, 'a running agent is paused at its next boundary');
    assert.equal(r.ask(6).reason, 'pause');
    const last = r.events.filter((e) => e.kind === 'stopped').at(-1);
    assert.ok(last?.kind === 'stopped');
    assert.match(last.stop.description, /Paused at \[6\] before_tool_call · issue_refund/);
    r.live.close();
  });
});

describe('LiveController: the Pending scope and the edits the agent gets', () => {
  it('the pending args edited are the tool args the stop is resumed with, with the path and who edited', () => {
    const r = rig({}, (live) => live.rules.breakpoints.setFunctionBreakpoints([{ name: 'lookup_order' }], undefined));
    for (let i = 0; i <= 3; i++) r.ask(i);
    const t = r.live.threads[0];
    assert.ok(t?.held);
    const pending = r.live.pendingAt({ view: t.ctl.view, index: 3 });
    assert.ok(pending);
    assert.deepEqual(pending.view().args, { orderId: 'A-1' });
    assert.equal(pending.view().tool, 'lookup_order');
    assert.equal(pending.set(['args', 'orderId'], 'B-2'), 'B-2');
    assert.equal(r.live.pendingAt({ view: t.ctl.view, index: 2 }), undefined, 'only the live stop has a Pending scope');
    r.live.resume(t, 'continue', 'ocdb dap');
    const answered = r.store.getLiveStop('s3');
    assert.equal(answered.state, 'resumed');
    assert.deepEqual(answered.edits, { editedBy: 'ocdb dap', paths: ['args.orderId'], toolArgs: { orderId: 'B-2' } });
    r.live.close();
  });

  it('the outcome set skips the tool; the context edited is checked; read-only fields are refused naming them', () => {
    const r = rig({}, (live) => live.rules.breakpoints.setFunctionBreakpoints([{ name: 'lookup_order' }], undefined));
    for (let i = 0; i <= 3; i++) r.ask(i);
    const t = r.live.threads[0];
    assert.ok(t?.held);
    const pending = r.live.pendingAt({ view: t.ctl.view, index: 3 });
    assert.ok(pending);
    pending.set(['outcome'], { status: 'lost' });
    pending.set(['outcome', 'outcome'], 'error');
    assert.throws(
      () => pending.set(['runtimeContext', 'user', 'roleId'], 5),
      isInvalid(/runtimeContext\.user\.roleId/),
    );
    pending.set(['runtimeContext', 'user', 'roleId'], 'admin');
    assert.throws(() => pending.set(['tool'], 'other'), isInvalid(/tool cannot be edited at before_tool_call/));
    assert.throws(() => pending.set(['systemPrompt'], 'x'), isInvalid(/edit args, outcome, runtimeContext/));
    r.live.resume(t, 'continue', 'unit test');
    const edits = r.store.getLiveStop('s3').edits;
    assert.deepEqual(edits?.toolOutcome, { outcome: 'error', value: { status: 'lost' } });
    assert.equal(edits?.runtimeContext?.user.roleId, 'admin');
    assert.deepEqual(edits?.paths, ['outcome', 'outcome.outcome', 'runtimeContext.user.roleId']);
    r.live.close();
  });

  it('before a model call the system prompt and the messages are edited; a message must stay a message', () => {
    const r = rig({ stopBeforeModelCall: true });
    r.ask(0);
    assert.equal(r.ask(1).state, 'stopped');
    const t = r.live.threads[0];
    assert.ok(t);
    const pending = r.live.pendingAt({ view: t.ctl.view, index: 1 });
    assert.ok(pending);
    assert.equal(pending.view().systemPrompt, 'You are a support agent.');
    pending.set(['messages', 0, 'content'], 'Where is order B-2?');
    assert.throws(() => pending.set(['messages', 0, 'role'], 'robot'), isInvalid(/messages\[0\]\.role/));
    pending.set(['systemPrompt'], 'Answer in French.');
    r.live.resume(t, 'continue', 'unit test');
    const edits = r.store.getLiveStop('s1').edits;
    assert.equal(edits?.systemPrompt, 'Answer in French.');
    assert.equal(edits?.messages?.[0]?.content, 'Where is order B-2?');
    r.live.close();
  });
});

describe('LiveController: time travel, detach, attach errors', () => {
  it('stepping back from the live stop reads the recording; forward at the head is the live stop again', () => {
    const r = rig({}, (live) => live.rules.breakpoints.setFunctionBreakpoints([{ name: 'lookup_order' }], undefined));
    for (let i = 0; i <= 3; i++) r.ask(i);
    const t = r.live.threads[0];
    assert.ok(t);
    assert.equal(r.live.atHead(t), true);
    assert.equal(t.ctl.step('back').index, 2);
    assert.equal(r.live.atHead(t), false);
    assert.equal(r.live.arrived(t, t.ctl.step('back')).index, 1, 'further back: still the recording');
    const back = r.live.arrived(t, t.ctl.step('stepOut'));
    assert.equal(back.index, 3);
    assert.match(back.description, /^Back at the live stop: Tool lookup_order/);
    assert.equal(r.live.atHead(t), true);
    assert.equal(r.store.getLiveStop('s3').state, 'stopped', 'the agent still waits');
    r.live.close();
  });

  it('closing detaches: a held agent goes on without edits', () => {
    const r = rig({}, (live) => live.rules.breakpoints.setFunctionBreakpoints([{ name: 'lookup_order' }], undefined));
    for (let i = 0; i <= 3; i++) r.ask(i);
    const t = r.live.threads[0];
    assert.ok(t);
    r.live.pendingAt({ view: t.ctl.view, index: 3 })?.set(['args', 'orderId'], 'B-2');
    r.live.close();
    const s = r.store.getLiveStop('s3');
    assert.equal(s.state, 'resumed');
    assert.equal(s.edits, undefined, 'edits not sent are dropped');
  });

  it('attach to a run that ended, or without runId and agentId, says what to do', () => {
    const store = tmpStore();
    const w = RunWriter.create(store, { runId: 'done-1', agentId: 'a', state: { runtimeContext: testContext() } });
    w.checkpoint('before_prompt_build');
    w.end();
    assert.throws(
      () => LiveController.open({ store: store.path, runId: 'done-1' }, 'unit test'),
      (e: unknown) =>
        e instanceof OcdbError &&
        e.code === 'RunNotRunning' &&
        /run done-1 is not running \(it ended completed\).*agentId.*launch/.test(e.message),
    );
    assert.throws(() => LiveController.open({ store: store.path }, 'unit test'), isInvalid(/runId.*agentId/));
    assert.throws(() => LiveController.open({ store: store.path, runId: 'nope' }, 'unit test'), /nope/);
  });
});

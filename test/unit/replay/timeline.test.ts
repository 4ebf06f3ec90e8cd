/**
 * The Timeline's summary query on the demo store: the refund run's steps, its model calls with their tokens, its
 * tool calls with their side-effect levels and the failed one, its forks at their fork points with the captured
 * auditor fork "diverged at step 5" — read from summaries only (no checkpoint, argument or result loaded) — and
 * the layout that draws each fork leaving its parent's lane at the fork point, on both axes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { TimelineSchema } from '../../../src/model/timeline';
import { TimelineWireSchema, packTimeline, unpackTimeline } from '../../../src/model/timelineWire';
import { openRecorder } from '../../../src/recorder';
import { timelineOf } from '../../../src/replay/timeline';
import type { RunStore } from '../../../src/store';
import { cpX, layOut } from '../../../src/webview/timelineLayout';
import { REFUND, forkAuditor } from '../../helpers/auditorFork';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

/** The store, failing any read of a whole checkpoint, a call's arguments or its result. */
function summariesOnly(store: RunStore): RunStore {
  const banned = new Set([
    'getCheckpoint',
    'getCheckpointAt',
    'getCheckpointView',
    'getCheckpointState',
    'getLastMessage',
    'getToolCall',
    'listToolCalls',
    'listToolCallsView',
    'exportRun',
  ]);
  return new Proxy(store, {
    get(target, key, receiver) {
      if (typeof key === 'string' && banned.has(key)) throw new Error(`the timeline read ${key}`);
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

test('the refund run with its forks: steps, calls, tokens, errors, side effects and "diverged at step 5"', async () => {
  const store = tmpStore();
  writeDemoStore(store);
  const fork = await forkAuditor(store);
  const timeline = timelineOf(summariesOnly(store), REFUND, { withForks: true });
  assert.ok(TimelineSchema.safeParse(timeline).success, 'a timeline');
  // what the page parses: packed in columns, through JSON (as a message or `ocdb view`'s file carries it), unpacked
  const wire = TimelineWireSchema.safeParse(JSON.parse(JSON.stringify(packTimeline(timeline))));
  assert.ok(wire.success, wire.error?.message);
  assert.deepEqual(unpackTimeline(wire.data), timeline, 'the page draws the timeline the host read');
  const root = timeline.runs[0];
  assert.ok(root);
  assert.equal(root.runId, REFUND);
  assert.equal(root.cpAt.length, 48);
  assert.equal(root.stepCount, 9);
  const tools = root.calls.filter((c) => c.kind === 'tool');
  const models = root.calls.filter((c) => c.kind === 'model');
  assert.equal(tools.length, 10);
  assert.equal(models.length, 9);
  // the tokens per model call add up to the run's
  assert.equal(
    models.reduce((n, c) => n + (c.tokensIn ?? 0), 0),
    root.inputTokens,
  );
  const failed = tools.filter((c) => c.state === 'error');
  assert.deepEqual(
    failed.map((c) => [c.name, c.cp]),
    [['get_shipping_events', 15]],
  );
  assert.ok(tools.some((c) => c.sideEffect === 'external_irreversible' && c.name === 'send_email'));
  assert.ok(failed[0] && failed[0].end !== undefined && failed[0].end - failed[0].start >= 10_000, 'its 10 s timeout');
  // the recorded fork and the captured auditor fork, at their fork points
  const auditor = timeline.runs.find((r) => r.runId === fork.runId);
  assert.ok(auditor);
  assert.equal(auditor.kind, 'fork');
  assert.equal(auditor.parentRunId, REFUND);
  assert.equal(auditor.forkIndex, fork.forkIndex);
  assert.equal(auditor.statusText, 'diverged at step 5 · system prompt');
  assert.equal(auditor.divergence?.stepIndex, 5);
  assert.ok(auditor.divergence?.cp !== undefined && auditor.divergence.cp < auditor.cpAt.length);
  const recorded = timeline.runs.find((r) => r.runId === 'demo-support-refund-auditor');
  assert.equal(recorded?.forkIndex, 29);
  // without forks: the run alone
  assert.deepEqual(
    timelineOf(store, REFUND, { withForks: false }).runs.map((r) => r.runId),
    [REFUND],
  );
});

test('a fork leaves its parent lane at the fork point on the wall-clock and the step axis', async () => {
  const store = tmpStore();
  writeDemoStore(store);
  const fork = await forkAuditor(store);
  const timeline = timelineOf(store, REFUND, { withForks: true });
  for (const axis of ['time', 'steps'] as const) {
    const layout = layOut(timeline, axis);
    const parent = layout.lanes[0];
    const lane = layout.lanes.find((l) => l.run.runId === fork.runId);
    assert.ok(parent && lane);
    assert.equal(lane.parent, 0);
    assert.equal(lane.branchX, cpX(parent, axis, fork.forkIndex), `${axis}: the branch starts at the fork point`);
    // its own first checkpoint comes after the fork point, even though the fork was recorded days later
    assert.ok(cpX(lane, axis, 0) >= (lane.branchX ?? Infinity), `${axis}: the branch runs beside, from there`);
    assert.ok(cpX(lane, axis, 0) <= layout.domain[1]);
  }
  // a collapsed run hides its forks
  assert.equal(layOut(timeline, 'time', new Set([REFUND])).lanes.length, 1);
});

test('a sub-agent run named by its caller nests under the tool call that started it', () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: false });
  const sub = recorder.startRun({ agentId: 'sub', runId: 'session-agent-a1', runtimeContext: testContext() });
  sub.checkpoint('before_model_call', {});
  sub.checkpoint('after_model_call', { usage: { inputTokens: 5, outputTokens: 1 } });
  sub.end();
  const main = recorder.startRun({
    agentId: 'main',
    runId: 'session',
    runtimeContext: testContext(),
    metadata: {
      subagents: [{ agentId: 'a1', runId: 'session-agent-a1', toolCallId: 'call_task', parentRunId: 'session' }],
    },
  });
  main.checkpoint('before_model_call', {});
  main.checkpoint('after_model_call', { usage: { inputTokens: 9, outputTokens: 2 } });
  main.beginTool(
    'Task',
    { prompt: 'look' },
    { sideEffectLevel: 'none', replayPolicy: 'reuse_result', toolCallId: 'call_task' },
  );
  main.finishTool('call_task', 'success', 'done');
  main.end();
  recorder.close();
  const timeline = timelineOf(store, 'session');
  assert.deepEqual(
    timeline.runs.map((r) => [r.runId, r.kind, r.parentRunId, r.calledBy]),
    [
      ['session', 'run', undefined, undefined],
      ['session-agent-a1', 'subagent', 'session', 'call_task'],
    ],
  );
  const layout = layOut(timeline, 'steps');
  const task = timeline.runs[0]?.calls.find((c) => c.name === 'Task');
  assert.ok(task);
  assert.equal(layout.lanes[1]?.depth, 1);
  assert.equal(layout.lanes[1]?.branchX, task.cp, 'the lane hangs from the Task call');
});

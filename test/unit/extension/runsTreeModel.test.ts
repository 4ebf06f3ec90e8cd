/**
 * What the runs tree shows for the demo store, checked on the pure model:
 * crashed, failed and cancelled runs are told apart at a glance, forks are
 * marked, steps group checkpoints, the Tool Ledger shows side-effect badges,
 * policies, durations and errors.
 */
import * as assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  checkpointView,
  groupBySteps,
  ledgerView,
  runView,
  stepView,
  toolCallView,
} from '../../../src/extension/runsTreeModel';
import { formatDuration, formatTokens, positionText } from '../../../src/extension/format';
import { ITEM_CONTEXT } from '../../../src/extension/ids';
import type { CheckpointSummary, RunStore } from '../../../src/store';
import { openDemoStore } from './demoStore';

let demo: ReturnType<typeof openDemoStore>;
let store: RunStore;
before(() => {
  demo = openDemoStore();
  store = demo.store;
});
after(() => demo.cleanup());

const NOW = Date.parse('2027-01-01T00:00:00Z');

test('a crashed run shows CRASHED with a flame, never running or completed, and says why', () => {
  const view = runView(store.getRun('demo-research-crashed'), NOW);
  assert.equal(view.icon.id, 'flame');
  assert.match(view.description ?? '', /^CRASHED · /);
  assert.doesNotMatch(view.description ?? '', /running|completed/i);
  assert.match(view.tooltip ?? '', /died before the run ended/);
  // how far it got in the run's own clock (two steps, a few seconds), not the time since it started
  assert.match(view.description ?? '', / · [\d.]+ s\+ · /);
});

test('failed, cancelled and completed runs get distinct icons; the description has agent, duration and tokens', () => {
  const failed = runView(store.getRun('demo-support-escalation'), NOW);
  const cancelled = runView(store.getRun('demo-coding-cancelled'), NOW);
  const done = runView(store.getRun('demo-support-refund'), NOW);
  assert.deepEqual([failed.icon.id, cancelled.icon.id, done.icon.id], ['error', 'circle-slash', 'pass']);
  assert.match(failed.description ?? '', /^FAILED · support/);
  assert.match(done.description ?? '', /support[\w-]* · [\dmsh. ]+ · [\d.k]+ tok · 1 tool error/);
  assert.equal(done.contextValue, ITEM_CONTEXT.run);
});

test('the fork is marked as a fork and carries the fork context value (Compare with Parent)', () => {
  const view = runView(store.getRun('demo-support-refund-auditor'), NOW);
  assert.equal(view.contextValue, ITEM_CONTEXT.forkRun);
  assert.match(view.description ?? '', /\bfork\b/);
  assert.match(view.tooltip ?? '', /Forked from `demo-support-refund`/);
  assert.equal(store.listRuns({ parentRunId: 'demo-support-refund' }).runs[0]?.runId, 'demo-support-refund-auditor');
  assert.ok(!store.listRuns({ parentRunId: null }).runs.some((r) => r.runId === 'demo-support-refund-auditor'));
});

test('top-level runs come newest first', () => {
  const runs = store.listRuns({ parentRunId: null }).runs;
  const starts = runs.map((r) => r.startedAt);
  assert.deepEqual(
    starts,
    [...starts].sort((a, b) => b - a),
  );
});

test('checkpoints group into ReAct steps in order, agent_end last as "End"', () => {
  const steps = groupBySteps(store.listCheckpoints('demo-support-refund'));
  assert.equal(steps[0]?.stepIndex, 0);
  assert.equal(steps[steps.length - 1]?.stepIndex, -1);
  assert.equal(stepView(-1, steps[steps.length - 1]?.checkpoints ?? []).label, 'End');
  const withTools = steps.find((s) => s.checkpoints.some((c) => c.toolName === 'issue_refund'));
  assert.ok(withTools);
  assert.match(stepView(withTools.stepIndex, withTools.checkpoints).description ?? '', /issue_refund/);
});

test('the Tool Ledger shows side-effect badges with tooltips, the policy, the duration, and errors', () => {
  const calls = store.listToolCalls('demo-support-refund');
  const ledger = ledgerView(calls);
  assert.match(ledger.description ?? '', new RegExp(`^${calls.length} calls · 1 error · \\d+ with side effects$`));
  const refund = calls.find((c) => c.toolName === 'issue_refund');
  assert.ok(refund);
  const view = toolCallView(refund);
  assert.equal(view.icon.id, 'flame');
  assert.equal(view.icon.color, 'charts.red');
  assert.match(view.description ?? '', /^external_irreversible · forbid_replay · \d+ ms$/);
  assert.match(view.tooltip ?? '', /external_irreversible\*\*: reaches outside and cannot be undone/);
  const failed = calls.find((c) => c.error !== undefined);
  assert.ok(failed, 'the demo run has a tool error');
  assert.match(toolCallView(failed).description ?? '', /^✗ /);
  assert.match(toolCallView(failed).tooltip ?? '', /\$\(error\) Error: /);
});

test('a checkpoint after a failed tool call shows the error icon; before_tool_call shows the side effect', () => {
  const checkpoints = store.listCheckpoints('demo-support-refund');
  const calls = new Map(store.listToolCalls('demo-support-refund').map((c) => [c.toolCallId, c]));
  const failedCall = [...calls.values()].find((c) => c.error !== undefined);
  const after = checkpoints.find((c) => c.boundary === 'after_tool_call' && c.toolCallId === failedCall?.toolCallId);
  assert.ok(after);
  const v = checkpointView(after, calls.get(after.toolCallId ?? ''));
  assert.equal(v.icon.id, 'error');
  assert.match(v.label, /^\[\d+\] after_tool_call$/);
  const before = checkpoints.find((c) => c.boundary === 'before_tool_call' && c.toolName === 'issue_refund');
  assert.ok(before);
  assert.match(
    checkpointView(before, calls.get(before.toolCallId ?? '')).description ?? '',
    /issue_refund · external_irreversible/,
  );
});

test('durations, tokens and the status-bar position read as a user expects', () => {
  assert.deepEqual(
    [formatDuration(840), formatDuration(12_345), formatDuration(245_000), formatDuration(3_720_000)],
    ['840 ms', '12.3 s', '4m 05s', '1h 02m'],
  );
  assert.deepEqual([formatTokens(950), formatTokens(12_400), formatTokens(3_100_000)], ['950', '12k', '3.1M']);
  assert.equal(
    positionText({ index: 13, stepIndex: 3, boundary: 'before_tool_call' }),
    '[13] step 3 · before_tool_call',
    'the numbering of the transcript and the tree: [index], 0-based steps',
  );
  assert.equal(positionText({ index: 47, stepIndex: -1, boundary: 'agent_end' }), '[47] end · agent_end');
});

test('a cancelled tool call reads as cancelled in the ledger and on its checkpoint, not as an error', () => {
  const call = {
    toolCallId: 't-1',
    toolName: 'deploy',
    args: { service: 'api' },
    argsHash: '0123456789abcdef',
    error: { name: 'Cancelled', message: 'cancelled' },
    sideEffectLevel: 'write' as const,
    replayPolicy: 'manual_confirm' as const,
    startedAt: 1,
    endedAt: 2,
  };
  const failed = { ...call, toolCallId: 't-2', error: { name: 'Error', message: 'boom' } };
  const entry = toolCallView(call);
  assert.match(entry.description ?? '', /^⊘ cancelled/);
  assert.doesNotMatch(entry.description ?? '', /✗/);
  assert.match(ledgerView([call, failed]).description ?? '', /1 error · 1 cancelled/);
  const summary = {
    checkpointId: 'c',
    runId: 'r',
    index: 3,
    boundary: 'after_tool_call' as const,
    stepIndex: 0,
    toolCallId: 't-1',
    toolName: 'deploy',
    messageCount: 2,
    createdAt: 2,
  };
  const cp = checkpointView(summary, call);
  assert.equal(cp.icon.id, 'circle-slash');
  assert.match(cp.description ?? '', /⊘ cancelled/);
  assert.equal(checkpointView({ ...summary, toolCallId: 't-2' }, failed).icon.id, 'error');
});

test("a live debugger's hold shows on the checkpoint after the stop, as a tool call's shows on its entry", () => {
  const at = (index: number, boundary: CheckpointSummary['boundary'], heldMs?: number): CheckpointSummary => ({
    checkpointId: `c${index}`,
    runId: 'r',
    index,
    boundary,
    stepIndex: 0,
    messageCount: 2,
    createdAt: index,
    ...(heldMs !== undefined ? { heldMs } : {}),
  });
  const asked = at(1, 'before_model_call');
  const answer = at(2, 'after_model_call', 27_800);
  const next = at(3, 'before_tool_call', 1_500);
  const before = checkpointView(answer, undefined, asked);
  assert.match(before.description ?? '', / · held 27\.8 s$/);
  assert.match(before.tooltip ?? '', /\n\n\$\(debug-pause\) Held 27\.8 s by the debugger before the call$/);
  assert.match(
    checkpointView(next, undefined, answer).tooltip ?? '',
    /Held 1\.5 s by the debugger after the model call$/,
  );
  assert.doesNotMatch(checkpointView(asked).description ?? '', /held/, 'nothing held the agent before this one');
  assert.doesNotMatch(checkpointView(asked).tooltip ?? '', /Held/);

  const call = {
    toolCallId: 't-1',
    toolName: 'lookup_order',
    args: {},
    argsHash: '0123456789abcdef',
    result: { ok: true },
    sideEffectLevel: 'read_only' as const,
    replayPolicy: 'reuse_result' as const,
    startedAt: 1,
    endedAt: 1_600,
    heldMs: 1_500,
  };
  const entry = toolCallView(call);
  assert.match(entry.description ?? '', / · 99 ms · held 1\.5 s$/);
  assert.match(entry.tooltip ?? '', /Held 1\.5 s by the debugger before it ran/);
});

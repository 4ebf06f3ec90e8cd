/** Scopes, variables, evaluate, setVariable staging, goto / restart frame, the fork request and launch errors over DAP. */
import assert from 'node:assert/strict';
import { afterEach, before, beforeEach, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { openRunStore, type CheckpointSummary } from '../../src/store';
import { checkpointsOf, demoStore, startClient, type OcdbDebugClient } from './support/dapClient';

const RUN = 'demo-support-refund';

describe('DAP state, evaluation and edits', () => {
  let store: string;
  let cps: CheckpointSummary[];
  let dc: OcdbDebugClient;
  before(() => {
    store = demoStore();
    cps = checkpointsOf(store, RUN);
  });
  beforeEach(async () => {
    dc = await startClient();
  });
  afterEach(async () => {
    await dc.stop();
  });

  const toIssueRefund = async () => {
    await dc.launchAndStop({ runId: RUN, store });
    await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'issue_refund' }] });
    await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
  };

  it('scopes: Checkpoint, Messages, Runtime Context, Tool Ledger, Artifacts with lazy, paged children', async () => {
    await toIssueRefund();
    const scopes = await dc.scopesOfTop();
    assert.deepEqual(
      scopes.map((s) => s.name),
      ['Checkpoint', 'Messages', 'Runtime Context', 'Tool Ledger', 'Artifacts'],
    );
    const checkpoint = await dc.scope('Checkpoint');
    const field = (n: string) => checkpoint.find((v) => v.name === n)?.value;
    assert.equal(field('boundary'), '"before_tool_call"');
    assert.equal(field('toolName'), '"issue_refund"');
    assert.match(field('time') ?? '', /^"2026-11-02T/);
    assert.match(field('promptVersion') ?? '', /support-v3/);
    const prompt = checkpoint.find((v) => v.name === 'systemPrompt');
    assert.ok(prompt && prompt.value.length < 260 && /chars\)"$/.test(prompt.value), 'long strings are shortened');
    const whole = await dc.variablesRequest({ variablesReference: prompt.variablesReference });
    assert.ok((whole.body.variables[0]?.value.length ?? 0) > 300, 'and whole on expand');

    const messages = scopes.find((s) => s.name === 'Messages') as DebugProtocol.Scope;
    assert.ok((messages.indexedVariables ?? 0) > 10);
    const page = await dc.variablesRequest({
      variablesReference: messages.variablesReference,
      filter: 'indexed',
      start: 2,
      count: 3,
    });
    assert.deepEqual(
      page.body.variables.map((v) => v.name),
      ['2', '3', '4'],
    );
    assert.match(page.body.variables[0]?.value ?? '', /^(assistant|tool|user)/);
    assert.equal(page.body.variables[0]?.evaluateName, 'messages[2]');

    const ledger = await dc.scope('Tool Ledger');
    const failed = ledger.find((v) => v.value.startsWith('get_shipping_events') && v.value.includes('✗'));
    assert.ok(failed, ledger.map((v) => v.value).join('\n'));
    const entry = await dc.variablesRequest({ variablesReference: failed.variablesReference });
    const names = entry.body.variables.map((v) => v.name);
    for (const n of ['toolName', 'args', 'error', 'sideEffectLevel', 'replayPolicy', 'durationMs'])
      assert.ok(names.includes(n), n);
    assert.match(
      entry.body.variables.find((v) => v.name === 'error')?.evaluateName ?? '',
      /^toolLedger\[\d+\]\.error$/,
    );
  });

  it('evaluate in the repl and on hover (a tool name shows its result)', async () => {
    await toIssueRefund();
    assert.equal((await dc.evaluate('runtimeContext.user.userId')).result, '"agent-u-48213"');
    assert.equal((await dc.evaluate('toolName == "issue_refund" && args.amount > 100')).result, 'true');
    const res = await dc.evaluate('tool("lookup_order").result');
    assert.ok(res.variablesReference > 0);
    // at its own before_tool_call, tool("issue_refund") is that call (though the ledger snapshot does not hold it
    // yet), its recorded result included
    assert.equal(
      (await dc.evaluate('tool("issue_refund").result')).result,
      (await dc.evaluate('result')).result,
      "tool() at a call's own before_tool_call is that call",
    );
    assert.notEqual((await dc.evaluate('tool("issue_refund").result')).result, 'null');
    assert.equal((await dc.evaluate('lookup_order', 'hover')).result, res.result);
    const hover = await dc.evaluate('issue_refund', 'hover');
    assert.equal(hover.result, (await dc.evaluate('result')).result, 'hover shows the recorded result of the call');
    assert.notEqual(hover.result, 'null');
    await assert.rejects(dc.evaluate('assistant', 'hover'), /no value here/, 'plain words show no hover');
    assert.equal((await dc.evaluate('boundary', 'hover')).result, '"before_tool_call"');
    const last = await dc.evaluate('messages[-1].content', 'clipboard');
    assert.ok(last.result.length > 0);
    await assert.rejects(dc.evaluate('runtimeContext.(', 'repl'), /Expression `runtimeContext\.\(`/);
  });

  it('setVariable stages a contextPatch; the recording never changes', async () => {
    await dc.launchAndStop({ runId: RUN, store });
    const ctx = (await dc.scopesOfTop()).find((s) => s.name === 'Runtime Context') as DebugProtocol.Scope;
    const user = (await dc.variablesRequest({ variablesReference: ctx.variablesReference })).body.variables.find(
      (v) => v.name === 'user',
    );
    assert.ok(user);
    const set = await dc.setVariableRequest({
      variablesReference: user.variablesReference,
      name: 'roleId',
      value: '"auditor"',
    });
    assert.equal(set.body.value, '"auditor"');
    const perms = (await dc.variablesRequest({ variablesReference: user.variablesReference })).body.variables.find(
      (v) => v.name === 'permissions',
    );
    assert.ok(perms);
    await dc.setVariableRequest({ variablesReference: perms.variablesReference, name: '1', value: 'refunds:none' });
    const staged = await dc.customRequest('stagedContextPatch');
    assert.deepEqual(staged.body.contextPatch, {
      user: { roleId: 'auditor', permissions: ['orders:read', 'refunds:none', 'cases:write', 'email:send'] },
    });
    assert.equal(staged.body.checkpointId, cps[0]?.checkpointId);
    const shown = await dc.scope('Runtime Context');
    const userNow = await dc.child(shown, 'user');
    assert.equal(userNow.find((v) => v.name === 'roleId')?.value, '"auditor"', 'the view shows the staged value');
    assert.equal(
      (await dc.evaluate('runtimeContext.user.roleId')).result,
      '"support_agent"',
      'the recording is unchanged',
    );
    const s = openRunStore(store, { create: false });
    assert.equal(s.getCheckpoint(cps[0]?.checkpointId as string).runtimeContext.user.roleId, 'support_agent');
    s.close();
    const checkpointScope = (await dc.scopesOfTop())[0] as DebugProtocol.Scope;
    await assert.rejects(
      dc.setVariableRequest({ variablesReference: checkpointScope.variablesReference, name: 'boundary', value: '"x"' }),
      /not in the Runtime Context/,
    );
    await assert.rejects(
      dc.setVariableRequest({ variablesReference: user.variablesReference, name: 'roleId', value: '42' }),
      /user\.roleId/,
    );
  });

  it('goto a transcript line and restart an older frame', async () => {
    await dc.launchAndStop({ runId: RUN, store });
    const path = (await dc.topFrame()).source?.path as string;
    const targetLine = (await dc.frames(1)).stackFrames[0]?.line ?? 0;
    for (let i = 0; i < 10; i++) await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    const targets = await dc.gotoTargetsRequest({ source: { path }, line: targetLine });
    const target = targets.body.targets[0];
    assert.ok(target);
    const g = await dc.stepAndStop(() => dc.gotoRequest({ threadId: 1, targetId: target.id }));
    assert.equal(g.body.reason, 'goto');
    assert.equal((await dc.topFrame()).line, targetLine);
    for (let i = 0; i < 5; i++) await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    const frames = await dc.frames(0);
    const older = frames.stackFrames[3] as DebugProtocol.StackFrame;
    assert.equal(older.canRestart, true);
    const r = await dc.stepAndStop(() => dc.restartFrameRequest({ frameId: older.id }));
    assert.equal(r.body.reason, 'restart');
    assert.equal((await dc.topFrame()).name, older.name);
    assert.equal((await dc.frames(0)).totalFrames, 3);
  });

  it('the fork request creates a fork run through ForkService and announces runsChanged', async () => {
    await dc.launchAndStop({ runId: RUN, store });
    const ctx = (await dc.scopesOfTop()).find((s) => s.name === 'Runtime Context') as DebugProtocol.Scope;
    const user = (await dc.variablesRequest({ variablesReference: ctx.variablesReference })).body.variables.find(
      (v) => v.name === 'user',
    );
    await dc.setVariableRequest({
      variablesReference: user?.variablesReference ?? 0,
      name: 'roleId',
      value: 'auditor',
    });
    await assert.rejects(dc.customRequest('fork', {}), /write_case_report/);
    const [res, event] = await Promise.all([
      dc.customRequest('fork', {
        forkConfig: { toolPolicyMap: { send_email: 'reuse_result' } },
        acknowledgedTools: ['write_case_report'],
      }),
      dc.waitForEvent('runsChanged'),
    ]);
    const runId = res.body.runId as string;
    assert.ok(runId && res.body.forkRequestId);
    assert.deepEqual(event.body.runIds, [runId]);
    const s = openRunStore(store, { create: false });
    const run = s.getRun(runId);
    assert.equal(run.mode, 'fork');
    assert.equal(run.parentRunId, RUN);
    assert.equal(run.forkFromCheckpointId, cps[0]?.checkpointId);
    assert.equal(s.getCheckpointAt(runId, 0).runtimeContext.user.roleId, 'auditor', 'the staged edit is the patch');
    s.close();
    await assert.rejects(dc.customRequest('fork', { checkpointId: 42 }), /checkpointId/);
    await assert.rejects(
      dc.customRequest('fork', { forkConfig: { sourceRunId: 'demo-coding-fix' } }),
      /belongs to run demo-support-refund, not forkConfig\.sourceRunId demo-coding-fix/,
    );
  });

  it('bad launch arguments answer errors naming the run, path or field, and the adapter stays up', async () => {
    await dc.initializeRequest();
    await assert.rejects(dc.launchRequest({ store } as never), /runId/);
    await assert.rejects(dc.launchRequest({ runId: 'no-such-run', store } as never), /no-such-run/);
    await assert.rejects(dc.launchRequest({ runId: RUN, store: '/nowhere/runs.db' } as never), /\/nowhere\/runs\.db/);
    await assert.rejects(dc.launchRequest({ runId: RUN, store, checkpointId: 'cp-x' } as never), /checkpointId.*cp-x/);
    await assert.rejects(dc.launchRequest({ runId: RUN, store, stopOnEntry: 'yes' } as never), /stopOnEntry/);
    const [, , stopped] = await Promise.all([
      dc.waitForEvent('initialized').then(() => dc.configurationDoneRequest()),
      dc.launchRequest({ runId: RUN, store } as never),
      dc.waitForEvent('stopped'),
    ]);
    assert.equal(stopped.body.reason, 'entry');
  });
});

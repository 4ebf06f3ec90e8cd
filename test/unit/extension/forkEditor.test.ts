/**
 * The fork editor's pure rules on the demo store: the context form (values,
 * errors beside the field, changed marks, the minimal patch), the ForkConfig
 * a draft stands for, the tool table with '*', the hazard report with a tick
 * per tool, and the same ForkService plan/create the page goes through.
 */
import * as assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { planView } from '../../../src/extension/planView';
import { applyContextPatch } from '../../../src/model';
import { ForkService } from '../../../src/fork/forkService';
import type { RunStore } from '../../../src/store';
import { diffPatch, formValues, readForm } from '../../../src/webview/contextForm';
import {
  buildForkConfig,
  forkReadiness,
  hazardRows,
  newDraft,
  toolTable,
  toolsNeedingProgram,
} from '../../../src/webview/forkDraft';
import type { EditorCheckpoint } from '../../../src/webview/protocol';
import { editorCheckpointOf, openDemoStore } from './demoStore';

let demo: ReturnType<typeof openDemoStore>;
let store: RunStore;
let checkpoint: EditorCheckpoint;
before(() => {
  demo = openDemoStore();
  store = demo.store;
  const at = store
    .listCheckpoints('demo-support-refund')
    .find((c) => c.stepIndex === 2 && c.boundary === 'before_model_call');
  assert.ok(at);
  checkpoint = editorCheckpointOf(store, 'demo-support-refund', at);
});
after(() => demo.cleanup());

const defaults = { modelMode: 'captured' as const, overrideProvider: '', overrideModel: 'gpt-4o-mini', program: '' };

test('an untouched form reproduces the context exactly: no errors, no changes, an empty patch', () => {
  const result = readForm(checkpoint.runtimeContext, formValues(checkpoint.runtimeContext));
  assert.deepEqual(result.errors, {});
  assert.deepEqual(result.changed, []);
  assert.deepEqual(result.context, checkpoint.runtimeContext);
  assert.deepEqual(diffPatch(checkpoint.runtimeContext, result.context), {});
});

test('editing the role marks that field changed and patches only it', () => {
  const values = { ...formValues(checkpoint.runtimeContext), 'user.roleId': 'auditor' };
  const result = readForm(checkpoint.runtimeContext, values);
  assert.deepEqual(result.changed, ['user.roleId']);
  const patch = diffPatch(checkpoint.runtimeContext, result.context);
  assert.deepEqual(patch, { user: { roleId: 'auditor' } });
  assert.deepEqual(applyContextPatch(checkpoint.runtimeContext, patch), result.context);
});

test('bad input gets an error beside its own field', () => {
  const values = {
    ...formValues(checkpoint.runtimeContext),
    'task.stepStates': '{ not json',
    extra: '[1, 2]',
  };
  const result = readForm(checkpoint.runtimeContext, values);
  assert.match(result.errors['task.stepStates'] ?? '', /not valid JSON/);
  assert.match(result.errors.extra ?? '', /must be a JSON object/);
  assert.equal(result.context, undefined);
  const draft = { ...newDraft(checkpoint, defaults), values };
  assert.equal(buildForkConfig(checkpoint, draft).config, undefined);
  assert.deepEqual(forkReadiness(buildForkConfig(checkpoint, draft), undefined, draft), {
    ok: false,
    why: 'fix 2 fields first',
  });
});

test('removing an optional key patches it with null; list fields split on commas', () => {
  const values = { ...formValues(checkpoint.runtimeContext), 'user.permissions': 'refunds:read ,  cases:write,' };
  const result = readForm(checkpoint.runtimeContext, values);
  assert.deepEqual(result.context?.user.permissions, ['refunds:read', 'cases:write']);
  assert.deepEqual(diffPatch({ a: { b: 1, c: 2 } }, { a: { b: 1 } }), { a: { c: null } });
});

test('override mode needs a model; the draft becomes the ForkConfig ForkService accepts', () => {
  const draft = newDraft(checkpoint, defaults);
  draft.modelMode = 'override';
  draft.model = '';
  assert.match(buildForkConfig(checkpoint, draft).errors.modelOverride ?? '', /name the model/);
  draft.model = 'gpt-4o-mini';
  draft.values['user.roleId'] = 'auditor';
  draft.policies = { '*': 'reuse_result', lookup_order: '' };
  draft.promptVersion = 'support-v4';
  const { config } = buildForkConfig(checkpoint, draft);
  assert.deepEqual(config, {
    sourceRunId: 'demo-support-refund',
    sourceCheckpointId: checkpoint.checkpointId,
    contextPatch: { user: { roleId: 'auditor' } },
    modelOverride: { mode: 'override', provider: draft.provider, model: 'gpt-4o-mini' },
    toolPolicyMap: { '*': 'reuse_result' },
    promptVersionOverride: 'support-v4',
  });
  const plan = new ForkService(store).plan(config);
  assert.equal(plan.runtimeContext.user.roleId, 'auditor');
});

test('captured mode can continue with the real model at a divergence; other modes do not carry the option', () => {
  const draft = newDraft(checkpoint, defaults);
  draft.continueReal = true;
  assert.equal(buildForkConfig(checkpoint, draft).config?.onDivergence, 'continue_real');
  draft.modelMode = 'real';
  assert.equal(buildForkConfig(checkpoint, draft).config?.onDivergence, undefined);
});

test("the tool table lists '*' first, then every tool of the ledger with its badge; mock_result shows a mock editor", () => {
  const draft = newDraft(checkpoint, defaults);
  draft.policies = { search_kb: 'mock_result' };
  const config = buildForkConfig(checkpoint, draft).config;
  assert.ok(config);
  const plan = planView(new ForkService(store).plan(config));
  const rows = toolTable(plan, draft);
  assert.equal(rows[0]?.toolName, '*');
  assert.deepEqual(
    plan.warnings.filter((w) => w.startsWith('search_kb')),
    [
      'search_kb is set to mock_result without a mock result: write one under Mock results (JSON), or choose another Replay policy for it in Tool policies (the fork fails if it is called).',
    ],
  );
  const names = rows.map((r) => r.toolName);
  for (const t of ['lookup_customer', 'lookup_order', 'issue_refund', 'send_email', 'write_case_report']) {
    assert.ok(names.includes(t), `${t} is in the table`);
  }
  const search = rows.find((r) => r.toolName === 'search_kb');
  assert.equal(search?.showMock, true);
  assert.equal(search?.mockMissing, true, 'a mock_result tool without a mock is flagged');
  const refund = rows.find((r) => r.toolName === 'issue_refund');
  assert.equal(refund?.sideEffectLevel, 'external_irreversible');
  assert.deepEqual(
    [refund?.fallbackSource, refund?.fallback],
    ['recorded', 'forbid_replay'],
    'unset shows the recorded policy',
  );
  draft.policies['*'] = 'reuse_result';
  const withWildcard = toolTable(undefined, draft);
  assert.equal(withWildcard[0]?.chosen, 'reuse_result');
});

test('the hazard report needs a tick per hazardous tool; ticking them lets the fork through ForkService', () => {
  const draft = newDraft(checkpoint, defaults);
  draft.policies = { issue_refund: 're_execute', write_case_report: 're_execute', send_email: 'reuse_result' };
  const result = buildForkConfig(checkpoint, draft);
  assert.ok(result.config);
  const service = new ForkService(store);
  const plan = planView(service.plan(result.config));
  const rows = hazardRows(plan, draft);
  const names = rows.map((h) => h.toolName);
  assert.deepEqual([...names].sort(), ['issue_refund', 'write_case_report']);
  assert.ok(rows.every((h) => !h.ticked && h.unlockable));
  assert.match(forkReadiness(result, plan, draft).why ?? '', /tick .*issue_refund/);
  assert.throws(() => service.create(result.config ?? ({} as never), draft.acknowledged), /rejected/);
  draft.acknowledged = names.slice(0, -1);
  assert.equal(forkReadiness(result, plan, draft).ok, false, 'one tick missing keeps Fork off');
  draft.acknowledged = names;
  assert.deepEqual(forkReadiness(result, plan, draft), { ok: true });
  const created = service.create(result.config, draft.acknowledged);
  const run = store.getRun(created.runId);
  assert.equal(run.parentRunId, 'demo-support-refund');
  assert.equal(run.mode, 'fork');
});

test('by default the demo fork is held by send_email (external_irreversible, manual_confirm recorded) until it is named', () => {
  const draft = newDraft(checkpoint, defaults);
  const result = buildForkConfig(checkpoint, draft);
  assert.ok(result.config);
  const plan = planView(new ForkService(store).plan(result.config));
  const email = hazardRows(plan, draft).find((h) => h.toolName === 'send_email');
  assert.equal(email?.unlockable, false);
  // in the page's own words, pointing at its controls; no ForkConfig field names
  const why = forkReadiness(result, plan, draft).why ?? '';
  assert.match(
    why,
    /send_email would run again and cannot be unlocked this way: choose its Replay policy in Tool policies/,
  );
  assert.match(email?.reason ?? '', /set its Replay policy to reuse_result in Tool policies/);
  const report = hazardRows(plan, draft).find((h) => h.toolName === 'write_case_report');
  assert.match(report?.reason ?? '', /tick "Run write_case_report again"/);
  for (const text of [why, ...hazardRows(plan, draft).map((h) => h.reason), ...plan.warnings]) {
    assert.doesNotMatch(text, /toolPolicyMap|toolMockResults|acknowledge/, text);
  }
  draft.policies = { send_email: 'reuse_result', write_case_report: 'reuse_result' };
  const fixed = buildForkConfig(checkpoint, draft);
  assert.ok(fixed.config);
  assert.deepEqual(forkReadiness(fixed, planView(new ForkService(store).plan(fixed.config)), draft), { ok: true });
});

test("'*' alone never unlocks an external_irreversible tool: its tick is disabled and Fork stays off", () => {
  const draft = newDraft(checkpoint, defaults);
  draft.policies = { '*': 're_execute' };
  draft.acknowledged = ['issue_refund', 'send_email', 'write_case_report'];
  const result = buildForkConfig(checkpoint, draft);
  assert.ok(result.config);
  const plan = planView(new ForkService(store).plan(result.config));
  const refund = hazardRows(plan, draft).find((h) => h.toolName === 'issue_refund');
  assert.equal(refund?.unlockable, false);
  assert.equal(refund?.ticked, false);
  assert.match(forkReadiness(result, plan, draft).why ?? '', /cannot be unlocked/);
});

test("tools that would run the agent's own code are named until an agent program is set", () => {
  const draft = newDraft(checkpoint, defaults);
  const result = buildForkConfig(checkpoint, draft);
  assert.ok(result.config);
  const plan = planView(new ForkService(store).plan(result.config));
  const needed = toolsNeedingProgram(plan, draft);
  assert.ok(needed.includes('format_currency'), needed.join());
  draft.program = 'node dist/agent.js';
  assert.deepEqual(toolsNeedingProgram(plan, draft), []);
});

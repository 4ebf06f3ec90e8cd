/**
 * The demo's headline question — "what if the user had been an auditor?" —
 * answered by a captured fork of the demo refund run: the plan predicts where
 * it stops, the patched role changes the rendered system prompt, the fork
 * stops exactly there as diverged (not failed), and the same fork in the
 * `recorded` model mode goes on with the recorded outputs under the new prompt.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { runStatusText, type ForkConfig } from '../../../src/model';
import { tmpStore } from '../../helpers/tmp';

const auditorPatch = { user: { roleId: 'auditor', permissions: ['orders:read', 'cases:write'] } };

test('a captured fork of the demo refund run with user.roleId = auditor diverges at the system prompt of step 5', async () => {
  const store = tmpStore();
  writeDemoStore(store);
  const from = store
    .listCheckpoints('demo-support-refund')
    .find((c) => c.stepIndex === 5 && c.boundary === 'before_prompt_build');
  assert.ok(from);
  const config: ForkConfig = {
    sourceRunId: 'demo-support-refund',
    sourceCheckpointId: from.checkpointId,
    contextPatch: auditorPatch,
    toolPolicyMap: { '*': 'reuse_result' },
  };
  const service = new ForkService(store);
  const plan = service.plan(config);
  assert.equal(plan.predictedDivergence?.stepIndex, 5);
  assert.equal(
    plan.predictedDivergence?.message,
    'this edit changes the system prompt at step 5; a captured fork stops there',
  );
  const created = service.create(config);
  assert.match(created.runId, /^demo-support-refund-fork-[0-9a-f]{8}$/, 'fork ids say what they fork');
  const outcome = await runFork(store, created.forkRequestId);
  assert.equal(outcome.status, 'diverged');
  assert.equal(outcome.divergence?.stepIndex, 5);
  assert.equal(outcome.divergence?.field, 'systemPrompt');
  assert.equal(outcome.divergence?.sourceCheckpointId, plan.predictedDivergence?.sourceCheckpointId, 'as predicted');
  assert.match(outcome.divergence?.rendered ?? '', /You act as auditor/);
  const run = store.getRun(created.runId);
  assert.equal(runStatusText(run), 'diverged at step 5 · system prompt');
  assert.equal(store.getForkRequest(created.forkRequestId).status, 'diverged');
  const rendered = store.getCheckpoint(outcome.divergence?.forkCheckpointId ?? '');
  assert.match(rendered.systemPrompt ?? '', /You act as auditor/, "the fork's checkpoint holds the rendered prompt");

  // the same fork without a patch replays to the end, and its plan predicts nothing
  const plainConfig: ForkConfig = { ...config, contextPatch: undefined };
  delete plainConfig.contextPatch;
  assert.equal(service.plan(plainConfig).predictedDivergence, undefined);
  const plain = service.create(plainConfig);
  const replayed = await runFork(store, plain.forkRequestId);
  assert.equal(replayed.status, 'completed', JSON.stringify(replayed.error));
  assert.equal(store.getRun('demo-support-refund').checkpointCount, 48, 'the source run is untouched');
});

test('the recorded model mode goes on with the recorded outputs under the edited context, the tools as the gate decides', async () => {
  const store = tmpStore();
  writeDemoStore(store);
  const from = store
    .listCheckpoints('demo-support-refund')
    .find((c) => c.stepIndex === 5 && c.boundary === 'before_prompt_build');
  assert.ok(from);
  const config: ForkConfig = {
    sourceRunId: 'demo-support-refund',
    sourceCheckpointId: from.checkpointId,
    contextPatch: auditorPatch,
    modelOverride: { mode: 'recorded' },
    toolPolicyMap: { '*': 'reuse_result' },
  };
  const service = new ForkService(store);
  assert.match(service.plan(config).predictedDivergence?.message ?? '', /recorded outputs go on under the new prompt/);
  const created = service.create(config);
  const outcome = await runFork(store, created.forkRequestId);
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.divergence?.stepIndex, 5, 'the first difference is reported');
  const source = store.getRun('demo-support-refund');
  const fork = store.getRun(created.runId);
  const sourceAfter = store.listCheckpoints(source.runId).length - from.index;
  assert.equal(fork.checkpointCount, sourceAfter, 'every recorded checkpoint from the fork point is replayed');
  const prompts = store
    .listCheckpoints(created.runId)
    .filter((c) => c.boundary === 'before_model_call')
    .map((c) => store.getCheckpoint(c.checkpointId).systemPrompt ?? '');
  assert.ok(prompts.length > 0 && prompts.every((p) => /You act as auditor/.test(p)), 'under the edited context');
  assert.ok(
    store.listToolCalls(created.runId).some((t) => t.toolName === 'issue_refund'),
    'the recorded turns ask for the refund; the gate answered it from the recording',
  );
});

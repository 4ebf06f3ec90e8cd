/**
 * The demo's headline question — "what if the user had been an auditor?" —
 * answered by a captured fork of the demo refund run: the patched role changes
 * the rendered system prompt, and the fork stops exactly there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { tmpStore } from '../../helpers/tmp';

test('a captured fork of the demo refund run with user.roleId = auditor diverges at the system prompt of step 5', async () => {
  const store = tmpStore();
  writeDemoStore(store);
  const from = store
    .listCheckpoints('demo-support-refund')
    .find((c) => c.stepIndex === 5 && c.boundary === 'before_prompt_build');
  assert.ok(from);
  const created = new ForkService(store).create({
    sourceRunId: 'demo-support-refund',
    sourceCheckpointId: from.checkpointId,
    contextPatch: { user: { roleId: 'auditor', permissions: ['orders:read', 'cases:write'] } },
    toolPolicyMap: { '*': 'reuse_result' },
  });
  assert.match(created.runId, /^demo-support-refund-fork-[0-9a-f]{8}$/, 'fork ids say what they fork');
  const outcome = await runFork(store, created.forkRequestId);
  assert.equal(outcome.status, 'failed');
  assert.equal(outcome.divergence?.stepIndex, 5);
  assert.equal(outcome.divergence?.field, 'systemPrompt');
  assert.match(outcome.divergence?.rendered ?? '', /You act as auditor/);
  // the same fork without a patch replays to the end
  const plain = new ForkService(store).create({
    sourceRunId: 'demo-support-refund',
    sourceCheckpointId: from.checkpointId,
    toolPolicyMap: { '*': 'reuse_result' },
  });
  const replayed = await runFork(store, plain.forkRequestId);
  assert.equal(replayed.status, 'completed', JSON.stringify(replayed.error));
  assert.equal(store.getRun('demo-support-refund').checkpointCount, 48, 'the source run is untouched');
});

/**
 * The debugger's Replay divergence stop on a real diverged fork: it stops at
 * the fork's own prompt checkpoint (the one that differs) and says where, in
 * the same words as the tree and the CLI ("diverged at step 5 · system
 * prompt"); the transcript header says it too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { BreakpointSet } from '../../../src/replay/breakpoints';
import { ReplayCursor } from '../../../src/replay/replayCursor';
import { RunView } from '../../../src/replay/runView';
import { tmpStore } from '../../helpers/tmp';

test('Replay divergence stops a diverged fork at its own prompt checkpoint and says where it diverged', async () => {
  const store = tmpStore();
  writeDemoStore(store);
  const from = store
    .listCheckpoints('demo-support-refund')
    .find((c) => c.stepIndex === 5 && c.boundary === 'before_prompt_build');
  assert.ok(from);
  const created = new ForkService(store).create({
    sourceRunId: 'demo-support-refund',
    sourceCheckpointId: from.checkpointId,
    contextPatch: { user: { roleId: 'auditor' } },
    toolPolicyMap: { '*': 'reuse_result' },
  });
  const outcome = await runFork(store, created.forkRequestId);
  assert.equal(outcome.status, 'diverged');
  const view = new RunView(store, created.runId);
  assert.equal(view.divergenceCheckpointId, outcome.divergence?.forkCheckpointId);
  const set = new BreakpointSet();
  set.setExceptionFilters(['replayDivergence']);
  const cursor = new ReplayCursor(view.summaries, 0);
  const r = cursor.seek('forward', (i) => set.check(view, i).stop);
  assert.ok(r.stop, 'the filter stops');
  assert.equal(view.summaries[r.index]?.checkpointId, outcome.divergence?.forkCheckpointId);
  assert.match(r.stop.description, /^The run diverged at step 5 · system prompt \(\[\d+\] before_model_call\)$/);
  assert.match(view.transcript().text, /^# run \S+ · agent support-desk · diverged at step 5 · system prompt · fork/);
});

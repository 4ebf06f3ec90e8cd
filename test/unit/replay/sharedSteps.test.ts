/**
 * Comparing a fork with its source reads only the steps the fork made: the steps it inherited are built from the
 * checkpoints' summaries and the calls' marks. The comparison a user reads (`ocdb diff`, compare_runs) is the same
 * as when every step is read whole; only the diff editor's two sides ask for the inherited steps' text. On a late
 * fork of a long run the number of checkpoints and calls read does not grow with the run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { compareRuns } from '../../../src/replay/runComparison';
import { comparisonSummary } from '../../../src/replay/comparisonText';
import { openRunStore, type RunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';
import { writeLongRun } from '../mcp/longRun';

/** The store with its whole-checkpoint and whole-call reads counted. */
function counted(store: RunStore): { store: RunStore; reads: { checkpoints: number; calls: number } } {
  const reads = { checkpoints: 0, calls: 0 };
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (key === 'getCheckpointView' || key === 'getCheckpoint' || key === 'getLastMessage') reads.checkpoints++;
        if (key === 'getToolCall') reads.calls++;
        if (key === 'listToolCalls') reads.calls += 1_000_000; // every record whole: what must not happen
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, reads };
}

describe('the comparison reads only the steps that can differ', () => {
  const dir = tmpDir('ocdb-shared-steps-');
  let store: RunStore;
  before(() => {
    store = openRunStore(join(dir, 'runs.db'));
    writeDemoStore(store);
  });
  after(() => store.close());

  it('says the same of the refund run and its auditor fork as a comparison that reads every step', () => {
    const whole = compareRuns(store, 'demo-support-refund', 'demo-support-refund-auditor', { sharedSteps: 'whole' });
    const c = counted(store);
    const light = compareRuns(c.store, 'demo-support-refund', 'demo-support-refund-auditor');
    assert.deepEqual(comparisonSummary(light), comparisonSummary(whole));
    assert.deepEqual(light.firstDivergence, whole.firstDivergence);
    assert.deepEqual(light.contextChanges, whole.contextChanges);
    assert.deepEqual(light.tools, whole.tools);
    assert.deepEqual(
      light.steps.map((s) => [s.stepIndex, s.inherited, s.same, s.differences]),
      whole.steps.map((s) => [s.stepIndex, s.inherited, s.same, s.differences]),
    );
    // the fork's own steps whole, its inherited steps 0-4 as they were recorded: same tokens, calls and states
    for (const [i, s] of light.steps.entries()) {
      const w = whole.steps[i];
      assert.equal(s.left?.tokens, w?.left?.tokens);
      assert.deepEqual(
        s.right?.toolCalls.map((t) => [t.toolName, t.outcome]),
        w?.right?.toolCalls.map((t) => [t.toolName, t.outcome]),
      );
      if (!s.inherited) assert.deepEqual(s, w);
    }
    const inherited = light.steps.filter((s) => s.inherited).length;
    assert.equal(inherited, 5);
  });

  it('reads a late fork of a 2,000-step run by its own steps only', async () => {
    writeLongRun(store, 'long', 2_000);
    const service = new ForkService(store);
    const [at] = store.listCheckpoints('long', { offset: 7_990, limit: 1 });
    assert.ok(at);
    const fork = service.create({
      sourceRunId: 'long',
      sourceCheckpointId: at.checkpointId,
      modelOverride: { mode: 'captured' },
    });
    await runFork(store, fork.forkRequestId);
    const c = counted(store);
    const light = compareRuns(c.store, 'long', fork.runId);
    assert.equal(light.forkPoint?.checkpointIndex, 7_990);
    assert.equal(light.steps.length, 2_000);
    assert.equal(light.steps.filter((s) => s.inherited).length, 1_997);
    // three steps on each side, a context for the step before the fork's first, and each of their calls
    assert.ok(c.reads.checkpoints <= 20, `read ${c.reads.checkpoints} checkpoints`);
    assert.ok(c.reads.calls <= 10, `read ${c.reads.calls} calls whole`);
    assert.equal(light.left.toolCalls, 2_000);
    assert.equal(light.right.toolCalls, 2_000);
  });
});

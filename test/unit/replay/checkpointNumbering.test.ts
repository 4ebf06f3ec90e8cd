/**
 * One numbering of checkpoints: the demo's checkpoint ids hold the index every view shows (`[37]` is `…-cp037`,
 * not `cp038`). The texts naming a checkpoint by its index write `[37]` too (describeDivergence.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDemoStore } from './demoStore';

describe('checkpoint numbering', () => {
  it('a demo checkpoint id ends in the index the transcript and the tree show', () => {
    const store = openDemoStore();
    try {
      const runs = store.listRuns({ limit: 100 }).runs;
      assert.ok(runs.length >= 7);
      for (const run of runs.filter((r) => r.mode !== 'fork')) {
        for (const c of store.listCheckpoints(run.runId)) {
          assert.ok(
            c.checkpointId.endsWith(`-cp${String(c.index).padStart(3, '0')}`),
            `[${c.index}] ${c.checkpointId}`,
          );
        }
      }
    } finally {
      store.close();
    }
  });
});

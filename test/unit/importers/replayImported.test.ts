/**
 * A captured replay (the fork helper's runner) of every imported run — Claude
 * Code run, rewound fork and subagent, the real transcript, OpenAI, Vercel
 * and OTLP runs — reproduces it with no divergence.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { FIXTURES, tempStore, type TempStore } from './helpers';

describe('captured replay of imported runs', () => {
  let t: TempStore;
  let runIds: string[] = [];
  before(async () => {
    t = tempStore();
    runIds = (await importPath(t.store, FIXTURES)).runIds;
  });
  after(() => t.close());

  it('replays every imported run without divergence', async () => {
    assert.equal(runIds.length, 7);
    for (const runId of runIds) {
      const created = new ForkService(t.store).createReplay(runId, { captured: true });
      const outcome = await runFork(t.store, created.forkRequestId);
      assert.equal(outcome.divergence, undefined, `${runId}: ${JSON.stringify(outcome.divergence)}`);
      assert.equal(outcome.status, 'completed', `${runId}: ${JSON.stringify(outcome.error)}`);
      const source = t.store.getRun(runId);
      const replay = t.store.getRun(outcome.runId);
      assert.equal(replay.toolCallCount, source.toolCallCount, runId);
    }
  });
});

/** A captured replay of an imported run reproduces it with no divergence (the fork helper's runner). */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { ForkService } from '../../../src/replay/forkService';
import { runFork } from '../../../src/replay/runner';
import { FIXTURES, REAL_FILE, SESSION_FILE, tempStore, type TempStore } from './helpers';

describe('captured replay of imported runs', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  for (const file of [
    SESSION_FILE,
    REAL_FILE,
    path.join(FIXTURES, 'openai', 'umbrella-agent.jsonl'),
    path.join(FIXTURES, 'otel', 'travel-booker.otlp.json'),
  ]) {
    it(`replays ${path.basename(file)} without divergence`, async () => {
      const summary = await importPath(t.store, file);
      const runId = summary.runIds[0] as string;
      const created = new ForkService(t.store).createReplay(runId, { captured: true });
      const outcome = await runFork(t.store, created.forkRequestId);
      assert.equal(outcome.divergence, undefined, JSON.stringify(outcome.divergence));
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      const source = t.store.getRun(runId);
      const replay = t.store.getRun(outcome.runId);
      assert.equal(replay.toolCallCount, source.toolCallCount);
    });
  }
});

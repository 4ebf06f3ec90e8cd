/**
 * Every run imported from every fixture exports (and the export loads back
 * into another store with the same checkpoints), and a captured replay (the
 * fork helper's runner) reproduces it with no divergence.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importPath, listTraceFiles } from '../../../src/importers';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { FIXTURES, tempStore, type TempStore } from './helpers';

describe('captured replay of imported runs', () => {
  let t: TempStore;
  let runIds: string[] = [];
  before(async () => {
    t = tempStore();
    const summary = await importPath(t.store, FIXTURES);
    assert.deepEqual(
      summary.files.filter((f) => f.outcome !== 'imported').map((f) => [f.file, f.reason]),
      [],
      'every fixture imports',
    );
    assert.equal(summary.imported, listTraceFiles(FIXTURES).length);
    runIds = summary.runIds;
  });
  after(() => t.close());

  it('exports every imported run, and the export loads into a fresh store', () => {
    const other = tempStore();
    try {
      for (const runId of runIds) {
        const exported = JSON.parse(JSON.stringify(t.store.exportRun(runId))) as unknown;
        other.store.loadRun(exported, { where: runId });
        assert.equal(other.store.getRun(runId).checkpointCount, t.store.getRun(runId).checkpointCount, runId);
      }
    } finally {
      other.close();
    }
  });

  it('replays every imported run without divergence', async () => {
    for (const runId of runIds) {
      const created = new ForkService(t.store).createReplay(runId, { captured: true });
      const outcome = await runFork(t.store, created.forkRequestId);
      assert.equal(outcome.divergence, undefined, `${runId}: ${JSON.stringify(outcome.divergence)}`);
      const source = t.store.getRun(runId);
      // The replay ends the way the recording did (a trimmed transcript that stops mid-call ends cancelled).
      assert.equal(outcome.status, source.status, `${runId}: ${JSON.stringify(outcome.error)}`);
      assert.notEqual(outcome.status, 'failed', `${runId}: ${JSON.stringify(outcome.error)}`);
      const replay = t.store.getRun(outcome.runId);
      assert.equal(replay.toolCallCount, source.toolCallCount, runId);
    }
  });
});

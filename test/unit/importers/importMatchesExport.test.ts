/**
 * What an import wrote is what its export says (the write path got cheaper; the store must not
 * drift): for every run imported from every fixture, each checkpoint read from the store — whole and as a view —
 * and each tool call equal the export's, and the export loaded into another store exports byte for byte the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { FIXTURES, tempStore, type TempStore } from './helpers';

describe('an imported store matches its export', () => {
  let t: TempStore;
  let runIds: string[] = [];
  before(async () => {
    t = tempStore();
    runIds = (await importPath(t.store, FIXTURES)).runIds;
    assert.ok(runIds.length > 5);
  });
  after(() => t.close());

  it('reads every checkpoint and tool call as the export has them', () => {
    for (const runId of runIds) {
      const exported = t.store.exportRun(runId);
      const ids = t.store.listCheckpoints(runId).map((c) => c.checkpointId);
      assert.deepEqual(
        ids.map((id) => t.store.getCheckpoint(id)),
        exported.checkpoints,
        `${runId}: checkpoints`,
      );
      assert.deepEqual(
        ids.map((id) => JSON.parse(JSON.stringify(t.store.getCheckpointView(id))) as unknown),
        JSON.parse(JSON.stringify(exported.checkpoints)),
        `${runId}: checkpoint views`,
      );
      assert.deepEqual(t.store.listToolCalls(runId), exported.toolLedger, `${runId}: tool calls`);
    }
  });

  it('exports the same bytes after the export is loaded into another store', () => {
    const other = tempStore();
    try {
      for (const runId of runIds) {
        const text = JSON.stringify(t.store.exportRun(runId));
        other.store.loadRun(JSON.parse(text), { where: runId });
        assert.equal(JSON.stringify(other.store.exportRun(runId)), text, runId);
      }
    } finally {
      other.close();
    }
  });
});

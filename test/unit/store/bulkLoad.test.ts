/**
 * Many DebugRuns loaded in one transaction (`transaction` around `loadRun`), the scale bench's seeding path
 * (test/bench/scaleSeed.ts): the store holds exactly the runs loaded (each copy exports as the template under its
 * new ids), checks out, keeps a fork under its parent, and a refusal in the middle of a batch leaves nothing of it.
 */
import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import { openRunStore } from '../../../src/store';
import { copyRunId, copyText, loadCopies, runsPerCopy, tokensOf } from '../../bench/scaleSeed';
import { recordTemplates, type TemplateFamily } from '../../bench/scaleTemplates';
import { tmpLocation } from '../../helpers/engines';

let families: TemplateFamily[] = [];
before(async () => {
  families = await recordTemplates(10);
});

test('copies loaded in one transaction export as their templates under new ids, and the store checks out', () => {
  const store = openRunStore(tmpLocation());
  try {
    loadCopies(store, families, 0, 3);
    assert.equal(store.listRuns({ limit: 1 }).total, 3 * runsPerCopy(families));
    assert.equal(store.integrityCheck(), 'ok');
    families.forEach((family, f) => {
      const tokens = tokensOf(family, f);
      family.runIds.forEach((_, i) => {
        const id = copyRunId(2, f, i);
        const expected: unknown = JSON.parse(copyText(family.texts[i] as string, tokens, 2));
        assert.deepEqual(store.exportRun(id), expected, `copy 2 of ${family.runIds[i]}`);
      });
    });
    // a copy's content is its own: its id is in its first message, not the template's
    const first = store.getCheckpointAt(copyRunId(1, 0), 0).messages[0];
    assert.match(JSON.stringify(first), /s000001f0/);
    assert.doesNotMatch(JSON.stringify(first), /tplrun0x/);
    const forked = families.findIndex((f) => f.runIds.length > 1);
    assert.deepEqual(
      store.listRuns({ parentRunId: copyRunId(1, forked) }).runs.map((r) => r.runId),
      [copyRunId(1, forked, 1)],
    );
  } finally {
    store.close();
  }
});

test('a refused run in the middle of a batch leaves nothing of the batch in the store', () => {
  const store = openRunStore(tmpLocation());
  try {
    loadCopies(store, families, 1, 2);
    const before = store.listRuns({ limit: 1 }).total;
    // copies 0..2 in one transaction: copy 1 is already there, so the whole batch is refused
    assert.throws(() => loadCopies(store, families, 0, 3), /RunAlreadyExists|already in/);
    assert.equal(store.listRuns({ limit: 1 }).total, before);
    assert.equal(store.hasRun(copyRunId(0, 0)), false);
    assert.equal(store.integrityCheck(), 'ok');
  } finally {
    store.close();
  }
});

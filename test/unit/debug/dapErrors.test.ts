/** DAP error ids: one per error code, unique, and the numbers clients saw before the ids were named. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAP_ERROR_IDS, dapErrorId, toDapError } from '../../../src/debug/dapErrors';
import { ERROR_CODES, OcdbError } from '../../../src/model';

describe('DAP error ids', () => {
  it('every error code has an id, and no two codes share one', () => {
    for (const code of ERROR_CODES) assert.equal(typeof DAP_ERROR_IDS[code], 'number', code);
    const ids = Object.values(DAP_ERROR_IDS);
    assert.equal(new Set(ids).size, ids.length, `duplicate DAP error ids: ${ids.join(', ')}`);
    assert.ok(
      ids.every((id) => Number.isInteger(id) && id >= 1000),
      'ids are integers from 1000',
    );
  });

  it('keep the numbers of the codes that existed when ids were positional (1000 + position)', () => {
    assert.equal(dapErrorId('InvalidInput'), 1000);
    assert.equal(dapErrorId('RunNotFound'), 1001);
    assert.equal(dapErrorId('CheckpointNotFound'), 1004);
    assert.equal(dapErrorId('ForkRejected'), 1011);
    assert.equal(dapErrorId('Internal'), 1022);
  });

  it('an error response carries the id of its code', () => {
    assert.equal(toDapError(new OcdbError('ForkRejected', 'no'), 'fork').id, 1011);
    assert.equal(toDapError(new Error('boom'), 'fork').id, DAP_ERROR_IDS.Internal);
  });
});

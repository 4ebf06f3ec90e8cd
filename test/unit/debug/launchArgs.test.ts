import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseLaunchArgs } from '../../../src/debug/launchArgs';
import { dapErrorId, toDapError } from '../../../src/debug/dapErrors';
import { OcdbError, isOcdbError } from '../../../src/model';

describe('launch arguments', () => {
  it('defaults stopOnEntry and resolves the store like the CLI', () => {
    const a = parseLaunchArgs({ runId: 'r1' }, {}, '/work');
    assert.equal(a.stopOnEntry, true);
    assert.equal(a.storePath, path.join('/work', '.ocdb', 'runs.db'));
    assert.equal(parseLaunchArgs({ runId: 'r1' }, { OCDB_STORE: 'x.db' }, '/work').storePath, '/work/x.db');
    assert.equal(
      parseLaunchArgs({ runId: 'r1', store: '/s/runs.db' }, { OCDB_STORE: 'x.db' }, '/w').storePath,
      '/s/runs.db',
    );
  });

  it('names the field that is wrong', () => {
    assert.throws(
      () => parseLaunchArgs({}, {}, '/'),
      (e: unknown) => isOcdbError(e, 'InvalidInput') && /runId/.test(e.message),
    );
    assert.throws(
      () => parseLaunchArgs({ runId: 'r', stopOnEntry: 'yes' }, {}, '/'),
      (e: unknown) => isOcdbError(e, 'InvalidInput') && /stopOnEntry/.test(e.message),
    );
  });
});

describe('DAP errors', () => {
  it('keep the OcdbError code as a stable id and the message verbatim', () => {
    const e = toDapError(new OcdbError('RunNotFound', 'No run no-such-run in /x/runs.db. {hint}'), 'launch');
    assert.equal(e.id, dapErrorId('RunNotFound'));
    assert.equal(e.format, 'No run no-such-run in /x/runs.db. {hint}');
    assert.equal(e.showUser, true);
    const internal = toDapError(new TypeError('boom'), 'variables');
    assert.equal(internal.code, 'Internal');
    assert.match(internal.format, /variables failed: boom/);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hazardOf, openHazards, resolvePolicy } from '../../../src/model';

test('a named tool beats *, which beats the recorded policy', () => {
  assert.deepEqual(resolvePolicy('search', 'reuse_result', undefined), { policy: 'reuse_result', source: 'recorded' });
  assert.deepEqual(resolvePolicy('search', 'reuse_result', { '*': 'mock_result' }), {
    policy: 'mock_result',
    source: 'wildcard',
  });
  assert.deepEqual(resolvePolicy('search', 'reuse_result', { '*': 'mock_result', search: 're_execute' }), {
    policy: 're_execute',
    source: 'named',
  });
  assert.deepEqual(resolvePolicy('toString', 'reuse_result', {}), { policy: 'reuse_result', source: 'recorded' });
});

test("re-executing write/irreversible tools is a hazard; '*' can never unlock an irreversible one", () => {
  assert.equal(hazardOf('search', 'read_only', { policy: 're_execute', source: 'wildcard' }), undefined);
  assert.equal(hazardOf('save', 'write', { policy: 'reuse_result', source: 'named' }), undefined);
  const write = hazardOf('save', 'write', { policy: 're_execute', source: 'wildcard' });
  assert.ok(write?.unlockable);
  const viaStar = hazardOf('refund', 'external_irreversible', { policy: 're_execute', source: 'wildcard' });
  assert.equal(viaStar?.unlockable, false);
  const named = hazardOf('refund', 'external_irreversible', { policy: 'manual_confirm', source: 'named' });
  assert.equal(named?.unlockable, true);
  assert.deepEqual(
    openHazards([write!, viaStar!, named!], ['save', 'refund']).map((h) => h.toolName),
    ['refund'],
    'acknowledging does not unlock the * one',
  );
  assert.deepEqual(
    openHazards([write!, named!], ['save']).map((h) => h.toolName),
    ['refund'],
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OcdbError, applyContextPatch, deepMerge } from '../../../src/model';
import { testContext } from '../../helpers/context';

test('objects merge recursively, arrays and scalars replace, null removes', () => {
  const base = { a: { b: 1, c: [1, 2], d: { e: 'x' } }, f: 'keep', g: 'drop' };
  const merged = deepMerge(base, { a: { b: 2, c: [9], d: { n: 1 } }, g: null, h: true });
  assert.deepEqual(merged, { a: { b: 2, c: [9], d: { e: 'x', n: 1 } }, f: 'keep', h: true });
  assert.deepEqual(base, { a: { b: 1, c: [1, 2], d: { e: 'x' } }, f: 'keep', g: 'drop' }, 'input untouched');
});

test('a context patch must leave a valid runtime context', () => {
  const ctx = testContext();
  const patched = applyContextPatch(ctx, {
    user: { roleId: 'auditor', permissions: ['audit'] },
    project: { reportId: 'R-7' },
  });
  assert.equal(patched.user.roleId, 'auditor');
  assert.equal(patched.user.userId, 'u-1');
  assert.deepEqual(patched.user.permissions, ['audit']);
  assert.equal(patched.project.reportId, 'R-7');
  assert.equal(ctx.user.roleId, 'analyst');
  assert.throws(
    () => applyContextPatch(ctx, { user: { roleId: null } }),
    (e: unknown) => e instanceof OcdbError && e.code === 'InvalidInput' && /user\.roleId/.test(e.message),
  );
  assert.throws(() => applyContextPatch(ctx, { task: { stepStates: 'done' } }), /task\.stepStates/);
});

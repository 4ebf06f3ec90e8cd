import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseEditedValue, patchFor, stageEdit } from '../../../src/debug/stagedEdits';
import { isOcdbError, type RuntimeContextSnapshot } from '../../../src/model';

const ctx: RuntimeContextSnapshot = {
  user: { userId: 'u-1', roleId: 'support_agent', permissions: ['orders:read', 'refunds:issue'] },
  conversation: { sessionId: 's-1' },
  project: { projectId: 'p-1' },
  task: { taskId: 't-1', workflowId: 'w-1', stepStates: {} },
  tools: { availableTools: ['a'] },
  model: { provider: 'openai', model: 'gpt-4.1-mini', promptVersion: 'v3' },
};
const at = { runId: 'r', checkpointId: 'cp-1', context: ctx };

describe('staged context edits', () => {
  it('parses JSON, else keeps the text', () => {
    assert.equal(parseEditedValue('"auditor"'), 'auditor');
    assert.equal(parseEditedValue('auditor'), 'auditor');
    assert.deepEqual(parseEditedValue('[1, 2]'), [1, 2]);
  });

  it('builds nested patches and patches arrays whole', () => {
    assert.deepEqual(patchFor(ctx, ['user', 'roleId'], 'auditor'), { user: { roleId: 'auditor' } });
    assert.deepEqual(patchFor(ctx, ['user', 'permissions', 1], 'refunds:none'), {
      user: { permissions: ['orders:read', 'refunds:none'] },
    });
  });

  it('accumulates edits at one checkpoint; another checkpoint starts over', () => {
    let s = stageEdit(undefined, at, ['user', 'roleId'], 'auditor');
    s = stageEdit(s, at, ['project', 'region'], 'us');
    assert.deepEqual(s.contextPatch, { user: { roleId: 'auditor' }, project: { region: 'us' } });
    const other = stageEdit(s, { ...at, checkpointId: 'cp-2' }, ['user', 'userId'], 'u-2');
    assert.deepEqual(other.contextPatch, { user: { userId: 'u-2' } });
  });

  it('refuses a value of the wrong type, naming the field', () => {
    assert.throws(
      () => stageEdit(undefined, at, ['user', 'roleId'], 42),
      (e: unknown) => isOcdbError(e, 'InvalidInput') && /user\.roleId/.test(e.message),
    );
  });
});

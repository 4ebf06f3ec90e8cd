/** ForkService: plan (policies, merged context, hazards) and create (rejection, fork run, first checkpoint, request record). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { isOcdbError, type Hazard } from '../../../src/model';
import { ForkService } from '../../../src/fork/forkService';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { recordSupportRun } from './supportRun';
import { tmpLocation } from '../../helpers/engines';

let dir: string;
let store: SqlRunStore;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-fork-'));
  store = openRunStore(tmpLocation());
  await recordSupportRun(store, 'src');
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function checkpointAt(boundary: string, step: number): string {
  const cp = store.listCheckpoints('src').find((c) => c.boundary === boundary && c.stepIndex === step);
  assert.ok(cp, `no ${boundary} at step ${step}`);
  return cp.checkpointId;
}

describe('ForkService.plan', () => {
  it('lists every tool with its effective policy and source, and the merged context', () => {
    const service = new ForkService(store);
    const plan = service.plan({
      sourceRunId: 'src',
      sourceCheckpointId: checkpointAt('before_model_call', 2),
      contextPatch: { user: { roleId: 'auditor' } },
      toolPolicyMap: { '*': 'reuse_result', search_kb: 'mock_result' },
      toolMockResults: { search_kb: [] },
    });
    const byName = Object.fromEntries(plan.tools.map((t) => [t.toolName, t]));
    assert.deepEqual(Object.keys(byName).sort(), [
      'get_exchange_rate',
      'issue_refund',
      'lookup_customer',
      'lookup_order',
      'search_kb',
      'send_email',
      'write_case_report',
    ]);
    assert.equal(byName.search_kb?.policy, 'mock_result');
    assert.equal(byName.search_kb?.source, 'named');
    assert.equal(byName.issue_refund?.policy, 'reuse_result');
    assert.equal(byName.issue_refund?.source, 'wildcard');
    assert.equal(byName.issue_refund?.recordedPolicy, 'forbid_replay');
    assert.equal(byName.get_exchange_rate?.recordedCalls, 2);
    assert.equal(plan.runtimeContext.user.roleId, 'auditor');
    assert.deepEqual(plan.runtimeContext.user.permissions, ['refund:issue', 'email:send']);
    assert.deepEqual(plan.changedPaths, ['user.roleId']);
    assert.deepEqual(plan.hazards, []);
  });

  it('reports hazards for write and irreversible tools that would re-execute', () => {
    const plan = new ForkService(store).plan({
      sourceRunId: 'src',
      sourceCheckpointId: checkpointAt('before_model_call', 0),
      toolPolicyMap: { '*': 're_execute' },
    });
    const hazards = new Map(plan.hazards.map((h) => [h.toolName, h]));
    assert.deepEqual([...hazards.keys()].sort(), ['issue_refund', 'send_email', 'write_case_report']);
    assert.equal(hazards.get('issue_refund')?.unlockable, false);
    assert.equal(hazards.get('write_case_report')?.unlockable, true);
  });

  it('names the field when the patched context is invalid', () => {
    assert.throws(
      () =>
        new ForkService(store).plan({
          sourceRunId: 'src',
          sourceCheckpointId: checkpointAt('before_model_call', 0),
          contextPatch: { user: { roleId: 42 } },
        }),
      (e: unknown) => isOcdbError(e, 'InvalidInput') && e.message.includes('user.roleId'),
    );
  });

  it('refuses a checkpoint of another run', async () => {
    await recordSupportRun(store, 'other');
    const foreign = store.listCheckpoints('other')[3]?.checkpointId ?? '';
    assert.throws(
      () => new ForkService(store).plan({ sourceRunId: 'src', sourceCheckpointId: foreign }),
      (e: unknown) => isOcdbError(e, 'CheckpointNotFound') && e.message.includes('belongs to run other'),
    );
  });
});

describe('ForkService.create', () => {
  it("rejects '*': re_execute naming the irreversible tools, even when acknowledged", () => {
    const service = new ForkService(store);
    const config = {
      sourceRunId: 'src',
      sourceCheckpointId: checkpointAt('before_model_call', 1),
      toolPolicyMap: { '*': 're_execute' as const },
    };
    const before = store.listRuns().total;
    assert.throws(
      () => service.create(config, ['issue_refund', 'send_email', 'write_case_report']),
      (e: unknown) => {
        assert.ok(isOcdbError(e, 'ForkRejected'));
        const names = (e.details.hazards as Hazard[]).map((h) => h.toolName).sort();
        assert.deepEqual(names, ['issue_refund', 'send_email']);
        assert.match(e.message, /issue_refund/);
        return true;
      },
    );
    assert.equal(store.listRuns().total, before, 'a rejected fork writes nothing');
  });

  it('accepts a named, acknowledged irreversible tool', () => {
    const service = new ForkService(store);
    const created = service.create(
      {
        sourceRunId: 'src',
        sourceCheckpointId: checkpointAt('before_model_call', 1),
        toolPolicyMap: { '*': 'reuse_result', send_email: 're_execute' },
      },
      ['send_email'],
    );
    assert.equal(store.getRun(created.runId).mode, 'fork');
  });

  it('creates the fork run from the patched checkpoint and leaves the source untouched', () => {
    const service = new ForkService(store);
    const sourceCp = checkpointAt('before_model_call', 3);
    const sourceBefore = store.exportRun('src');
    const created = service.create({
      sourceRunId: 'src',
      sourceCheckpointId: sourceCp,
      contextPatch: { user: { roleId: 'auditor' } },
      modelOverride: { mode: 'override', provider: 'local', model: 'llama-3.1-8b' },
      promptVersionOverride: 'v4',
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const run = store.getRun(created.runId);
    assert.equal(run.mode, 'fork');
    assert.equal(run.parentRunId, 'src');
    assert.equal(run.forkFromCheckpointId, sourceCp);
    assert.equal(run.status, 'running');
    assert.equal(run.crashed, false, 'a fork waiting for its runner is not shown as crashed');
    const first = store.getCheckpointAt(created.runId, 0);
    const source = store.getCheckpoint(sourceCp);
    assert.equal(first.runtimeContext.user.roleId, 'auditor');
    assert.equal(first.runtimeContext.model.promptVersion, 'v4');
    assert.equal(first.promptVersion, 'v4');
    assert.deepEqual(first.model, { provider: 'local', model: 'llama-3.1-8b', temperature: 0 });
    assert.deepEqual(first.messages, source.messages);
    assert.equal(first.boundary, source.boundary);
    assert.equal(first.stepIndex, source.stepIndex);
    const request = service.getRequest(created.forkRequestId);
    assert.equal(request.status, 'pending');
    assert.equal(request.forkRunId, created.runId);
    assert.deepEqual(store.exportRun('src'), sourceBefore);
  });

  it('moves the fork request through its states', () => {
    const service = new ForkService(store);
    const { forkRequestId } = service.create({
      sourceRunId: 'src',
      sourceCheckpointId: checkpointAt('before_model_call', 0),
      toolPolicyMap: { '*': 'reuse_result' },
    });
    service.setStatus(forkRequestId, 'running');
    assert.equal(service.getRequest(forkRequestId).status, 'running');
    service.setStatus(forkRequestId, 'failed', { code: 'diverged' });
    assert.deepEqual(service.getRequest(forkRequestId).error, { code: 'diverged' });
  });
});

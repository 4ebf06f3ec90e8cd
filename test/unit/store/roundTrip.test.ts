import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { OcdbError } from '../../../src/model';
import { openRunStore } from '../../../src/store';
import { tmpLocation } from '../../helpers/engines';
import { tmpStore } from '../../helpers/tmp';

test('export -> load into a fresh store -> export is identical for every demo run', () => {
  const a = tmpStore();
  const ids = writeDemoStore(a);
  assert.equal(ids.length, 7);
  const b = tmpStore();
  for (const id of ids) {
    const first = a.exportRun(id);
    b.loadRun(JSON.parse(JSON.stringify(first)));
    const second = b.exportRun(id);
    assert.equal(JSON.stringify(second), JSON.stringify(first), `run ${id} changed in the round trip`);
  }
  assert.equal(b.listRuns().total, 7);
});

test('the demo store has what every later feature relies on', () => {
  const store = tmpStore();
  writeDemoStore(store);
  const runs = store.listRuns().runs;
  const agents = new Set(runs.map((r) => r.agentId));
  assert.ok(agents.size >= 3);
  const longest = runs.reduce((x, y) => (y.checkpointCount > x.checkpointCount ? y : x));
  assert.ok(longest.checkpointCount >= 40 && longest.stepCount >= 8, 'one run of 40+ checkpoints over 8+ steps');
  const ledger = runs.flatMap((r) => store.listToolCalls(r.runId));
  for (const level of ['none', 'read_only', 'expensive_read', 'write', 'external_irreversible']) {
    assert.ok(
      ledger.some((t) => t.sideEffectLevel === level),
      `side-effect level ${level}`,
    );
  }
  for (const policy of ['reuse_result', 're_execute', 'mock_result', 'manual_confirm', 'forbid_replay']) {
    assert.ok(
      ledger.some((t) => t.replayPolicy === policy),
      `replay policy ${policy}`,
    );
  }
  assert.ok(
    ledger.some((t) => t.error !== undefined),
    'a tool error',
  );
  assert.ok(runs.some((r) => r.status === 'failed'));
  assert.ok(runs.some((r) => r.status === 'cancelled'));
  assert.ok(runs.some((r) => r.crashed && r.status === 'running'));
  const fork = runs.find((r) => r.mode === 'fork');
  assert.ok(fork?.parentRunId && fork.forkFromCheckpointId);
  const first = store.getCheckpointAt(fork.runId, 0);
  const source = store.getCheckpoint(fork.forkFromCheckpointId);
  assert.notEqual(first.runtimeContext.user.roleId, source.runtimeContext.user.roleId, 'patched context');
  assert.deepEqual(first.messages, source.messages, 'the fork starts from the source conversation');
});

test('loading invalid JSON names the field path and leaves the store unchanged', () => {
  const store = tmpStore();
  writeDemoStore(store);
  const run = store.exportRun('demo-coding-fix');
  const before = store.listRuns().total;
  const seq = store.changeSeq();
  const bad = structuredClone(run) as unknown as { runId: string; checkpoints: { boundary: string }[] };
  bad.runId = 'copy-of-coding-fix';
  (bad.checkpoints[3] as { boundary: string }).boundary = 'before_lunch';
  assert.throws(
    () => store.loadRun(bad, { where: 'bad.json' }),
    (e: unknown) =>
      e instanceof OcdbError && e.code === 'InvalidInput' && /bad\.json: checkpoints\[3\]\.boundary/.test(e.message),
  );
  assert.equal(store.listRuns().total, before);
  assert.equal(store.changeSeq(), seq);
  assert.throws(
    () => store.loadRun(run),
    (e: unknown) => e instanceof OcdbError && e.code === 'RunAlreadyExists',
  );
});

test('a failing write inside a transaction leaves nothing behind', () => {
  const store = tmpStore();
  writeDemoStore(store);
  const run = store.exportRun('demo-research-rag');
  run.runId = 'dup';
  for (const cp of run.checkpoints) cp.runId = 'dup';
  // checkpoint ids collide with the original run's: the load must fail whole
  assert.throws(
    () => store.loadRun(run),
    /checkpoints\[0\]\.checkpointId: .* is already a checkpoint of run demo-research-rag/,
  );
  assert.equal(store.hasRun('dup'), false);
  assert.equal(store.listRuns().total, 7);
});

test('deleting a run removes its rows and the blobs only it used, and reports the deletion to watchers', () => {
  const store = openRunStore(tmpLocation());
  try {
    writeDemoStore(store);
    const seq = store.changeSeq();
    const before = store.contentBytes();
    store.deleteRun('demo-coding-fix');
    const after = store.contentBytes();
    assert.ok(after.blobBytes < before.blobBytes);
    assert.equal(store.hasRun('demo-coding-fix'), false);
    assert.throws(
      () => store.getRun('demo-coding-fix'),
      (e: unknown) => e instanceof OcdbError && e.code === 'RunNotFound',
    );
    const changes = store.changesSince(seq);
    assert.deepEqual(changes.deletedRunIds, ['demo-coding-fix']);
    // the other runs still read back whole
    for (const r of store.listRuns().runs) assert.equal(store.exportRun(r.runId).checkpoints.length, r.checkpointCount);
    assert.equal(store.integrityCheck(), 'ok');
  } finally {
    store.close();
  }
});

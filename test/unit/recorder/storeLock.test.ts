/**
 * A transient lock does not end a recording: another process holds the
 * store's write lock past the busy timeout, the recorder tries the write again
 * and goes on; only a lock that outlasts the retries gives up (StoreLocked,
 * as media/docs/recording.md, "When the store fails under a running agent", says).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { isOcdbError } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpDir } from '../../helpers/tmp';

/** Another process that takes the write lock of `file` and holds it for `ms`; resolves once it holds it. */
async function holdLock(file: string, ms: number): Promise<{ released: Promise<void> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return { released };
}

test('a write that meets a lock held past the busy timeout is retried and recording goes on', async () => {
  const file = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(file, { busyTimeoutMs: 200 });
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
  run.checkpoint('before_prompt_build');
  const { released } = await holdLock(file, 700); // longer than one busy timeout, shorter than the retries
  run.checkpoint('before_model_call');
  await released;
  run.checkpoint('after_model_call');
  run.end();
  recorder.close();
  assert.deepEqual(
    store.listCheckpoints(run.runId).map((c) => c.boundary),
    ['before_prompt_build', 'before_model_call', 'after_model_call', 'agent_end'],
  );
  store.close();
});

test('a lock that outlasts the retries gives up with StoreLocked', async () => {
  const file = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(file, { busyTimeoutMs: 100 });
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, storeLockRetries: 1 });
  const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
  const { released } = await holdLock(file, 2000);
  assert.throws(
    () => run.checkpoint('before_prompt_build'),
    (e) => isOcdbError(e, 'StoreLocked'),
  );
  await released;
  recorder.close();
  store.close();
});

test("startRun waits out a lock held past the busy timeout, as a checkpoint's write does", async () => {
  const file = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(file, { busyTimeoutMs: 200 });
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const { released } = await holdLock(file, 700); // longer than one busy timeout, shorter than the retries
  const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
  await released;
  run.end();
  recorder.close();
  assert.equal(store.getRun(run.runId).status, 'completed');
  store.close();
});

test("startRun under a lock that outlasts the retries, with onStoreError 'disable': onError once, the agent goes on unrecorded", async () => {
  const file = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(file, { busyTimeoutMs: 100 });
  const errors: string[] = [];
  const recorder = openRecorder({
    runStore: store,
    heartbeatMs: 0,
    storeLockRetries: 1,
    onStoreError: 'disable',
    onError: (e) => errors.push(e.code),
  });
  const { released } = await holdLock(file, 2000);
  const run = recorder.startRun({
    agentId: 'a',
    runtimeContext: testContext({ user: { userId: 'u-1', roleId: 'r1', permissions: [] } }),
  });
  assert.deepEqual(errors, ['StoreLocked']);
  // the agent reads its state and records as usual; nothing reaches the store and nothing throws
  assert.equal(run.runtimeContext.user.roleId, 'r1');
  run.checkpoint('before_prompt_build');
  run.end();
  await released;
  recorder.close();
  assert.deepEqual(errors, ['StoreLocked'], 'reported once');
  assert.equal(store.hasRun(run.runId), false);
  store.close();
});

test("startRun under a lock that outlasts the retries, with onStoreError 'throw': StoreLocked", async () => {
  const file = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(file, { busyTimeoutMs: 100 });
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, storeLockRetries: 1 });
  const { released } = await holdLock(file, 2000);
  assert.throws(
    () => recorder.startRun({ agentId: 'a', runtimeContext: testContext() }),
    (e) => isOcdbError(e, 'StoreLocked'),
  );
  await released;
  recorder.close();
  store.close();
});

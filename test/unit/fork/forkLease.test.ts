/**
 * A fork request has an owner and a lease like a run: the process that
 * claims it owns its fork run (pid, host, heartbeat). When that process is
 * killed, the request stops reading `running` and ends failed with the code
 * `crashed` — in the store and in `GET /forks/:id` — instead of never settling.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { ForkService } from '../../../src/fork/forkService';
import { claimForkRequest } from '../../../src/fork/forkRequests';
import { startServer } from '../../../src/server/httpServer';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';
import { call } from '../server/httpClient';
import { recordSupportRun } from './supportRun';

const ROOT = path.join(__dirname, '..', '..', '..');

test("a killed runner's fork request ends failed with code crashed, and GET /forks/:id says so", async () => {
  const file = path.join(tmpDir(), 'runs.db');
  const store = openRunStore(file);
  await recordSupportRun(store, 'support');
  const first = store.listCheckpoints('support')[0];
  assert.ok(first);
  const created = new ForkService(store).create({
    sourceRunId: 'support',
    sourceCheckpointId: first.checkpointId,
    toolPolicyMap: { '*': 'reuse_result' },
  });

  // another process claims the request (as `ocdb fork --run` or an agent program would) and is then killed
  const tsx = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  const script = `
    const { openRunStore } = require(${JSON.stringify(path.join(ROOT, 'src/store'))});
    const { claimForkRequest } = require(${JSON.stringify(path.join(ROOT, 'src/fork/forkRequests'))});
    claimForkRequest(openRunStore(${JSON.stringify(file)}), ${JSON.stringify(created.forkRequestId)}, Date.now());
    process.stdout.write('claimed\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', tsx, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  assert.equal(store.getForkRequest(created.forkRequestId).status, 'running', 'running while its owner lives');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;

  const request = store.getForkRequest(created.forkRequestId);
  assert.equal(request.status, 'failed');
  assert.equal((request.error as { code: string }).code, 'crashed');
  assert.match((request.error as { message: string }).message, new RegExp(`pid ${child.pid}\\) died`));
  assert.equal(store.getRun(created.runId).crashed, true);
  assert.throws(() => claimForkRequest(store, created.forkRequestId, Date.now()), /has already run \(failed\)/);

  const server = await startServer({ store, writeServerFile: false });
  try {
    const r = await call(server.url, { path: `/forks/${created.forkRequestId}`, token: server.token });
    assert.equal(r.status, 200);
    assert.equal((r.body as { status: string }).status, 'failed');
  } finally {
    await server.close();
    store.close();
  }
});

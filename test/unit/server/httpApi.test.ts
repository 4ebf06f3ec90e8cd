/**
 * The HTTP API on a demo store: token (401), Host / Origin guards (421 / 403),
 * body limit (413), validation with the field path (400), JSON only (415),
 * queries, POST /fork (201 / 409 / 400 / 404) and GET /forks/:id, a fork run
 * in the background, server.json (0600, removed on close), confirmations.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { CONFIRMATION_STATUSES, RUN_MODES, RUN_STATUSES } from '../../../src/model';
import { startServer, type RunningServer } from '../../../src/server/httpServer';
import { serverFilePath } from '../../../src/server/serverFile';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { call } from './httpClient';

let dir: string;
let store: SqlRunStore;
let server: RunningServer;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-http-'));
  store = openRunStore(path.join(dir, 'runs.db'));
  writeDemoStore(store);
  server = await startServer({ store, bodyLimitBytes: 1024 * 1024 });
});
after(async () => {
  await server.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = (p: string) => call(server.url, { path: p, token: server.token });
const post = (p: string, body: unknown) => call(server.url, { path: p, token: server.token, body });
const errorOf = (body: unknown) => (body as { error: { code: string; message: string; path?: string } }).error;

describe('HTTP API guards', () => {
  it('writes server.json beside the store, mode 0600, with url and token', () => {
    const file = serverFilePath(store.path);
    assert.equal(server.serverFile, file);
    const content = JSON.parse(fs.readFileSync(file, 'utf8')) as { url: string; token: string };
    assert.equal(content.url, server.url);
    assert.equal(content.token, server.token);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 401 without or with a wrong token', async () => {
    const none = await call(server.url, { path: '/runs' });
    assert.equal(none.status, 401);
    assert.equal(errorOf(none.body).code, 'Unauthorized');
    const wrong = await call(server.url, { path: '/runs', token: 'x'.repeat(64) });
    assert.equal(wrong.status, 401);
    assert.equal((await get('/health')).status, 200);
  });

  it('refuses a foreign Host (421) and a foreign Origin (403), even with the token', async () => {
    const host = await call(server.url, { path: '/runs', token: server.token, headers: { host: 'evil.example:80' } });
    assert.equal(host.status, 421);
    const origin = await call(server.url, {
      path: '/runs',
      token: server.token,
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(origin.status, 403);
    const local = await call(server.url, {
      path: '/runs',
      token: server.token,
      headers: { host: `localhost:${server.port}` },
    });
    assert.equal(local.status, 200);
  });

  it('refuses Host headers that only start like a loopback name (421)', async () => {
    for (const host of [
      '[::1]evil.com',
      `localhost:${server.port}@evil.com`,
      'localhost.evil.com',
      `127.0.0.1:${server.port}.evil.com`,
      'localhost:1', // another port: not this server
      '127.0.0.1 evil.com',
    ]) {
      const r = await call(server.url, { path: '/runs', token: server.token, headers: { host } });
      assert.equal(r.status, 421, host);
    }
    for (const host of ['127.0.0.1', `[::1]:${server.port}`, `LOCALHOST:${server.port}`]) {
      const r = await call(server.url, { path: '/health', token: server.token, headers: { host } });
      assert.equal(r.status, 200, host);
    }
  });

  it('answers 400 naming the id, never 500, on malformed percent-encoding in a path id', async () => {
    for (const p of ['/runs/%E0%A4%A', '/runs/%ZZ', '/runs/%ED%A0%80/checkpoints', '/checkpoints/%', '/forks/%C3']) {
      const r = await get(p);
      assert.equal(r.status, 400, p);
      assert.equal(errorOf(r.body).code, 'InvalidInput');
      assert.match(errorOf(r.body).message, /not valid percent-encoding/);
    }
    const post = await call(server.url, { method: 'POST', path: '/runs/%E0/end', token: server.token, body: {} });
    assert.equal(post.status, 400);
  });

  it('answers 413 past the body limit, declared or streamed', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 'a');
    const declared = await call(server.url, { path: '/runs', token: server.token, raw: big });
    assert.equal(declared.status, 413);
    assert.equal(errorOf(declared.body).code, 'PayloadTooLarge');
    const streamed = await call(server.url, {
      path: '/runs',
      token: server.token,
      raw: Buffer.alloc(2 * 1024 * 1024, 'b'),
      headers: { 'transfer-encoding': 'chunked', 'content-type': 'application/json' },
    });
    assert.equal(streamed.status, 413);
  });

  it('answers 400 with the field path, 415 for non-JSON, 404 and 405', async () => {
    const bad = await post('/runs', {
      agentId: 'x',
      runtimeContext: {
        ...store.getCheckpointAt('demo-support-refund', 0).runtimeContext,
        user: { userId: 'u', roleId: 42, permissions: [] },
      },
    });
    assert.equal(bad.status, 400);
    assert.equal(errorOf(bad.body).path, 'runtimeContext.user.roleId');
    const notJson = await call(server.url, {
      path: '/runs',
      token: server.token,
      raw: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(notJson.status, 400);
    const text = await call(server.url, {
      path: '/runs',
      token: server.token,
      raw: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 415);
    assert.equal((await get('/nope')).status, 404);
    assert.equal((await get('/fork')).status, 405);
    const missing = await get('/runs/no-such-run');
    assert.equal(missing.status, 404);
    assert.equal(errorOf(missing.body).code, 'RunNotFound');
  });
});

describe('HTTP API queries and forks', () => {
  it('lists runs, checkpoints and a checkpoint', async () => {
    const runs = (await get('/runs')).body as { runs: { runId: string }[]; total: number };
    assert.ok(runs.runs.some((r) => r.runId === 'demo-support-refund'));
    const cps = (await get('/runs/demo-support-refund/checkpoints?offset=2&limit=3')).body as {
      checkpoints: { index: number; checkpointId: string }[];
    };
    assert.deepEqual(
      cps.checkpoints.map((c) => c.index),
      [2, 3, 4],
    );
    const cp = (await get(`/checkpoints/${cps.checkpoints[0]?.checkpointId}`)).body as {
      runId: string;
      messages: unknown[];
    };
    assert.equal(cp.runId, 'demo-support-refund');
    assert.ok(Array.isArray(cp.messages));
  });

  it('filters GET /runs by status and mode; an unknown one is 400 naming the field and the allowed values', async () => {
    const completed = (await get('/runs?status=completed')).body as { runs: { status: string }[]; total: number };
    assert.ok(completed.runs.length > 0);
    assert.ok(completed.runs.every((r) => r.status === 'completed'));
    const live = (await get('/runs?mode=live')).body as { runs: { mode: string }[] };
    assert.ok(live.runs.length > 0 && live.runs.every((r) => r.mode === 'live'));

    const bogusStatus = await get('/runs?status=bogus');
    assert.equal(bogusStatus.status, 400);
    const statusError = errorOf(bogusStatus.body);
    assert.equal(statusError.code, 'InvalidInput');
    assert.equal(statusError.path, 'status');
    for (const s of RUN_STATUSES) assert.match(statusError.message, new RegExp(`"${s}"`));
    assert.match(statusError.message, /bogus/);

    const bogusMode = await get('/runs?mode=rerun');
    assert.equal(bogusMode.status, 400);
    assert.equal(errorOf(bogusMode.body).path, 'mode');
    for (const m of RUN_MODES) assert.match(errorOf(bogusMode.body).message, new RegExp(`"${m}"`));
  });

  it('GET /confirmations?status=bogus is 400 naming status and the allowed values', async () => {
    const res = await get('/confirmations?status=bogus');
    assert.equal(res.status, 400);
    const error = errorOf(res.body);
    assert.equal(error.code, 'InvalidInput');
    assert.equal(error.path, 'status');
    for (const s of CONFIRMATION_STATUSES) assert.match(error.message, new RegExp(`"${s}"`));
    assert.equal((await get('/confirmations?status=expired')).status, 200);
  });

  it("POST /fork with '*': re_execute on a run with irreversible tools is 409 naming them", async () => {
    const from = store.listCheckpoints('demo-support-refund')[3]?.checkpointId;
    const res = await post('/fork', {
      sourceRunId: 'demo-support-refund',
      sourceCheckpointId: from,
      toolPolicyMap: { '*': 're_execute' },
      acknowledgedTools: ['issue_refund', 'send_email'],
    });
    assert.equal(res.status, 409);
    const body = res.body as { hazards: { toolName: string }[]; error: { code: string; message: string } };
    assert.equal(body.error.code, 'ForkRejected');
    const names = body.hazards.map((h) => h.toolName);
    assert.ok(names.includes('issue_refund'));
    assert.ok(names.includes('send_email'));
    assert.match(body.error.message, /issue_refund/);
  });

  it("POST /fork with '*': reuse_result and a roleId patch is 201 and the run starts from the patched context", async () => {
    const from = store.listCheckpoints('demo-support-refund').find((c) => c.stepIndex === 4)?.checkpointId;
    const res = await post('/fork', {
      sourceRunId: 'demo-support-refund',
      sourceCheckpointId: from,
      toolPolicyMap: { '*': 'reuse_result' },
      contextPatch: { user: { roleId: 'auditor' } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const { runId, forkRequestId } = res.body as { runId: string; forkRequestId: string };
    const run = (await get(`/runs/${runId}`)).body as {
      mode: string;
      parentRunId: string;
      forkFromCheckpointId: string;
    };
    assert.equal(run.mode, 'fork');
    assert.equal(run.parentRunId, 'demo-support-refund');
    assert.equal(run.forkFromCheckpointId, from);
    const first = (await get(`/runs/${runId}/checkpoints?limit=1`)).body as { checkpoints: { checkpointId: string }[] };
    const cp = (await get(`/checkpoints/${first.checkpoints[0]?.checkpointId}`)).body as {
      runtimeContext: { user: { roleId: string } };
    };
    assert.equal(cp.runtimeContext.user.roleId, 'auditor');
    const request = (await get(`/forks/${forkRequestId}`)).body as { status: string; forkRunId: string };
    assert.equal(request.status, 'pending');
    assert.equal(request.forkRunId, runId);
  });

  it('POST /fork answers 400 with the path and 404 for an unknown run', async () => {
    const bad = await post('/fork', { sourceCheckpointId: 'x', toolPolicyMap: { '*': 'sometimes' } });
    assert.equal(bad.status, 400);
    assert.ok(['sourceRunId', 'toolPolicyMap["*"]'].includes(errorOf(bad.body).path ?? ''), errorOf(bad.body).path);
    const unknown = await post('/fork', { sourceRunId: 'ghost', sourceCheckpointId: 'x' });
    assert.equal(unknown.status, 404);
    assert.equal((await get('/forks/ghost')).status, 404);
  });

  it('lists pending manual_confirm questions and takes one answer', async () => {
    store.createConfirmation({
      confirmationId: 'conf-1',
      forkRequestId: 'fr-x',
      runId: 'demo-support-refund',
      toolName: 'send_email',
      args: { to: 'dana.kim@example.com' },
      sideEffectLevel: 'external_irreversible',
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    const pending = (await get('/confirmations?status=pending')).body as {
      confirmations: { confirmationId: string; toolName: string }[];
    };
    assert.deepEqual(
      pending.confirmations.map((c) => [c.confirmationId, c.toolName]),
      [['conf-1', 'send_email']],
    );
    const bad = await post('/confirmations/conf-1', { answer: 'maybe' });
    assert.equal(bad.status, 400);
    assert.equal(errorOf(bad.body).path, 'answer');
    const ok = await post('/confirmations/conf-1', { answer: 'mock', mockResult: { queued: false } });
    assert.equal(ok.status, 200);
    assert.deepEqual((ok.body as { mockResult: unknown }).mockResult, { queued: false });
    const again = await post('/confirmations/conf-1', { answer: 'allow_once' });
    assert.equal(again.status, 400);
    assert.match(errorOf(again.body).message, /already answered/);
    assert.equal(
      ((await get('/confirmations?status=pending')).body as { confirmations: unknown[] }).confirmations.length,
      0,
    );
  });

  it('runs a fork in the background with run: true and reports it on GET /forks/:id', async () => {
    const from = store.listCheckpoints('demo-coding-fix')[0]?.checkpointId;
    const res = await post('/fork', {
      sourceRunId: 'demo-coding-fix',
      sourceCheckpointId: from,
      toolPolicyMap: { '*': 'reuse_result' },
      run: true,
    });
    assert.equal(res.status, 201);
    const { forkRequestId, runId } = res.body as { forkRequestId: string; runId: string };
    let status = '';
    while (!['completed', 'failed'].includes(status)) {
      await new Promise((r) => setTimeout(r, 10));
      status = ((await get(`/forks/${forkRequestId}`)).body as { status: string }).status;
    }
    assert.equal(status, 'completed');
    const run = (await get(`/runs/${runId}`)).body as { status: string; checkpointCount: number };
    assert.equal(run.checkpointCount, store.getRun('demo-coding-fix').checkpointCount);
  });
});

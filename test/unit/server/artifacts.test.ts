/**
 * Artifacts over HTTP: POST /runs/:id/artifacts stores the content (text, or base64 bytes) once and the next
 * checkpoint carries its ref; GET /runs/:id/artifacts lists them; GET /runs/:id/artifacts/:name serves the bytes
 * with their type (a PNG byte for byte); bad bodies answer 400 with the field; unknown names 404; a server
 * started again still attaches an artifact recorded before the restart to the next checkpoint.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ArtifactRef } from '../../../src/model';
import { startServer, type RunningServer } from '../../../src/server/httpServer';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { call } from './httpClient';

const PNG = fs.readFileSync(path.join(__dirname, '../../../media/screenshot.png'));

let dir: string;
let store: SqlRunStore;
let server: RunningServer;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-artifacts-'));
  store = openRunStore(path.join(dir, 'runs.db'));
  // a PNG of a few hundred KB in base64 fits the default body limit (4 MiB)
  server = await startServer({ store, writeServerFile: false });
});
afterEach(async () => {
  await server.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const req = (p: string, body?: unknown) => call(server.url, { path: p, token: server.token, body });
const errorOf = (body: unknown) => (body as { error: { code: string; message: string; path?: string } }).error;

const context = {
  user: { userId: 'u', roleId: 'analyst', permissions: ['read'] },
  conversation: { sessionId: 's-http' },
  project: { projectId: 'p' },
  task: { taskId: 't', workflowId: 'w', stepStates: {} },
  tools: { availableTools: [] },
  model: { provider: 'openai', model: 'gpt-4o-mini', promptVersion: 'v1' },
};

async function startRun(runId: string): Promise<void> {
  const res = await req('/runs', { runId, agentId: 'http-agent', runtimeContext: context });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal((await req(`/runs/${runId}/checkpoints`, { boundary: 'before_prompt_build' })).status, 201);
}

describe('artifacts over HTTP', () => {
  it('records text and a PNG, lists them, serves their bytes, and the next checkpoint carries them', async () => {
    await startRun('h1');
    const text = await req('/runs/h1/artifacts', {
      type: 'text/markdown',
      name: 'report.md',
      content: '# Report\n\nAll good.\n',
      metadata: { author: 'agent' },
    });
    assert.equal(text.status, 201, JSON.stringify(text.body));
    const ref = text.body as ArtifactRef;
    assert.equal(ref.artifactId, 'report.md');
    assert.equal(ref.version, 1);
    const png = await req('/runs/h1/artifacts', {
      type: 'image/png',
      name: 'chart.png',
      content: PNG.toString('base64'),
      encoding: 'base64',
    });
    assert.equal(png.status, 201, JSON.stringify(png.body));

    const listed = await req('/runs/h1/artifacts');
    assert.deepEqual(
      (listed.body as { artifacts: ArtifactRef[] }).artifacts.map((r) => r.artifactId),
      ['report.md', 'chart.png'],
    );
    const md = await req('/runs/h1/artifacts/report.md');
    assert.equal(md.status, 200);
    assert.equal(md.headers['content-type'], 'text/markdown; charset=utf-8');
    assert.equal(md.bytes.toString('utf8'), '# Report\n\nAll good.\n');
    assert.equal(md.headers['x-ocdb-content-hash'], ref.contentHash);
    const image = await req('/runs/h1/artifacts/chart.png');
    assert.equal(image.headers['content-type'], 'image/png');
    assert.ok(image.bytes.equals(PNG), 'the PNG comes back byte for byte');

    const cp = await req('/runs/h1/checkpoints', { boundary: 'before_model_call' });
    assert.equal(cp.status, 201);
    const id = (cp.body as { checkpointId: string }).checkpointId;
    const at = await req(`/checkpoints/${encodeURIComponent(id)}`);
    assert.deepEqual(
      (at.body as { artifactRefs: ArtifactRef[] }).artifactRefs.map((r) => r.artifactId),
      ['report.md', 'chart.png'],
    );
    const atCheckpoint = await req(`/runs/h1/artifacts?checkpointId=${encodeURIComponent(id)}`);
    assert.equal((atCheckpoint.body as { artifacts: ArtifactRef[] }).artifacts.length, 2);
  });

  it('serves a version and the version a checkpoint carries', async () => {
    await startRun('h2');
    await req('/runs/h2/artifacts', { type: 'text/plain', name: 'notes', content: 'one' });
    const first = (await req('/runs/h2/checkpoints', { boundary: 'before_model_call' })).body as {
      checkpointId: string;
    };
    await req('/runs/h2/artifacts', { type: 'text/plain', name: 'notes', content: 'two' });
    assert.equal((await req('/runs/h2/artifacts/notes')).bytes.toString(), 'two', 'the newest by default');
    assert.equal((await req('/runs/h2/artifacts/notes?version=1')).bytes.toString(), 'one');
    const atFirst = await req(`/runs/h2/artifacts/notes?checkpointId=${encodeURIComponent(first.checkpointId)}`);
    assert.equal(atFirst.bytes.toString(), 'one');
    assert.equal(atFirst.headers['x-ocdb-artifact-version'], '1');
  });

  it('answers 400 with the field for bad bodies and 404 for unknown names', async () => {
    await startRun('h3');
    const cases: [unknown, string, RegExp][] = [
      [{ type: 'text/plain', name: 'a' }, 'content', /content is required/],
      [{ type: 'text/plain', name: 'a', content: 'x', path: '/etc/passwd' }, 'path', /the server reads no files/],
      [{ type: 'text/plain', name: 'a', content: '%%%', encoding: 'base64' }, 'content', /not valid base64/],
      [{ name: 'a', content: 'x' }, 'type', /body: type: /],
    ];
    for (const [body, field, message] of cases) {
      const res = await req('/runs/h3/artifacts', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(errorOf(res.body).path, field);
      assert.match(errorOf(res.body).message, message);
    }
    const missing = await req('/runs/h3/artifacts/nothing.md');
    assert.equal(missing.status, 404);
    assert.equal(errorOf(missing.body).code, 'ArtifactNotFound');
    assert.match(errorOf(missing.body).message, /Run h3 has no artifact nothing\.md; it has none/);
    assert.equal((await req('/runs/nope/artifacts')).status, 404);
    assert.equal((await req('/runs/h3/end', {})).status, 200);
    const late = await req('/runs/h3/artifacts', { type: 'text/plain', name: 'late', content: 'x' });
    assert.equal(late.status, 409, 'an ended run records nothing more');
  });

  it('after a restart, an artifact recorded before it still attaches to the next checkpoint', async () => {
    await startRun('h4');
    const ref = (await req('/runs/h4/artifacts', { type: 'text/plain', name: 'n', content: 'kept' }))
      .body as ArtifactRef;
    await server.close();
    server = await startServer({ store, writeServerFile: false });
    const cp = (await req('/runs/h4/checkpoints', { boundary: 'before_model_call' })).body as { checkpointId: string };
    assert.deepEqual(store.getCheckpoint(cp.checkpointId).artifactRefs, [ref]);
    const again = (await req('/runs/h4/artifacts', { type: 'text/plain', name: 'n', content: 'next' }))
      .body as ArtifactRef;
    assert.equal(again.version, 2);
  });
});

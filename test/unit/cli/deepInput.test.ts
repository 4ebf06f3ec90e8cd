/**
 * Values nested deeper than MAX_JSON_DEPTH are refused with a located
 * InvalidInput everywhere they enter — `ocdb load`, HTTP bodies, imports, the
 * canonical JSON of a recorded value — never a RangeError, a 500 or a run whose
 * checkpoints cannot be read. The store is unchanged after each refusal.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { writeDemoStore } from '../../../src/demo';
import { MAX_JSON_DEPTH, argsHash, canonicalJson, isOcdbError } from '../../../src/model';
import { startServer, type RunningServer } from '../../../src/server/httpServer';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { call } from '../server/httpClient';

/** `{"a":{"a":…1…}}` as text, `depth` objects deep (built as text: JSON.stringify would recurse). */
export const deepText = (depth: number, leaf = '1'): string => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

async function cli(args: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), isTty: false, env: {}, cwd };
  const code = await runCli(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('deep values', () => {
  let dir: string;
  let db: string;
  let runJson: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-deep-'));
    db = path.join(dir, 'runs.db');
    const store = openRunStore(db);
    writeDemoStore(store);
    runJson = JSON.stringify({ ...store.exportRun('demo-support-refund'), runId: 'deep-run' });
    store.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('canonical JSON refuses 10,000 levels with a located error and serialises 255 levels', () => {
    const deep = JSON.parse(deepText(10_000)) as unknown;
    assert.throws(
      () => argsHash(deep),
      (e) => isOcdbError(e, 'InvalidInput') && /^a\.a\.a.*…\.a\.a\.a: nested deeper than 256 levels/.test(e.message),
    );
    assert.equal(canonicalJson(JSON.parse(deepText(MAX_JSON_DEPTH - 1))).length, deepText(MAX_JSON_DEPTH - 1).length);
  });

  it('ocdb load names the field and leaves the store unchanged', async () => {
    const file = path.join(dir, 'deep.json');
    // into the run's own metadata: the last in the text (artifact refs before it have metadata too)
    const at = runJson.lastIndexOf('"metadata":{') + '"metadata":{'.length;
    fs.writeFileSync(file, `${runJson.slice(0, at)}"deep":${deepText(10_000)},${runJson.slice(at)}`);
    const r = await cli(['load', file, '--store', db], dir);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /deep\.json: metadata\.deep\.a\.a.*: nested deeper than 256 levels/);
    assert.doesNotMatch(r.err, /RangeError|\n\s+at /);
    const store = openRunStore(db, { create: false });
    assert.equal(store.hasRun('deep-run'), false);
    store.close();
  });

  it('an import names the line', async () => {
    const file = path.join(dir, 'deep.jsonl');
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ role: 'user', content: 'hello' }),
        `{"role":"assistant","content":"x","extra":${deepText(10_000)}}`,
      ].join('\n') + '\n',
    );
    const r = await cli(['import', file, '--store', db, '--format', 'openai-chat'], dir);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /failed .*deep\.jsonl: line 2: extra\.a\.a.*nested deeper than 256 levels/);
  });

  describe('over HTTP', () => {
    let store: SqlRunStore;
    let server: RunningServer;
    before(async () => {
      store = openRunStore(path.join(dir, 'http.db'));
      server = await startServer({ store, bodyLimitBytes: 1024 * 1024 });
    });
    after(async () => {
      await server.close();
      store.close();
    });

    it('POST /runs with deep content is a 400 with the field path, and no run is created', async () => {
      const before = store.listRuns({}).total;
      const raw = `{"agentId":"a","runtimeContext":{"values":{}},"metadata":{"deep":${deepText(10_000)}}}`;
      const r = await call(server.url, { method: 'POST', path: '/runs', token: server.token, raw });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      const error = (r.body as { error: { code: string; message: string; path: string } }).error;
      assert.equal(error.code, 'InvalidInput');
      assert.match(error.path, /^metadata\.deep\.a/);
      assert.match(error.message, /^body: metadata\.deep\.a.*nested deeper than 256 levels/);
      assert.equal(store.listRuns({}).total, before);
    });
  });
});

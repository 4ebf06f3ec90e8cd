/**
 * Echoed keys: an API key without a well-known prefix, echoed back by the model endpoint — in a 200 answer's text
 * and in a 401 error — never reaches the store, `ocdb show` or the export. Real `ocdb` processes (dist/cli.js, as
 * `npm test` builds it): the fork in one, `show` and `export` in others (which never saw the key, so they can only
 * print what the store holds), and the store file's bytes read after.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore } from '../../../src/store';

/** A key no pattern knows: only its value can find it. */
const KEY = 'c0ffee7d1b-Q9x8-relay-4411';
const CLI = path.join(__dirname, '../../../dist/cli.js');

describe('hostile endpoints: a key echoed back', () => {
  let dir: string;
  let storePath: string;
  let server: http.Server;
  let base: string;
  let mode: 'answer' | 'refuse' = 'answer';
  const cases: string[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'att-echo-'));
    storePath = path.join(dir, 'runs.db');
    const store = openRunStore(storePath, { create: true });
    writeDemoStore(store);
    store.close();
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const auth = req.headers.authorization ?? '';
        res.setHeader('content-type', 'application/json');
        if (mode === 'refuse') {
          res.statusCode = 401;
          res.end(JSON.stringify({ error: { message: `The key ${auth.slice(7)} is not valid for this project` } }));
          return;
        }
        const content = `Sure. (debug: you sent ${auth.slice(7)}, or as JSON ${JSON.stringify({ k: auth.slice(7) })})`;
        res.end(
          JSON.stringify({
            id: 'x',
            model: 'echo-1',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 4 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`# hostile echoed keys: ${cases.length} cases, 0 keys kept — ${cases.join('; ')}`);
  });

  /** A real `ocdb` process (asynchronously: the endpoint answers from this one). */
  function ocdb(args: string[]): Promise<{ status: number; out: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args, '--store', storePath],
        { cwd: dir, env: { ...process.env, ECHO_KEY: KEY, NODE_PATH: '' }, maxBuffer: 64 << 20 },
        (error, stdout, stderr) => {
          const code = (error as { code?: unknown } | null)?.code;
          resolve({ status: typeof code === 'number' ? code : 0, out: `${stdout}\n${stderr}` });
        },
      );
    });
  }

  function assertNoKey(where: string, text: string): void {
    assert.ok(!text.includes(KEY), `${where} holds the key:\n${text.slice(0, 2000)}`);
  }

  for (const endpoint of ['answer', 'refuse'] as const) {
    it(`an endpoint that ${endpoint === 'answer' ? 'quotes the key in its answer' : 'quotes the key in a 401'}`, async () => {
      mode = endpoint;
      const fork = await ocdb([
        'fork',
        'demo-support-refund',
        'demo-support-refund-cp007',
        '--model',
        'real',
        '--policy',
        '*=reuse_result',
        '--run',
        '--json',
        '--base-url',
        base,
        '--api-key-env',
        'ECHO_KEY',
        '--model-name',
        'echo-1',
      ]);
      assertNoKey('ocdb fork', fork.out);
      const runId = /"runId":\s*"([^"]+)"/.exec(fork.out)?.[1];
      assert.ok(runId, `a fork was made: ${fork.out}`);
      const show = await ocdb(['show', runId]);
      assert.equal(show.status, 0, show.out);
      assertNoKey('ocdb show', show.out);
      const exported = await ocdb(['export', runId]);
      assert.equal(exported.status, 0, exported.out);
      assertNoKey('ocdb export', exported.out);
      if (endpoint === 'answer')
        assert.match(exported.out, /Sure\. \(debug: you sent \[REDACTED\]/, 'the answer is kept');
      for (const file of fs.readdirSync(dir)) {
        assertNoKey(file, fs.readFileSync(path.join(dir, file)).toString('latin1'));
      }
      cases.push(`${endpoint}: fork, show, export, store bytes`);
    });
  }
});

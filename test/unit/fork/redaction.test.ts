/**
 * Secrets never reach the store, the terminal or an HTTP answer: a real-model
 * fork against an endpoint that echoes the Authorization header (and a base
 * URL carrying `user:key@` and `?api-key=`) stores an error that keeps the
 * status and the endpoint's words but no key; a base URL with a query builds
 * a correct address.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { OcdbError, REDACTED, redactText, redactUrl, redactValue } from '../../../src/model';
import { ForkService } from '../../../src/fork/forkService';
import { OpenAiChatModel, completionsUrl } from '../../../src/fork/modelClient';
import { runFork } from '../../../src/fork/runner';
import { errorResponse } from '../../../src/server/httpErrors';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { recordSupportRun } from './supportRun';

const KEY = 'sk-live-Z9y8X7w6V5u4T3s2';
const URL_PASSWORD = 'hunter2-url-secret';
const QUERY_KEY = 'q-key-4c1d9e7f0a';

describe('redaction rules', () => {
  it('removes authorization headers, bearer tokens, provider keys, URL credentials and key-like fields', () => {
    const cases: [string, string][] = [
      [`Authorization: Bearer ${KEY}`, 'Authorization: Bearer [REDACTED]'],
      [`{"authorization":"Bearer abc.def.ghi123"}`, '{"authorization":"Bearer [REDACTED]"}'],
      [`{"api_key": "plainvalue123"}`, '{"api_key": "[REDACTED]"}'],
      [`invalid key ${KEY} given`, 'invalid key [REDACTED] given'],
      [`https://bob:${URL_PASSWORD}@host/x`, 'https://[REDACTED]@host/x'],
      [`GET /v1?api-key=${QUERY_KEY}&api-version=2024`, 'GET /v1?api-key=[REDACTED]&api-version=2024'],
      ['token ghp_abcdefghijklmnopqrstuvwxyz012345', 'token [REDACTED]'],
      ['HTTP 500: upstream timeout after 30 s', 'HTTP 500: upstream timeout after 30 s'],
    ];
    for (const [input, expected] of cases) assert.equal(redactText(input), expected, input);
    assert.equal(
      redactUrl(`https://bob:${URL_PASSWORD}@api.example/v1/chat/completions?api-key=${QUERY_KEY}&api-version=2024`),
      `https://[REDACTED]@api.example/v1/chat/completions?api-key=[REDACTED]&api-version=2024`,
    );
    const value = redactValue({ message: `Bearer ${KEY}`, headers: { 'x-api-key': 'k123456789' }, list: [KEY] });
    assert.deepEqual(value, { message: `Bearer ${REDACTED}`, headers: { 'x-api-key': REDACTED }, list: [REDACTED] });
  });

  it('builds the address of a base URL with a query or credentials correctly', () => {
    assert.equal(
      completionsUrl('https://x.example/openai?api-version=2024-06-01'),
      'https://x.example/openai/v1/chat/completions?api-version=2024-06-01',
    );
    assert.equal(completionsUrl('https://u:p@x.example/v1/'), 'https://x.example/v1/chat/completions');
    assert.equal(completionsUrl('http://127.0.0.1:11434'), 'http://127.0.0.1:11434/v1/chat/completions');
  });

  it('HTTP error bodies carry no secret', () => {
    const { body } = errorResponse(new OcdbError('ModelEndpointError', `echo: Authorization: Bearer ${KEY}`));
    assert.doesNotMatch(JSON.stringify(body), new RegExp(KEY));
  });
});

describe('a real-model fork against an endpoint that echoes secrets', () => {
  let dir: string;
  let store: SqlRunStore;
  let server: http.Server;
  let seen: { url?: string; authorization?: string }[];
  let base: string;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-redact-'));
    store = openRunStore(path.join(dir, 'runs.db'));
    await recordSupportRun(store, 'support');
    seen = [];
    server = http.createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization });
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: { message: `Incorrect API key provided: ${KEY}`, request: { url: req.url } },
            echo: { authorization: req.headers.authorization },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    base = `http://bob:${URL_PASSWORD}@127.0.0.1:${port}/v1?api-key=${QUERY_KEY}&api-version=2024`;
  });
  afterEach(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores an error that says what happened and holds no key', async () => {
    const first = store.listCheckpoints('support').find((c) => c.boundary === 'before_prompt_build');
    assert.ok(first);
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: first.checkpointId,
      modelOverride: { mode: 'override', provider: 'local', model: 'fake-llm' },
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const chat = new OpenAiChatModel({ baseUrl: base, apiKeyEnv: 'K', retryBaseMs: 1 }, { K: KEY });
    const outcome = await runFork(store, created.forkRequestId, { chatModel: chat });
    assert.equal(outcome.status, 'failed');
    assert.equal(seen[0]?.url, `/v1/chat/completions?api-key=${QUERY_KEY}&api-version=2024`, 'the query stays a query');
    assert.equal(seen[0]?.authorization, `Bearer ${KEY}`);
    const stored = JSON.stringify([store.getRun(created.runId).error, store.getForkRequest(created.forkRequestId)]);
    assert.match(stored, /answered HTTP 401: .*Incorrect API key provided/, 'the endpoint words are kept');
    for (const secret of [KEY, URL_PASSWORD, QUERY_KEY]) {
      assert.doesNotMatch(stored, new RegExp(secret), `${secret} is not in the run or request`);
    }
    store.close();
    for (const file of fs.readdirSync(dir)) {
      const bytes = fs.readFileSync(path.join(dir, file)).toString('latin1');
      for (const secret of [KEY, URL_PASSWORD, QUERY_KEY]) assert.ok(!bytes.includes(secret), `${secret} in ${file}`);
    }
    store = openRunStore(path.join(dir, 'runs.db'));
  });
});

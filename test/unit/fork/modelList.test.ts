/**
 * The endpoint's `/models` list (what Set Up Model Endpoint… offers) and a key handed over by the host's secret
 * storage, against the fake OpenAI-compatible server on 127.0.0.1: ids sorted and unique, the key sent as Bearer
 * (winning over the variable), and each failure said in words without the key.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { isOcdbError } from '../../../src/model';
import { OpenAiChatModel, listModels } from '../../../src/fork/modelClient';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/agents/fakeModelServer';

const KEY = 'sk-unit-abcdef0123456789';
let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server answering every request with `status` and `body`. */
async function answering(status: number, body: string): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer((_req, res) => res.writeHead(status, { 'content-type': 'text/plain' }).end(body));
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => s.close(() => r())),
  };
}

describe('listModels', () => {
  it('lists the ids an endpoint answers at /v1/models, sorted, with the stored key', async () => {
    server = await startFakeModelServer(() => ({ content: 'OK' }), {
      models: ['qwen2.5:0.5b', 'llama3.2:1b', 'qwen2.5:0.5b'],
      requireKey: KEY,
    });
    assert.deepEqual(await listModels({ baseUrl: `${server.url}/v1`, apiKey: KEY }), ['llama3.2:1b', 'qwen2.5:0.5b']);
    assert.deepEqual(await listModels({ baseUrl: server.url, apiKeyEnv: 'K' }, { K: KEY }), [
      'llama3.2:1b',
      'qwen2.5:0.5b',
    ]);
  });

  it('a wrong key: the endpoint’s status and words, a hint, never the key', async () => {
    server = await startFakeModelServer(() => ({ content: 'OK' }), { models: ['m'], requireKey: KEY });
    await assert.rejects(
      listModels({ baseUrl: `${server.url}/v1`, apiKey: 'sk-wrong-key-000000' }),
      (e: unknown) =>
        isOcdbError(e, 'ModelEndpointError') &&
        /HTTP 401/.test(e.message) &&
        /Incorrect API key/.test(e.message) &&
        /Check the API key/.test(e.message) &&
        !e.message.includes('sk-wrong-key-000000'),
    );
  });

  it('not JSON, no data list, nobody listening: each said in words', async () => {
    const html = await answering(200, '<html>hello</html>');
    try {
      await assert.rejects(listModels({ baseUrl: html.url }), /not JSON/);
    } finally {
      await html.close();
    }
    const other = await answering(200, '{"models":[]}');
    try {
      await assert.rejects(listModels({ baseUrl: other.url }), /without a "data" list/);
    } finally {
      await other.close();
    }
    const gone = await answering(200, '{}');
    await gone.close();
    await assert.rejects(
      listModels({ baseUrl: gone.url }),
      (e: unknown) => isOcdbError(e, 'ModelEndpointError') && /could not be reached/.test(e.message),
    );
  });
});

describe('a key handed over by the host', () => {
  it('is sent as Bearer and wins over the variable named', async () => {
    server = await startFakeModelServer(() => ({ content: 'OK' }), { requireKey: KEY });
    const chat = new OpenAiChatModel(
      { baseUrl: server.url, apiKey: KEY, apiKeyEnv: 'OTHER', maxRetries: 0 },
      { OTHER: 'sk-from-env' },
    );
    const r = await chat.complete({
      messages: [{ role: 'user', content: 'hi' }],
      model: { provider: 'p', model: 'm' },
      tools: [],
    });
    assert.equal(r.message.content, 'OK');
    assert.equal(server.requests[0]?.authorization, `Bearer ${KEY}`);
  });
});

/**
 * Real / override model forks against a fake OpenAI-compatible endpoint on
 * 127.0.0.1: the new branch's tools come from the cassette, retries on 429 /
 * 5xx, the key from the named environment variable, cassette misses named,
 * and a captured fork that continues with the real model after diverging.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { isOcdbError, messageToolCalls } from '../../../src/model';
import { ForkService } from '../../../src/fork/forkService';
import { OpenAiChatModel } from '../../../src/fork/modelClient';
import { runFork } from '../../../src/fork/runner';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/agents/fakeModelServer';
import { recordSupportRun } from './supportRun';

let dir: string;
let store: SqlRunStore;
let server: FakeModelServer | undefined;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-real-'));
  store = openRunStore(path.join(dir, 'runs.db'));
  await recordSupportRun(store, 'support');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function at(boundary: string, step: number): string {
  const cp = store.listCheckpoints('support').find((c) => c.boundary === boundary && c.stepIndex === step);
  assert.ok(cp);
  return cp.checkpointId;
}

const chat = (url: string, extra: Record<string, unknown> = {}) =>
  new OpenAiChatModel(
    { baseUrl: url, apiKeyEnv: 'FAKE_MODEL_KEY', retryBaseMs: 1, ...extra },
    { FAKE_MODEL_KEY: 'sk-test-123' },
  );

describe('real model forks', () => {
  it('produce a new branch whose tools come from the cassette, retrying on 429', async () => {
    server = await startFakeModelServer(
      (_req, i) =>
        [
          {
            content: 'Looking up the order.',
            toolCalls: [{ id: 'r1', name: 'lookup_order', args: { orderId: 'o-311', customerId: 'c-9' } }],
          },
          {
            content: 'Checking policy.',
            toolCalls: [{ id: 'r2', name: 'search_kb', args: { query: 'damaged on arrival refund' } }],
          },
          { content: 'A refund is possible under kb-12; a colleague will issue it.' },
        ][i] ?? { content: 'done' },
      { failFirst: 2 },
    );
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: at('before_prompt_build', 1),
      modelOverride: { mode: 'override', provider: 'local', model: 'fake-llm' },
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const outcome = await runFork(store, created.forkRequestId, { chatModel: chat(server.url) });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
    const run = store.getRun(created.runId);
    assert.equal(run.status, 'completed');
    assert.equal(run.mode, 'fork');
    const calls = store.listToolCalls(created.runId);
    assert.deepEqual(
      calls.map((c) => [c.toolName, c.result]),
      [
        ['lookup_order', { total: 89.9, currency: 'EUR', item: 'kettle' }],
        ['search_kb', [{ doc: 'kb-12', title: 'Damaged goods' }]],
      ],
    );
    assert.equal(server.requests.length, 3);
    assert.equal(server.requests[0]?.model, 'fake-llm');
    assert.equal(server.requests[0]?.authorization, 'Bearer sk-test-123');
    const second = server.requests[1];
    const toolMsg = second?.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'r1');
    assert.deepEqual(JSON.parse(toolMsg?.content ?? 'null'), { total: 89.9, currency: 'EUR', item: 'kettle' });
    assert.ok(server.requests[0]?.tools?.some((t) => t.function.name === 'issue_refund'));
    const last = store.getCheckpointAt(created.runId, run.checkpointCount - 1);
    assert.equal(last.boundary, 'agent_end');
    assert.match(String(last.messages.at(-1)?.content), /colleague will issue it/);
    assert.ok(run.inputTokens > 0, 'real turns spend tokens');
    // The recording called lookup_order and search_kb together at step 1; this model asked for one: reported, not fatal.
    assert.equal(outcome.divergence?.field, 'toolCalls');
    assert.equal(outcome.divergence?.stepIndex, 1);
    assert.match(outcome.divergence?.recorded ?? '', /search_kb/);
  });

  it('names the tool and hash on a cassette miss', async () => {
    server = await startFakeModelServer(() => ({
      toolCalls: [{ id: 'x1', name: 'lookup_order', args: { orderId: 'o-999' } }],
    }));
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: at('before_prompt_build', 1),
      modelOverride: { mode: 'real' },
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const outcome = await runFork(store, created.forkRequestId, { chatModel: chat(server.url) });
    const error = outcome.error as { code: string; toolName: string; argsHash: string; message: string };
    assert.equal(error.code, 'cassette_miss');
    assert.equal(error.toolName, 'lookup_order');
    assert.match(error.message, new RegExp(error.argsHash));
  });

  it('continues with the real model after a divergence when the config asks', async () => {
    server = await startFakeModelServer((req) => {
      assert.match(req.messages[0]?.content ?? '', /role auditor/);
      return { content: 'As an auditor I only document the case.' };
    });
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: at('before_prompt_build', 4),
      contextPatch: { user: { roleId: 'auditor' } },
      toolPolicyMap: { '*': 'reuse_result' },
      onDivergence: 'continue_real',
    });
    const outcome = await runFork(store, created.forkRequestId, { chatModel: chat(server.url) });
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.divergence?.stepIndex, 4);
    const msgs = store.getCheckpointAt(created.runId, outcome.checkpointCount - 1).messages;
    assert.equal(messageToolCalls(msgs.at(-1) as never).length, 0);
    assert.ok(!store.listToolCalls(created.runId).some((t) => t.toolName === 'issue_refund'));
  });

  it('fails without retrying on a 400 and after the retries on 500s', async () => {
    server = await startFakeModelServer(() => ({ content: 'x' }), { failFirst: 10, failStatus: 500 });
    const model = chat(server.url, { maxRetries: 2 });
    await assert.rejects(
      model.complete({ messages: [{ role: 'user', content: 'hi' }], model: { provider: 'p', model: 'm' }, tools: [] }),
      (e: unknown) =>
        isOcdbError(e, 'ModelEndpointError') &&
        /after 3 attempts \(last: HTTP 500[^)]*\)\. Check that the endpoint is up/.test(e.message) &&
        // the advice names nothing the user cannot set (there is no maxRetries setting)
        !/maxRetries/.test(e.message),
    );
    await server.close();
    let hits = 0;
    server = await startFakeModelServer(
      () => {
        hits++;
        return { content: 'never reached' };
      },
      { failFirst: 1, failStatus: 400 },
    );
    await assert.rejects(
      chat(server.url).complete({ messages: [], model: { provider: 'p', model: 'm' }, tools: [] }),
      (e: unknown) => isOcdbError(e, 'ModelEndpointError') && e.message.includes('HTTP 400'),
    );
    assert.equal(hits, 0, 'a 400 is not retried');
    const missingKey = new OpenAiChatModel({ baseUrl: server.url, apiKeyEnv: 'NOT_SET_ANYWHERE' }, {});
    await assert.rejects(
      missingKey.complete({ messages: [], model: { provider: 'p', model: 'm' }, tools: [] }),
      (e: unknown) => isOcdbError(e, 'ModelEndpointError') && e.message.includes('$NOT_SET_ANYWHERE'),
    );
  });
});

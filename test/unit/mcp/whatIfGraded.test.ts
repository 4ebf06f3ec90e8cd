/**
 * The MCP server's what_if with a model-graded assertion, driven through the SDK's client against a local
 * OpenAI-compatible endpoint the server's environment names: without a budget the batch is priced and refused
 * before any fork or question; with one, each fork's end and its recording are graded pass / fail with the model's
 * reason, beside an expression asking the same; without an endpoint the assertion is refused, saying what is missing.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore } from '../../../src/store';
import {
  startFakeModelServer,
  type FakeCompletionRequest,
  type FakeModelServer,
} from '../../fixtures/agents/fakeModelServer';
import { tmpDir } from '../../helpers/tmp';
import { connectClient } from './mcpClient';

const KEY = 'sk-mcp-grader-0c4d9e21b7aa';
const storePath = join(tmpDir('ocdb-mcp-graded-'), 'runs.db');
const QUESTION = { name: 'no_refund_m', question: 'Did the agent finish without issuing a refund?' };
const EXPRESSION = { name: 'no_refund', expression: "!tool('issue_refund')" };
const ARGS = {
  runIds: ['demo-support-refund'],
  at: { step: 7 },
  contextPatch: { user: { roleId: 'auditor' } },
  toolPolicy: { '*': 'reuse_result' },
  assertions: [EXPRESSION, QUESTION],
};

function judge(request: FakeCompletionRequest): { content: string } {
  const text = request.messages.map((m) => m.content ?? '').join('\n');
  return /- issue_refund\(/.test(text)
    ? { content: '{"verdict": "fail", "reason": "issue_refund was called"}' }
    : { content: '{"verdict": "pass", "reason": "no refund in the tool calls"}' };
}

function forkCount(): number {
  const store = openRunStore(storePath, { create: false });
  try {
    return store.listRuns({ mode: 'fork' }).total;
  } finally {
    store.close();
  }
}

interface GradedResult {
  assertions: { name: string; passed: boolean; sourcePassed?: boolean; reason?: string }[];
}

describe('MCP what_if with a model-graded assertion', () => {
  let server: FakeModelServer;
  before(async () => {
    const store = openRunStore(storePath);
    writeDemoStore(store);
    store.close();
    server = await startFakeModelServer(judge, { requireKey: KEY });
  });
  after(() => server.close());

  const env = () => ({
    OCDB_MODEL_BASE_URL: server.url,
    OCDB_MODEL: 'gpt-4o-mini',
    OCDB_MODEL_API_KEY_ENV: 'OCDB_MCP_KEY',
    OCDB_MCP_KEY: KEY,
  });

  it('without a budget: priced and refused before any fork or question', async () => {
    const mcp = await connectClient({ storeLocation: storePath, env: env(), cwd: process.cwd() });
    try {
      const forks = forkCount();
      const a = await mcp.call('what_if', ARGS);
      assert.equal(a.isError, true, a.text);
      assert.match(a.text, /grading|cost|\$/i);
      assert.equal(server.requests.length, 0, 'the model was asked nothing');
      assert.equal(forkCount(), forks, 'no fork was created');
    } finally {
      await mcp.close();
    }
  });

  it('with a budget: the fork and its recording graded with the reason, agreeing with the expression', async () => {
    const mcp = await connectClient({ storeLocation: storePath, env: env(), cwd: process.cwd() });
    try {
      const a = await mcp.call('what_if', { ...ARGS, maxCostUsd: 1 });
      assert.equal(a.isError, false, a.text);
      const [r] = a.json.results as GradedResult[];
      const expr = r?.assertions.find((x) => x.name === 'no_refund');
      const graded = r?.assertions.find((x) => x.name === 'no_refund_m');
      assert.ok(expr && graded, a.text);
      assert.equal(graded.passed, expr.passed);
      assert.equal(graded.sourcePassed, false, 'the recording issued the refund');
      assert.equal(graded.reason, graded.passed ? 'no refund in the tool calls' : 'issue_refund was called');
      assert.equal(server.requests.length, 2, 'one question for the fork, one for the recording');
      assert.ok(server.requests.every((q) => q.authorization === `Bearer ${KEY}` && q.model === 'gpt-4o-mini'));
      assert.ok(!a.text.includes(KEY), 'the key is in no answer');
    } finally {
      await mcp.close();
    }
  });

  it('without an endpoint: the model-graded assertion is refused, naming what the user must configure', async () => {
    const mcp = await connectClient({ storeLocation: storePath, env: {}, cwd: process.cwd() });
    try {
      const forks = forkCount();
      const a = await mcp.call('what_if', { ...ARGS, maxCostUsd: 1 });
      assert.equal(a.isError, true);
      assert.match(a.text, /no_refund_m.*model-graded.*OCDB_MODEL_BASE_URL/);
      assert.equal(forkCount(), forks);
    } finally {
      await mcp.close();
    }
  });
});

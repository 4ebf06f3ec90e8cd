/**
 * Ingest over HTTP: a run recorded by plain HTTP calls reads back like one
 * recorded with the SDK (steps, ledger, tool messages, end status); four
 * clients ingesting at once lose nothing; server.json goes away on close; the
 * stdlib-only Python snippet of media/docs/http-api.md records a run.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../../src/server/httpServer';
import { serverFilePath } from '../../../src/server/serverFile';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { call } from './httpClient';

let dir: string;
let store: SqlRunStore;
let server: RunningServer;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-ingest-'));
  store = openRunStore(path.join(dir, 'runs.db'));
  server = await startServer({ store });
});
afterEach(async () => {
  await server.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const post = async (p: string, body: unknown, expected = [200, 201]) => {
  const res = await call(server.url, { path: p, token: server.token, body });
  assert.ok(expected.includes(res.status), `${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
};

const context = (user: string) => ({
  user: { userId: user, roleId: 'analyst', permissions: ['read'] },
  conversation: { sessionId: `s-${user}` },
  project: { projectId: 'p' },
  task: { taskId: 't', workflowId: 'w', stepStates: {} },
  tools: { availableTools: ['search'] },
  model: { provider: 'openai', model: 'gpt-4o-mini', promptVersion: 'v1' },
});

/** One agent's run over HTTP: `steps` ReAct steps with one tool call each, one of them failing. */
async function ingestRun(runId: string, steps: number): Promise<void> {
  await post('/runs', {
    runId,
    agentId: 'http-agent',
    runtimeContext: context(runId),
    systemPrompt: 'Answer with the search tool.',
    messages: [{ role: 'user', content: `question of ${runId}` }],
  });
  let messages: unknown[] = [{ role: 'user', content: `question of ${runId}` }];
  for (let s = 0; s < steps; s++) {
    await post(`/runs/${runId}/checkpoints`, { boundary: 'before_prompt_build' });
    await post(`/runs/${runId}/checkpoints`, { boundary: 'before_model_call' });
    const toolCallId = `${runId}-t${s}`;
    messages = [
      ...messages,
      { role: 'assistant', content: [{ type: 'tool_call', toolCallId, toolName: 'search', args: { q: s } }] },
    ];
    await post(`/runs/${runId}/checkpoints`, {
      boundary: 'after_model_call',
      messages,
      finishReason: 'tool_calls',
      usage: { inputTokens: 10, outputTokens: 2 },
    });
    await post(`/runs/${runId}/tool-calls`, {
      phase: 'begin',
      toolCallId,
      toolName: 'search',
      args: { q: s },
      sideEffectLevel: 'read_only',
    });
    const fails = s === 1;
    await post(`/runs/${runId}/tool-calls`, {
      phase: 'finish',
      toolCallId,
      outcome: fails ? 'error' : 'success',
      ...(fails ? { error: { message: 'index offline' } } : { result: { hits: [s] } }),
    });
    const cps = (await call(server.url, { path: `/runs/${runId}/checkpoints`, token: server.token })).body as {
      checkpoints: { checkpointId: string }[];
    };
    const last = (
      await call(server.url, { path: `/checkpoints/${cps.checkpoints.at(-1)?.checkpointId}`, token: server.token })
    ).body as { messages: unknown[] };
    messages = last.messages;
  }
  await post(`/runs/${runId}/end`, {});
}

describe('HTTP ingest', () => {
  it('records a run whose checkpoints, steps, ledger and tool messages read back like an SDK run', async () => {
    await ingestRun('http-1', 3);
    const run = store.getRun('http-1');
    assert.equal(run.status, 'completed');
    assert.equal(run.checkpointCount, 3 * 5 + 1);
    assert.equal(run.stepCount, 3);
    assert.equal(run.toolCallCount, 3);
    assert.equal(run.toolErrorCount, 1);
    assert.equal(run.inputTokens, 30);
    const cps = store.listCheckpoints('http-1');
    assert.deepEqual(
      cps.slice(0, 5).map((c) => [c.boundary, c.stepIndex]),
      [
        ['before_prompt_build', 0],
        ['before_model_call', 0],
        ['after_model_call', 0],
        ['before_tool_call', 0],
        ['after_tool_call', 0],
      ],
    );
    const end = store.getCheckpointAt('http-1', run.checkpointCount - 1);
    assert.equal(end.boundary, 'agent_end');
    assert.equal(end.systemPrompt, 'Answer with the search tool.');
    assert.equal(end.toolLedgerSnapshot.length, 3);
    const toolMessages = end.messages.filter((m) => m.role === 'tool');
    assert.deepEqual(toolMessages[0]?.content, { hits: [0] });
    assert.deepEqual(toolMessages[1]?.content, { error: { message: 'index offline' } });
  });

  it('four clients ingesting at once lose nothing', async () => {
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => ingestRun(`conc-${id}`, 6)));
    for (const id of ['a', 'b', 'c', 'd']) {
      const run = store.getRun(`conc-${id}`);
      assert.equal(run.checkpointCount, 6 * 5 + 1, id);
      assert.equal(run.toolCallCount, 6, id);
      assert.equal(run.status, 'completed', id);
      const indexes = store.listCheckpoints(`conc-${id}`).map((c) => c.index);
      assert.deepEqual(indexes, [...indexes.keys()]);
    }
    assert.equal(store.integrityCheck(), 'ok');
  });

  it('refuses a checkpoint for an ended run (409) and a tool finish twice (409)', async () => {
    await ingestRun('http-2', 1);
    const late = await call(server.url, {
      path: '/runs/http-2/checkpoints',
      token: server.token,
      body: { boundary: 'before_prompt_build' },
    });
    assert.equal(late.status, 409);
    assert.equal((late.body as { error: { code: string } }).error.code, 'RunNotRunning');
    await post('/runs', { runId: 'http-3', agentId: 'x', runtimeContext: context('x') });
    await post('/runs/http-3/tool-calls', {
      phase: 'begin',
      toolCallId: 't',
      toolName: 'search',
      args: {},
      sideEffectLevel: 'none',
    });
    const finish = { phase: 'finish', toolCallId: 't', outcome: 'success', result: 1 };
    await post('/runs/http-3/tool-calls', finish);
    const twice = await call(server.url, { path: '/runs/http-3/tool-calls', token: server.token, body: finish });
    assert.equal(twice.status, 409);
    assert.equal((twice.body as { error: { code: string } }).error.code, 'ToolCallAlreadyFinished');
    assert.equal(store.getRun('http-3').toolCallCount, 1);
  });

  it('a restarted server goes on with a run where the last one left it (step, ledger, conversation)', async () => {
    await post('/runs', {
      runId: 'http-4',
      agentId: 'x',
      runtimeContext: context('x'),
      messages: [{ role: 'user', content: 'q' }],
    });
    await post('/runs/http-4/checkpoints', { boundary: 'before_model_call' });
    await post('/runs/http-4/tool-calls', {
      phase: 'begin',
      toolCallId: 'a',
      toolName: 'search',
      args: { q: 1 },
      sideEffectLevel: 'read_only',
    });
    await server.close();
    server = await startServer({ store });
    await post('/runs/http-4/tool-calls', { phase: 'finish', toolCallId: 'a', outcome: 'cancelled' });
    await post('/runs/http-4/checkpoints', { boundary: 'before_model_call' });
    await post('/runs/http-4/end', {});
    const run = store.exportRun('http-4');
    assert.deepEqual(
      run.checkpoints.map((c) => `${c.stepIndex}:${c.boundary}`),
      ['0:before_model_call', '0:before_tool_call', '0:after_tool_call', '1:before_model_call', '-1:agent_end'],
    );
    const last = run.checkpoints.at(-1);
    assert.deepEqual(
      last?.messages.map((m) => m.role),
      ['user', 'tool'],
    );
    assert.deepEqual(last?.toolLedgerSnapshot[0]?.error, { name: 'Cancelled', message: 'cancelled' });
  });

  it('removes server.json on close', async () => {
    const file = serverFilePath(store.path);
    assert.ok(fs.existsSync(file));
    await server.close();
    assert.ok(!fs.existsSync(file));
    server = await startServer({ store });
  });

  it("the HTTP API page's Python snippet (stdlib only) records a run", async () => {
    const python = spawnSync('python3', ['--version']);
    assert.equal(python.status, 0, 'python3 is needed for this test');
    const script = path.join(__dirname, '../../fixtures/agents/record_run.py');
    const doc = fs.readFileSync(path.join(__dirname, '../../../media/docs/http-api.md'), 'utf8');
    const snippet = fs
      .readFileSync(script, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n')
      .trim();
    assert.ok(doc.includes(snippet), 'media/docs/http-api.md shows test/fixtures/agents/record_run.py as it is tested');
    // Async: the server answering the snippet lives in this process.
    const child = spawn('python3', [script, store.path]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    const runId = stdout.trim();
    const run = store.getRun(runId);
    assert.equal(run.status, 'completed');
    assert.equal(run.agentId, 'python-agent');
    assert.equal(run.toolCallCount, 1);
    const cps = store.listCheckpoints(runId).map((c) => c.boundary);
    assert.deepEqual(cps, [
      'before_model_call',
      'after_model_call',
      'before_tool_call',
      'after_tool_call',
      'before_model_call',
      'after_model_call',
      'agent_end',
    ]);
  });
});

/**
 * How the MCP server answers what goes wrong, through the SDK's client: bad arguments, unknown tools and ids, a
 * store that is not there yet, a fault of a tool — each a tool error naming the field and what to call next,
 * the server answering on afterwards; secrets never in an answer; many calls at once (reads beside forks) each
 * answered as when made alone.
 */
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { writeDemoStore } from '../../../src/demo';
import { defineTool } from '../../../src/mcp/toolContext';
import { MCP_TOOLS } from '../../../src/mcp/mcpTools';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpDir } from '../../helpers/tmp';
import { connectClient, type TestClient } from './mcpClient';

const dir = tmpDir('ocdb-mcp-errors-');
const storePath = join(dir, 'runs.db');
const SECRETS = ['sk-live-4f9a8b7c6d5e4f3a2b1c', 'ghp_abcdefghijklmnopqrstuvwxyz0123', 'hunter2-password-value'];

/** A run whose tool call and messages carry credentials, as a careless agent records them. */
function recordLeakyRun(): void {
  const store = openRunStore(storePath);
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: false });
  const run = recorder.startRun({ agentId: 'leaky-agent', runId: 'leaky-run', runtimeContext: testContext() });
  run.checkpoint('before_model_call', {
    messages: [{ role: 'user', content: `Deploy with token ${SECRETS[1]} please` }],
  });
  const id = run.beginTool(
    'http_request',
    { url: 'https://api.example.com/v1/x', headers: { Authorization: `Bearer ${SECRETS[0]}` }, password: SECRETS[2] },
    { sideEffectLevel: 'read_only' },
  );
  run.finishTool(id, 'error', { message: `401 for key=${SECRETS[0]}` });
  run.end({ status: 'failed', error: { message: `request failed: Authorization: Bearer ${SECRETS[0]}` } });
  recorder.close();
  store.close();
}

/** A tool that fails as a bug would: the server answers a tool error and goes on. */
const brokenTool = defineTool({
  name: 'broken',
  title: 'Broken',
  description: 'Always throws a TypeError.',
  input: z.object({}).strict(),
  readOnly: true,
  run() {
    throw new TypeError('cannot read properties of undefined');
  },
});

describe('MCP tool errors', () => {
  let mcp: TestClient;
  const logged: string[] = [];

  before(async () => {
    const store = openRunStore(storePath);
    writeDemoStore(store);
    store.close();
    recordLeakyRun();
    mcp = await connectClient({
      storeLocation: storePath,
      env: {},
      cwd: dir,
      tools: [...MCP_TOOLS, brokenTool],
      log: (line) => logged.push(line),
    });
  });
  after(() => mcp.close());

  const errorOf = (a: { isError: boolean; json: Record<string, unknown> }) => {
    assert.equal(a.isError, true, JSON.stringify(a.json));
    return a.json.error as { code: string; message: string; path?: string; next?: string };
  };

  it('names the argument that is wrong, and what is expected', async () => {
    const wrongType = errorOf(await mcp.call('read_checkpoints', { runId: 'demo-support-refund', limit: 'ten' }));
    assert.equal(wrongType.code, 'InvalidInput');
    assert.equal(wrongType.path, 'limit');
    assert.match(wrongType.message, /read_checkpoints: limit: .*number/);
    const unknownKey = errorOf(await mcp.call('run_summary', { runId: 'demo-support-refund', verbose: true }));
    assert.match(unknownKey.message, /verbose/);
    const missing = errorOf(await mcp.call('compare_runs', { leftRunId: 'demo-support-refund' }));
    assert.equal(missing.path, 'rightRunId');
    const outOfRange = errorOf(await mcp.call('find_runs', { limit: 1000 }));
    assert.equal(outOfRange.path, 'limit');
    const badTime = errorOf(await mcp.call('find_runs', { since: 'last tuesday' }));
    assert.equal(badTime.path, 'since');
    const both = errorOf(await mcp.call('search_run', { runId: 'demo-support-refund' }));
    assert.match(both.message, /either text or expression/);
    const badExpression = errorOf(
      await mcp.call('search_run', { runId: 'demo-support-refund', expression: 'toolName ==' }),
    );
    assert.equal(badExpression.path, 'expression');
    // a `__proto__` key (as JSON.parse makes it) is refused before anything reads the arguments
    const proto = JSON.parse('{"user": {"__proto__": {"roleId": "admin"}}}') as Record<string, unknown>;
    const polluted = errorOf(await mcp.call('plan_fork', { runId: 'x', checkpoint: 0, contextPatch: proto }));
    assert.equal(polluted.code, 'InvalidInput');
    assert.match(polluted.message, /__proto__/);
    for (const e of [wrongType, unknownKey, missing]) assert.match(e.next ?? '', /Correct the argument/);
  });

  it('says which ids exist when one is unknown', async () => {
    const run = errorOf(await mcp.call('run_summary', { runId: 'no-such-run' }));
    assert.equal(run.code, 'RunNotFound');
    assert.match(run.next ?? '', /find_runs/);
    const cp = errorOf(await mcp.call('read_checkpoints', { runId: 'demo-support-escalation', offset: 500 }));
    assert.equal(cp.code, 'CheckpointNotFound');
    assert.match(cp.message, /18 checkpoints \(indexes 0-17\)/);
    const cpId = errorOf(
      await mcp.call('read_checkpoints', {
        runId: 'demo-support-escalation',
        checkpointId: 'demo-support-refund-cp000',
      }),
    );
    assert.match(cpId.message, /belongs to run demo-support-refund/);
    const call = errorOf(await mcp.call('tool_calls', { runId: 'demo-support-escalation', toolCallId: 'nope' }));
    assert.equal(call.code, 'ToolCallNotFound');
    const tool = errorOf(await mcp.call('tool_calls', { runId: 'demo-support-escalation', toolName: 'send_email' }));
    assert.match(tool.message, /never called send_email; its tools are: lookup_customer, lookup_order/);
    const fork = errorOf(await mcp.call('fork_run', { runId: 'demo-support-refund', checkpoint: 999 }));
    assert.equal(fork.code, 'CheckpointNotFound');
    const name = errorOf(await mcp.call('find_everything', {}));
    assert.match(name.message, /Unknown tool find_everything: this server's tools are find_runs, run_summary/);
  });

  it('answers a fault of a tool as a tool error and goes on serving', async () => {
    const fault = errorOf(await mcp.call('broken', {}));
    assert.equal(fault.code, 'Internal');
    assert.match(fault.message, /cannot read properties of undefined/);
    assert.ok(
      logged.some((l) => l.includes('broken') && l.includes('TypeError')),
      logged.join('\n'),
    );
    const after = await mcp.call('find_runs', { limit: 1 });
    assert.equal(after.isError, false);
  });

  it('never answers a secret', async () => {
    const answers = await Promise.all([
      mcp.call('find_runs', { agentId: 'leaky-agent' }),
      mcp.call('run_summary', { runId: 'leaky-run' }),
      mcp.call('read_checkpoints', { runId: 'leaky-run', detail: 'state', limit: 10 }),
      mcp.call('tool_calls', { runId: 'leaky-run' }),
      mcp.call('tool_calls', { runId: 'leaky-run', toolCallId: 'x' }),
      mcp.call('search_run', { runId: 'leaky-run', text: 'token' }),
      mcp.call('search_run', { runId: 'leaky-run', text: 'bearer' }),
      mcp.call('read_checkpoints', { runId: 'leaky-run', expression: 'toolLedger[0].args' }),
    ]);
    const resource = await mcp.client.readResource({ uri: 'ocdb://run/leaky-run' });
    const texts = [...answers.map((a) => a.text), JSON.stringify(resource)];
    for (const secret of SECRETS) {
      for (const text of texts) assert.ok(!text.includes(secret), `${secret} in ${text.slice(0, 300)}`);
    }
    // what was found is still said, with the secret replaced
    const bearer = answers[6]?.json.hits as { excerpt: string }[];
    assert.ok(bearer.length > 0);
    assert.ok(
      bearer.every((h) => h.excerpt.includes('[REDACTED]')),
      JSON.stringify(bearer),
    );
  });

  it('answers many calls at once, reads beside forks, each as when made alone', async () => {
    const reads: [string, Record<string, unknown>][] = [
      ['run_summary', { runId: 'demo-support-escalation' }],
      ['read_checkpoints', { runId: 'demo-support-refund', offset: 10, limit: 5, detail: 'state' }],
      ['tool_calls', { runId: 'demo-support-refund' }],
      ['search_run', { runId: 'demo-support-refund', text: 'refund' }],
      ['compare_runs', { leftRunId: 'demo-support-refund', rightRunId: 'demo-support-refund-auditor' }],
      ['find_runs', {}],
    ];
    const alone = [];
    for (const [name, args] of reads) alone.push((await mcp.call(name, args)).text);
    const fork = { runId: 'demo-support-refund', checkpoint: 0, toolPolicy: { '*': 'reuse_result' } };
    const together = await Promise.all([
      ...reads.map(([name, args]) => mcp.call(name, args)),
      mcp.call('fork_run', { ...fork, contextPatch: { user: { roleId: 'auditor' } } }),
      ...reads.map(([name, args]) => mcp.call(name, args)),
      mcp.call('fork_run', { ...fork, checkpoint: 6 }),
      mcp.call('fork_run', { ...fork, contextPatch: { user: { roleId: 'auditor' } } }),
    ]);
    const forks = [together[6], together[13], together[14]];
    for (const f of forks) assert.equal(f?.isError, false, f?.text);
    assert.equal(new Set(forks.map((f) => f?.json.forkRunId)).size, 3);
    assert.match(forks[0]?.json.status as string, /^diverged at step/);
    assert.equal(forks[2]?.json.status, forks[0]?.json.status);
    // reads made while forks were written: the same answers (find_runs lists the new forks: compared apart)
    for (const [i, [name]] of reads.entries()) {
      if (name === 'find_runs') continue;
      assert.equal(together[i]?.text, alone[i], name);
      assert.equal(together[i + 7]?.text, alone[i], name);
    }
  });

  it('says there is no store yet, and an import makes one', async () => {
    const emptyDir = tmpDir('ocdb-mcp-nostore-');
    const fresh = await connectClient({ storeLocation: join(emptyDir, 'runs.db'), env: {}, cwd: emptyDir });
    try {
      const none = errorOf(await fresh.call('find_runs', {}));
      assert.equal(none.code, 'StoreUnavailable');
      assert.match(none.message, /No run store at/);
      const missingFile = errorOf(await fresh.call('import_trace', { path: 'nowhere.jsonl' }));
      assert.equal(missingFile.code, 'InvalidInput');
      const fixture = resolve(
        __dirname,
        '../../fixtures/importers/codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl',
      );
      const imported = await fresh.call('import_trace', { path: fixture });
      assert.equal(imported.isError, false, imported.text);
      assert.equal(imported.json.imported, 1);
      const [run] = imported.json.runs as { runId: string }[];
      const summary = await fresh.call('run_summary', { runId: run?.runId ?? '' });
      assert.equal(summary.isError, false, summary.text);
      const again = await fresh.call('import_trace', { path: fixture });
      assert.equal(again.json.imported, 0);
    } finally {
      await fresh.close();
    }
  });
});

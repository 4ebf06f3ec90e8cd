/**
 * The MCP server on the demo store, driven as a coding agent would through the SDK's client: find the failed
 * runs, say where and why demo-support-escalation failed, compare demo-support-refund with its auditor fork, and
 * a captured what-if (user.roleId = auditor) that diverges with no tool executed — and the fork that would re-run
 * an irreversible tool refused with the gate's reason, nothing created.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';
import { connectClient, type TestClient } from './mcpClient';

const AUDITOR = { user: { roleId: 'auditor' } };

const storePath = join(tmpDir('ocdb-mcp-demo-'), 'runs.db');

describe('MCP server on the demo store', () => {
  let mcp: TestClient;

  before(async () => {
    const store = openRunStore(storePath);
    writeDemoStore(store);
    store.close();
    mcp = await connectClient({ storeLocation: storePath, env: {}, cwd: process.cwd() });
  });
  after(() => mcp.close());

  function runCount(): number {
    const store = openRunStore(storePath, { create: false });
    try {
      return store.listRuns().total;
    } finally {
      store.close();
    }
  }

  it('lists its tools with input schemas and says how to use them', async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'find_runs',
        'run_summary',
        'read_checkpoints',
        'search_run',
        'tool_calls',
        'compare_runs',
        'run_timeline',
        'plan_fork',
        'fork_run',
        'what_if',
        'import_trace',
      ],
    );
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.ok((t.description ?? '').length > 80, `${t.name} says what it answers`);
    }
    assert.equal(tools.find((t) => t.name === 'fork_run')?.annotations?.readOnlyHint, false);
    assert.equal(tools.find((t) => t.name === 'what_if')?.annotations?.readOnlyHint, false);
    assert.equal(tools.find((t) => t.name === 'run_timeline')?.annotations?.readOnlyHint, true);
    assert.equal(tools.find((t) => t.name === 'find_runs')?.annotations?.readOnlyHint, true);
    assert.match(mcp.client.getInstructions() ?? '', /captured/);
  });

  it('finds the failed runs', async () => {
    const failed = await mcp.call('find_runs', { status: 'failed' });
    assert.equal(failed.isError, false);
    const runs = failed.json.runs as { runId: string; status: string; error?: string }[];
    assert.deepEqual(
      runs.map((r) => r.runId),
      ['demo-support-escalation'],
    );
    assert.match(runs[0]?.error ?? '', /HTTP 503/);
    const crashed = await mcp.call('find_runs', { status: 'crashed' });
    assert.deepEqual(
      (crashed.json.runs as { runId: string }[]).map((r) => r.runId),
      ['demo-research-crashed'],
    );
  });

  it('says at which step and tool call demo-support-escalation failed, and why', async () => {
    const summary = await mcp.call('run_summary', { runId: 'demo-support-escalation' });
    assert.equal(summary.isError, false);
    const failure = summary.json.failure as { message: string; at: Record<string, unknown> };
    assert.match(failure.message, /escalate_to_human failed twice: escalation queue rejected the ticket: HTTP 503/);
    assert.equal(failure.at.toolName, 'escalate_to_human');
    assert.equal(failure.at.toolCallId, 'call_support-escalation_04');
    assert.equal(failure.at.step, 2);
    assert.equal(failure.at.checkpointIndex, 15);
    assert.deepEqual(failure.at.error, {
      name: 'QueueUnavailable',
      message: 'escalation queue rejected the ticket: HTTP 503',
      code: 'E_QUEUE_503',
    });
    // the earlier error the agent worked around is listed too
    const errors = summary.json.toolErrors as { toolName: string; step: number }[];
    assert.deepEqual(
      errors.map((e) => [e.toolName, e.step]),
      [
        ['lookup_order', 0],
        ['escalate_to_human', 2],
      ],
    );
    // the checkpoint it names holds that call, with its arguments
    const at = await mcp.call('read_checkpoints', {
      runId: 'demo-support-escalation',
      offset: 15,
      limit: 1,
      detail: 'state',
    });
    const [cp] = at.json.checkpoints as { boundary: string; toolCall: { toolName: string; args: unknown } }[];
    assert.equal(cp?.boundary, 'before_tool_call');
    assert.equal(cp?.toolCall.toolName, 'escalate_to_human');
    assert.deepEqual(cp?.toolCall.args, {
      customerId: 'C-9120',
      orderId: 'B-20991',
      queue: 'billing',
      reason: 'double_charge_cross_region',
    });
  });

  it('compares demo-support-refund with its auditor fork', async () => {
    const c = await mcp.call('compare_runs', {
      leftRunId: 'demo-support-refund',
      rightRunId: 'demo-support-refund-auditor',
    });
    assert.equal(c.isError, false);
    assert.equal(c.json.relation, 'fork');
    const forkPoint = c.json.forkPoint as { stepIndex: number; sourceRunId: string };
    assert.equal(forkPoint.sourceRunId, 'demo-support-refund');
    assert.equal(forkPoint.stepIndex, 5);
    const paths = (c.json.contextChanges as { path: string }[]).map((ch) => ch.path);
    assert.ok(paths.includes('user.roleId'), paths.join(', '));
    assert.equal((c.json.firstDivergence as { stepIndex: number }).stepIndex, 5);
    const tools = (c.json.tools as { toolName: string; leftCalls: number; rightCalls: number }[]).map((t) => [
      t.toolName,
      t.leftCalls,
      t.rightCalls,
    ]);
    assert.ok(
      tools.some(([name, left, right]) => name === 'issue_refund' && left === 1 && right === 0),
      JSON.stringify(tools),
    );
  });

  it('runs a captured what-if with user.roleId = auditor: diverged at a step, no tool executed', async () => {
    const plan = await mcp.call('plan_fork', {
      runId: 'demo-support-refund',
      checkpoint: 0,
      contextPatch: AUDITOR,
      toolPolicy: { '*': 'reuse_result' },
    });
    assert.equal(plan.isError, false);
    assert.equal(plan.json.canFork, true);
    const predicted = (plan.json.plan as { predictedDivergence: { stepIndex: number } }).predictedDivergence;
    const before = runCount();
    const fork = await mcp.call('fork_run', {
      runId: 'demo-support-refund',
      checkpoint: 0,
      contextPatch: AUDITOR,
      toolPolicy: { '*': 'reuse_result' },
    });
    assert.equal(fork.isError, false, fork.text);
    assert.match(fork.json.status as string, /^diverged at step \d+ · system prompt$/);
    const divergence = fork.json.divergence as { step: number; rendered: string; recorded: string };
    assert.equal(fork.json.status, `diverged at step ${divergence.step} · system prompt`);
    assert.equal(divergence.step, predicted.stepIndex, 'the run diverges where the plan said');
    assert.match(divergence.rendered, /You act as auditor/);
    assert.match(divergence.recorded, /You act as support_agent/);
    assert.deepEqual((fork.json.toolCalls as { executed: string[] }).executed, []);
    assert.equal(runCount(), before + 1);
    // the fork is a run of the store the other tools read
    const forkRunId = fork.json.forkRunId as string;
    const summary = await mcp.call('run_summary', { runId: forkRunId });
    assert.equal((summary.json.run as { status: string }).status, fork.json.status);
    assert.equal((summary.json.run as { parentRunId: string }).parentRunId, 'demo-support-refund');
  });

  it("refuses a fork that would re-run an irreversible tool, with the gate's reason, creating nothing", async () => {
    const before = runCount();
    const refused = await mcp.call('fork_run', { runId: 'demo-support-refund', checkpoint: 0, contextPatch: AUDITOR });
    assert.equal(refused.isError, true);
    const error = refused.json.error as {
      code: string;
      message: string;
      hazards: { toolName: string }[];
      next: string;
    };
    assert.equal(error.code, 'ForkRejected');
    assert.match(error.message, /send_email is external_irreversible/);
    assert.deepEqual(error.hazards.map((h) => h.toolName).sort(), ['send_email', 'write_case_report']);
    assert.match(error.next, /reuse_result/);
    // '*' never unlocks it, even with every tool acknowledged by name
    const wildcard = await mcp.call('fork_run', {
      runId: 'demo-support-refund',
      checkpoint: 0,
      toolPolicy: { '*': 're_execute' },
      acknowledge: ['send_email', 'write_case_report', 'issue_refund'],
    });
    assert.equal(wildcard.isError, true);
    const wildcardError = wildcard.json.error as { code: string; hazards: { toolName: string }[] };
    assert.equal(wildcardError.code, 'ForkRejected');
    assert.deepEqual(wildcardError.hazards.map((h) => h.toolName).sort(), ['issue_refund', 'send_email']);
    // acknowledging '*' is refused outright
    const star = await mcp.call('fork_run', { runId: 'demo-support-refund', checkpoint: 0, acknowledge: ['*'] });
    assert.equal((star.json.error as { path: string }).path, 'acknowledge');
    assert.equal(runCount(), before);
  });

  it('asks for the endpoint the user configures before a real-model fork', async () => {
    const real = await mcp.call('fork_run', {
      runId: 'demo-support-refund',
      checkpoint: 0,
      model: 'real',
      toolPolicy: { '*': 'reuse_result' },
    });
    assert.equal(real.isError, true);
    assert.match((real.json.error as { message: string }).message, /OCDB_MODEL_BASE_URL/);
  });

  it('searches a run by text and by expression', async () => {
    const text = await mcp.call('search_run', { runId: 'demo-support-escalation', text: 'http 503' });
    const hits = text.json.hits as { checkpointIndex: number; where: string }[];
    assert.ok(
      hits.some((h) => h.checkpointIndex === 15 && /escalate_to_human\) error/.test(h.where)),
      JSON.stringify(hits),
    );
    assert.ok(
      hits.some((h) => h.checkpointIndex === 16 && h.where.startsWith('message')),
      JSON.stringify(hits),
    );
    const expr = await mcp.call('search_run', {
      runId: 'demo-support-escalation',
      expression: 'toolName == "escalate_to_human"',
    });
    assert.deepEqual(
      (expr.json.hits as { checkpointIndex: number }[]).map((h) => h.checkpointIndex),
      [15, 16],
    );
    const context = await mcp.call('search_run', {
      runId: 'demo-support-refund-auditor',
      text: 'auditor',
      in: ['context'],
    });
    assert.equal((context.json.hits as { where: string }[])[0]?.where, 'runtimeContext.user.roleId');
  });

  it('pages the tool ledger', async () => {
    const page = await mcp.call('tool_calls', { runId: 'demo-support-refund', limit: 4 });
    const calls = page.json.calls as { toolCallId: string }[];
    assert.equal(calls.length, 4);
    assert.deepEqual(page.json.page, { offset: 0, count: 4, total: 10, nextOffset: 4 });
    assert.equal(page.json.truncated, true);
    const next = await mcp.call('tool_calls', { runId: 'demo-support-refund', offset: 4, limit: 20 });
    assert.equal((next.json.calls as unknown[]).length, 6);
    assert.equal(next.json.truncated, false);
    const ids = [...calls, ...(next.json.calls as { toolCallId: string }[])].map((c) => c.toolCallId);
    assert.equal(new Set(ids).size, 10);
    const errors = await mcp.call('tool_calls', { runId: 'demo-support-refund', outcome: 'error' });
    assert.deepEqual(
      (errors.json.calls as { outcome: string }[]).map((c) => c.outcome),
      ['error'],
    );
  });

  it('serves runs and checkpoints as resources, and the failure prompt', async () => {
    const { resources } = await mcp.client.listResources();
    assert.ok(resources.some((r) => r.uri === 'ocdb://run/demo-support-escalation'));
    const run = await mcp.client.readResource({ uri: 'ocdb://run/demo-support-escalation' });
    const body = JSON.parse((run.contents[0] as { text: string }).text) as { failure: { at: { step: number } } };
    assert.equal(body.failure.at.step, 2);
    const cp = await mcp.client.readResource({ uri: 'ocdb://run/demo-support-escalation/checkpoint/15' });
    const state = JSON.parse((cp.contents[0] as { text: string }).text) as { toolCall: { toolName: string } };
    assert.equal(state.toolCall.toolName, 'escalate_to_human');
    await assert.rejects(mcp.client.readResource({ uri: 'ocdb://run/no-such-run' }), (e: Error) => {
      assert.match(e.message, /No run no-such-run/);
      return true;
    });
    const prompt = await mcp.client.getPrompt({
      name: 'find_why_run_failed',
      arguments: { runId: 'demo-support-escalation' },
    });
    const text = (prompt.messages[0]?.content as { text: string }).text;
    assert.match(text, /demo-support-escalation/);
    assert.match(text, /run_summary/);
  });
});

/**
 * The MCP server's what-if across runs and timeline tools on the demo store, driven through the SDK's client: the
 * captured auditor what-if of the refund run forked at its email step reports "diverged at step 7" with no tool
 * executed and a clean certificate; from its first checkpoint it diverges at step 0 (the role is in the system
 * prompt from the start); a batch that would re-run the irreversible tools through '*' is refused whole with the
 * gate's reason and creates nothing; and the refund run's timeline names its forks, the auditor's divergence and
 * its irreversible calls.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';
import { connectClient, type TestClient } from './mcpClient';

const AUDITOR = { user: { roleId: 'auditor' } };
const storePath = join(tmpDir('ocdb-mcp-whatif-'), 'runs.db');

interface Result {
  runId: string;
  forkRunId?: string;
  outcome: string;
  detail: string;
  divergedAtStep?: number;
  executed: string[];
  assertions?: { name: string; passed: boolean; sourcePassed?: boolean }[];
}

describe('MCP what_if and run_timeline on the demo store', () => {
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

  it('runs the captured auditor what-if from the email step: diverged at step 7, no tool executed', async () => {
    const a = await mcp.call('what_if', {
      runIds: ['demo-support-refund'],
      at: { step: 7 },
      contextPatch: AUDITOR,
      toolPolicy: { '*': 'reuse_result' },
      assertions: [{ name: 'no_email', expression: "!tool('send_email')" }],
    });
    assert.equal(a.isError, false, a.text);
    const [r] = a.json.results as Result[];
    assert.equal(r?.outcome, 'diverged');
    assert.equal(r?.divergedAtStep, 7);
    assert.match(r?.detail ?? '', /^diverged at step 7 · system prompt/);
    assert.deepEqual(r?.executed, []);
    // the fork stopped before send_email: no email in the fork; the recording sent one
    assert.deepEqual(r?.assertions, [{ name: 'no_email', passed: true, sourcePassed: false }]);
    const certificate = a.json.certificate as { clean: boolean; statement: string; executed: unknown[] };
    assert.equal(certificate.clean, true);
    assert.deepEqual(certificate.executed, []);
    assert.match(certificate.statement, /no write or external_irreversible tool ran/);
    // the fork is a run the other tools read
    const summary = await mcp.call('run_summary', { runId: r?.forkRunId });
    assert.equal((summary.json.run as { status: string }).status, 'diverged at step 7 · system prompt');
  });

  it('from the first checkpoint the same change diverges at step 0: the role is in the prompt from the start', async () => {
    const a = await mcp.call('what_if', {
      agentId: 'support-desk',
      contextPatch: AUDITOR,
      toolPolicy: { '*': 'reuse_result' },
    });
    assert.equal(a.isError, false, a.text);
    const results = a.json.results as Result[];
    const refund = results.find((r) => r.runId === 'demo-support-refund');
    assert.equal(refund?.divergedAtStep, 0);
    assert.equal(a.json.runs, results.length);
    assert.ok(results.every((r) => r.executed.length === 0));
    assert.equal((a.json.certificate as { clean: boolean }).clean, true);
  });

  it("refuses a what-if whose '*' would re-run irreversible tools, before any fork, with the gate's reason", async () => {
    const before = runCount();
    const refused = await mcp.call('what_if', {
      runIds: ['demo-support-refund'],
      contextPatch: AUDITOR,
      toolPolicy: { '*': 're_execute' },
      acknowledge: ['send_email', 'write_case_report', 'issue_refund'],
    });
    assert.equal(refused.isError, true);
    const error = refused.json.error as { code: string; message: string };
    assert.equal(error.code, 'ForkRejected');
    assert.match(error.message, /refused before running anything/);
    assert.match(error.message, /issue_refund \(external_irreversible, re_execute from '\*'\)/);
    const star = await mcp.call('what_if', { runIds: ['demo-support-refund'], acknowledge: ['*'] });
    assert.equal((star.json.error as { path: string }).path, 'acknowledge');
    const real = await mcp.call('what_if', { runIds: ['demo-support-refund'], model: 'real' });
    assert.match((real.json.error as { message: string }).message, /OCDB_MODEL_BASE_URL/);
    assert.equal(runCount(), before);
  });

  it("tells the refund run's timeline: its forks, the auditor's divergence, its irreversible calls", async () => {
    const t = await mcp.call('run_timeline', { runId: 'demo-support-refund' });
    assert.equal(t.isError, false, t.text);
    const runs = t.json.runs as {
      runId: string;
      kind: string;
      status: string;
      steps: number;
      forkedAtCheckpoint?: number;
      toolCalls: { total: number; byOutcome: Record<string, number> };
      notableCalls: { checkpoint: number; text: string }[];
    }[];
    const [root] = runs;
    assert.equal(root?.runId, 'demo-support-refund');
    assert.equal(root?.steps, 9);
    assert.equal(root?.toolCalls.total, 10);
    assert.equal(root?.toolCalls.byOutcome.error, 1);
    const texts = root?.notableCalls.map((c) => c.text) ?? [];
    assert.ok(
      texts.some((x) => /^\[32\] step 5 · issue_refund · external_irreversible/.test(x)),
      texts.join('\n'),
    );
    assert.ok(
      texts.some((x) => /get_shipping_events · read_only · error/.test(x)),
      texts.join('\n'),
    );
    const auditor = runs.find((r) => r.runId === 'demo-support-refund-auditor');
    assert.equal(auditor?.kind, 'fork');
    assert.equal(auditor?.forkedAtCheckpoint, 29);
    const diverged = runs.filter((r) => /^diverged at step \d+ · system prompt$/.test(r.status));
    assert.ok(diverged.length >= 1, runs.map((r) => `${r.runId}: ${r.status}`).join('\n'));
    const unknown = await mcp.call('run_timeline', { runId: 'no-such-run' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /No run no-such-run/);
  });
});

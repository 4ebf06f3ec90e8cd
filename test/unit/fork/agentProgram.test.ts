/**
 * Agent-program mode end to end with the example refund agent: a live run is
 * recorded against a fake model endpoint, then forks are executed by the
 * agent's own code (OCDB_FORK) — captured turns and reused results without
 * side effects, divergence on a patched prompt, an acknowledged re_execute
 * that really runs, manual_confirm answered by the user, forbid that never
 * calls the tool.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRecorder } from '../../../src/recorder';
import { ForkService } from '../../../src/fork/forkService';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/agents/fakeModelServer';
import { runRefundAgent } from '../../fixtures/agents/refundAgent';

let dir: string;
let storePath: string;
let store: SqlRunStore;
let server: FakeModelServer;
let liveRunId: string;

/** The model's script: look the order up, refund it, answer. */
function script(_req: unknown, i: number) {
  const turns = [
    { content: 'Let me check the order.', toolCalls: [{ id: 'c1', name: 'lookup_order', args: { orderId: 'o-1' } }] },
    { content: 'Refunding.', toolCalls: [{ id: 'c2', name: 'issue_refund', args: { orderId: 'o-1' } }] },
    { content: 'Your refund r-o-1 is issued.' },
  ];
  return turns[i % 3] ?? { content: 'done' };
}

const effectsFile = (name: string) => path.join(dir, `${name}.effects`);
const effects = (name: string) => (fs.existsSync(effectsFile(name)) ? fs.readFileSync(effectsFile(name), 'utf8') : '');

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-agent-'));
  storePath = path.join(dir, 'runs.db');
  store = openRunStore(storePath);
  server = await startFakeModelServer(script);
  const recorder = openRecorder({ runStore: store, fork: false, heartbeatMs: 0 });
  liveRunId = await runRefundAgent(recorder, server.url, effectsFile('live'));
  recorder.close();
});
after(async () => {
  await server.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function stepStart(step: number): string {
  const cp = store.listCheckpoints(liveRunId).find((c) => c.boundary === 'before_prompt_build' && c.stepIndex === step);
  assert.ok(cp);
  return cp.checkpointId;
}

/** Runs the agent in this process against fork `forkRequestId` (the SDK as OCDB_FORK would). */
async function runForkInProcess(forkRequestId: string, name: string, forkMode = {}): Promise<string> {
  const recorder = openRecorder({ runStore: store, fork: forkRequestId, heartbeatMs: 0, forkMode });
  try {
    return await runRefundAgent(recorder, server.url, effectsFile(name));
  } finally {
    recorder.close();
  }
}

describe('agent-program mode', () => {
  it('records the live run with real side effects', () => {
    assert.equal(store.getRun(liveRunId).status, 'completed');
    assert.equal(effects('live'), 'lookup_order o-1\nissue_refund o-1\n');
  });

  it('runs a fork as a separate process with OCDB_FORK: captured turns, recorded results, no side effects', async () => {
    const created = new ForkService(store).create({
      sourceRunId: liveRunId,
      sourceCheckpointId: stepStart(1),
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const requestsBefore = server.requests.length;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, '../../fixtures/agents/refundAgent.ts')],
      {
        env: {
          ...process.env,
          OCDB_FORK: created.forkRequestId,
          OCDB_STORE: storePath,
          MODEL_URL: server.url,
          AGENT_EFFECTS: effectsFile('child'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(stdout.trim(), created.runId, 'the agent recorded into the fork run');
    assert.equal(effects('child'), '', 'no tool really ran');
    assert.equal(server.requests.length, requestsBefore, 'captured turns spend no model calls');
    const run = store.getRun(created.runId);
    assert.equal(run.status, 'completed');
    assert.equal(run.mode, 'fork');
    assert.equal(run.crashed, false);
    assert.equal(store.getForkRequest(created.forkRequestId).status, 'completed');
    const refund = store.listToolCalls(created.runId).find((t) => t.toolName === 'issue_refund');
    assert.deepEqual(refund?.result, { refundId: 'r-o-1', status: 'issued' });
    assert.equal(refund?.replayPolicy, 'reuse_result');
  });

  it('stops with diverged when the patched context changes the agent prompt', async () => {
    const created = new ForkService(store).create({
      sourceRunId: liveRunId,
      sourceCheckpointId: stepStart(1),
      contextPatch: { user: { roleId: 'auditor' } },
      toolPolicyMap: { '*': 'reuse_result' },
    });
    await runForkInProcess(created.forkRequestId, 'diverged');
    const request = store.getForkRequest(created.forkRequestId);
    assert.equal(request.status, 'diverged');
    const error = request.error as { code: string; divergence: { stepIndex: number; field: string } };
    assert.equal(error.code, 'diverged');
    assert.equal(error.divergence.stepIndex, 1);
    assert.equal(error.divergence.field, 'systemPrompt');
    const run = store.getRun(created.runId);
    assert.equal(run.status, 'diverged', 'however the agent ended after the error reached it');
    assert.equal((run.error as { code: string }).code, 'diverged');
  });

  it('re-executes a named, acknowledged irreversible tool with the agent code', async () => {
    const created = new ForkService(store).create(
      {
        sourceRunId: liveRunId,
        sourceCheckpointId: stepStart(1),
        toolPolicyMap: { '*': 'reuse_result', issue_refund: 're_execute' },
      },
      ['issue_refund'],
    );
    await runForkInProcess(created.forkRequestId, 'reexec');
    assert.equal(effects('reexec'), 'issue_refund o-1\n');
    assert.equal(store.getForkRequest(created.forkRequestId).status, 'completed');
  });

  it('forbid_replay never calls the tool', async () => {
    const created = new ForkService(store).create({
      sourceRunId: liveRunId,
      sourceCheckpointId: stepStart(1),
      toolPolicyMap: { '*': 'reuse_result', issue_refund: 'forbid_replay' },
    });
    await runForkInProcess(created.forkRequestId, 'forbid');
    assert.equal(effects('forbid'), '');
    const request = store.getForkRequest(created.forkRequestId);
    assert.equal((request.error as { code: string }).code, 'forbidden_replay');
    assert.ok(!store.listToolCalls(created.runId).some((t) => t.toolName === 'issue_refund'));
  });

  for (const [answer, expectedEffects, expectedResult] of [
    ['allow_once', 'issue_refund o-1\n', { refundId: 'r-o-1', status: 'issued' }],
    ['mock', '', { refundId: 'mocked', status: 'simulated' }],
    ['use_recorded', '', { refundId: 'r-o-1', status: 'issued' }],
  ] as const) {
    it(`manual_confirm waits for the user's answer: ${answer}`, async () => {
      const created = new ForkService(store).create(
        {
          sourceRunId: liveRunId,
          sourceCheckpointId: stepStart(1),
          toolPolicyMap: { '*': 'reuse_result', issue_refund: 'manual_confirm' },
        },
        ['issue_refund'],
      );
      const agent = runForkInProcess(created.forkRequestId, `confirm-${answer}`, { confirmPollMs: 5 });
      let pending = store.listConfirmations({ forkRequestId: created.forkRequestId, status: 'pending' });
      while (pending.length === 0) {
        await new Promise((r) => setTimeout(r, 5));
        pending = store.listConfirmations({ forkRequestId: created.forkRequestId, status: 'pending' });
      }
      assert.equal(pending[0]?.toolName, 'issue_refund');
      assert.deepEqual(pending[0]?.args, { orderId: 'o-1' });
      assert.equal(effects(`confirm-${answer}`), '', 'nothing runs before the answer');
      store.answerConfirmation(
        pending[0]?.confirmationId ?? '',
        answer,
        Date.now(),
        answer === 'mock' ? { refundId: 'mocked', status: 'simulated' } : undefined,
      );
      await agent;
      assert.equal(effects(`confirm-${answer}`), expectedEffects);
      const refund = store.listToolCalls(created.runId).find((t) => t.toolName === 'issue_refund');
      assert.deepEqual(refund?.result, expectedResult);
    });
  }

  it('manual_confirm gives up after the timeout and records the confirmation as expired', async () => {
    const created = new ForkService(store).create(
      {
        sourceRunId: liveRunId,
        sourceCheckpointId: stepStart(1),
        toolPolicyMap: { '*': 'reuse_result', issue_refund: 'manual_confirm' },
      },
      ['issue_refund'],
    );
    await runForkInProcess(created.forkRequestId, 'timeout', { confirmPollMs: 5, confirmTimeoutMs: 30 });
    assert.equal(effects('timeout'), '');
    const [confirmation] = store.listConfirmations({ forkRequestId: created.forkRequestId });
    assert.equal(confirmation?.status, 'expired');
    assert.equal(
      (store.getForkRequest(created.forkRequestId).error as { code: string }).code,
      'confirmation_timed_out',
    );
  });

  it('refuses to attach to a fork that already ran', async () => {
    const created = new ForkService(store).create({
      sourceRunId: liveRunId,
      sourceCheckpointId: stepStart(0),
      toolPolicyMap: { '*': 'reuse_result' },
    });
    await runForkInProcess(created.forkRequestId, 'once');
    await assert.rejects(runForkInProcess(created.forkRequestId, 'twice'), /already run \(completed\)/);
  });
});

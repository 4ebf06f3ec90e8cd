/**
 * Captured replay reproduces recordings (every demo run and the support
 * fixture); forks diverge where the rendered prompt changes; tool policies
 * (mock, forbid, cassette miss, executing policies) stop or change the fork
 * the way a user would expect.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEMO_RUN_IDS, writeDemoStore } from '../../../src/demo';
import { runStatusText, type Checkpoint } from '../../../src/model';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { recordSupportRun } from './supportRun';
import { tmpLocation } from '../../helpers/engines';

let dir: string;
let store: SqlRunStore;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-replay-'));
  store = openRunStore(tmpLocation());
  writeDemoStore(store);
  await recordSupportRun(store, 'support');
});
after(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What a user compares between a recording and its replay: everything but ids, times and the captured flag. */
function comparable(cp: Checkpoint) {
  return {
    boundary: cp.boundary,
    stepIndex: cp.stepIndex,
    messages: cp.messages,
    systemPrompt: cp.systemPrompt,
    model: cp.model,
    promptVersion: cp.promptVersion,
    runtimeContext: cp.runtimeContext,
    toolCallId: cp.toolCallId,
    finishReason: cp.finishReason,
    usage: cp.usage ? { inputTokens: cp.usage.inputTokens, outputTokens: cp.usage.outputTokens } : undefined,
    ledger: cp.toolLedgerSnapshot.map((r) => ({
      id: r.toolCallId,
      name: r.toolName,
      result: r.result,
      error: r.error,
    })),
  };
}

function checkpoints(runId: string): Checkpoint[] {
  return store.listCheckpoints(runId).map((c) => store.getCheckpoint(c.checkpointId));
}

function at(runId: string, boundary: string, step: number): string {
  const cp = store.listCheckpoints(runId).find((c) => c.boundary === boundary && c.stepIndex === step);
  assert.ok(cp, `no ${boundary} at step ${step} in ${runId}`);
  return cp.checkpointId;
}

describe('captured replay', () => {
  for (const runId of [...DEMO_RUN_IDS, 'support']) {
    it(`reproduces ${runId} checkpoint by checkpoint without divergence`, async () => {
      const created = new ForkService(store).createReplay(runId, { captured: true });
      const outcome = await runFork(store, created.forkRequestId);
      assert.equal(outcome.divergence, undefined);
      const source = store.getRun(runId);
      const replay = store.getRun(created.runId);
      assert.equal(replay.mode, 'replay');
      assert.equal(replay.parentRunId, runId);
      if (source.status === 'running') {
        assert.equal(replay.status, 'failed');
        assert.equal((replay.error as { code?: string }).code, 'source_incomplete');
      } else {
        assert.equal(replay.status, source.status);
        assert.deepEqual(replay.error, source.error);
      }
      const recorded = checkpoints(runId);
      const replayed = checkpoints(created.runId);
      const expectedCount = recorded.length + (source.status === 'running' ? 1 : 0);
      assert.equal(replayed.length, expectedCount);
      recorded.forEach((cp, i) => {
        assert.deepEqual(comparable(replayed[i] as Checkpoint), comparable(cp), `checkpoint ${i} (${cp.boundary})`);
      });
      assert.equal(replay.inputTokens, 0, 'a captured replay spends no tokens');
      const toolResults = (id: string) =>
        store.listToolCalls(id).map((t) => ({ name: t.toolName, args: t.args, result: t.result, error: t.error }));
      assert.deepEqual(toolResults(created.runId), toolResults(runId));
      assert.equal(store.getForkRequest(created.forkRequestId).status, 'completed');
    });
  }
});

describe('captured forks', () => {
  it('a context patch that changes the rendered prompt diverges at the next model call', async () => {
    const from = at('support', 'before_prompt_build', 3);
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: from,
      contextPatch: { user: { roleId: 'auditor' } },
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const outcome = await runFork(store, created.forkRequestId);
    assert.equal(outcome.status, 'diverged', 'an answer, not a failure');
    assert.equal((outcome.error as { code: string }).code, 'diverged');
    assert.equal(outcome.divergence?.stepIndex, 3);
    assert.equal(outcome.divergence?.messageIndex, -1);
    assert.equal(outcome.divergence?.field, 'systemPrompt');
    assert.match(outcome.divergence?.rendered ?? '', /role auditor/);
    const run = store.getRun(created.runId);
    assert.equal(run.status, 'diverged');
    assert.equal((run.error as { code: string }).code, 'diverged');
    assert.equal(runStatusText(run), 'diverged at step 3 · system prompt');
    const request = store.getForkRequest(created.forkRequestId);
    assert.equal(request.status, 'diverged');
    const last = store.listCheckpoints(created.runId).at(-2);
    assert.equal(last?.boundary, 'before_model_call', 'the fork recorded up to the divergent prompt');
    assert.equal(outcome.divergence?.forkCheckpointId, last?.checkpointId, 'the rendered prompt is this checkpoint');
  });

  it('a mocked tool result diverges at the message that carries it', async () => {
    const from = at('support', 'after_model_call', 1);
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: from,
      toolPolicyMap: { '*': 'reuse_result', search_kb: 'mock_result' },
      toolMockResults: { search_kb: [] },
    });
    const outcome = await runFork(store, created.forkRequestId);
    assert.equal((outcome.error as { code: string }).code, 'diverged');
    assert.equal(outcome.divergence?.stepIndex, 2);
    assert.equal(outcome.divergence?.field, 'content');
    const mocked = store.listToolCalls(created.runId).find((t) => t.toolName === 'search_kb');
    assert.deepEqual(mocked?.result, []);
    assert.equal(mocked?.replayPolicy, 'mock_result');
    const divergent = checkpoints(created.runId).at(-2) as Checkpoint;
    assert.equal(divergent.boundary, 'before_model_call');
    const message = divergent.messages[outcome.divergence?.messageIndex ?? -1];
    assert.equal(message?.toolName, 'search_kb');
    assert.deepEqual(message?.content, []);
  });

  it('forbid_replay stops the fork before the tool and never records a call of it', async () => {
    const from = at('support', 'before_prompt_build', 2);
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: from,
      toolPolicyMap: { '*': 'reuse_result', issue_refund: 'forbid_replay' },
    });
    const outcome = await runFork(store, created.forkRequestId);
    assert.equal(outcome.status, 'failed');
    const error = outcome.error as { code: string; toolName: string };
    assert.equal(error.code, 'forbidden_replay');
    assert.equal(error.toolName, 'issue_refund');
    assert.ok(!store.listToolCalls(created.runId).some((t) => t.toolName === 'issue_refund'));
    assert.equal(store.getRun(created.runId).status, 'failed');
  });

  it('a re_execute tool fails clearly without an agent program', async () => {
    const from = at('support', 'before_prompt_build', 0);
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: from,
      toolPolicyMap: { '*': 'reuse_result', lookup_customer: 're_execute' },
    });
    const outcome = await runFork(store, created.forkRequestId);
    const error = outcome.error as { code: string; message: string };
    assert.equal(error.code, 'agent_program_required');
    assert.match(error.message, /OCDB_FORK/);
  });

  it('with an agent program the fork waits for it and writes nothing more', async () => {
    const from = at('support', 'before_prompt_build', 0);
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: from,
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const outcome = await runFork(store, created.forkRequestId, { agentProgram: true });
    assert.equal(outcome.status, 'waiting_for_agent');
    assert.equal(store.getForkRequest(created.forkRequestId).status, 'waiting_for_agent');
    assert.equal(store.getRun(created.runId).checkpointCount, 1);
  });

  it('mock_result without a mock fails naming the tool', async () => {
    const from = at('support', 'before_prompt_build', 1);
    const created = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: from,
      toolPolicyMap: { '*': 'reuse_result', lookup_order: 'mock_result' },
    });
    const outcome = await runFork(store, created.forkRequestId);
    const error = outcome.error as { code: string; toolName: string };
    assert.equal(error.code, 'mock_missing');
    assert.equal(error.toolName, 'lookup_order');
  });

  it('records live (each checkpoint visible as it is written) and stops as cancelled when aborted', async () => {
    const created = new ForkService(store).createReplay('demo-support-refund', { captured: true });
    const controller = new AbortController();
    const seen: number[] = [];
    const outcome = await runFork(store, created.forkRequestId, {
      signal: controller.signal,
      onCheckpoint: (summary) => {
        seen.push(store.getRun(created.runId).checkpointCount);
        assert.equal(summary.runId, created.runId);
        if (summary.index === 20) controller.abort();
      },
    });
    assert.deepEqual(seen.slice(0, 3), [2, 3, 4], 'every checkpoint is in the store when reported');
    assert.equal(outcome.status, 'cancelled');
    assert.equal(store.getRun(created.runId).status, 'cancelled');
    assert.ok(store.getRun(created.runId).checkpointCount < store.getRun('demo-support-refund').checkpointCount);
    assert.equal(store.getForkRequest(created.forkRequestId).status, 'failed');
  });

  it('a fork of a fork reuses results from the whole lineage', async () => {
    const first = new ForkService(store).create({
      sourceRunId: 'support',
      sourceCheckpointId: at('support', 'before_prompt_build', 4),
      toolPolicyMap: { '*': 'reuse_result' },
    });
    await runFork(store, first.forkRequestId);
    assert.equal(store.getRun(first.runId).status, 'completed');
    const second = new ForkService(store).create({
      sourceRunId: first.runId,
      sourceCheckpointId: at(first.runId, 'before_prompt_build', 5),
      toolPolicyMap: { '*': 'reuse_result' },
    });
    const outcome = await runFork(store, second.forkRequestId);
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.divergence, undefined);
  });
});

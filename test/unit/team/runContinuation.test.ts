/**
 * RunStore.continueRunIn on the engine of the run (SQLite, or PostgreSQL under `--postgres`): a run copied into a
 * second store while it was being recorded is continued there with what was recorded since — new tool calls, the
 * ones finished, new checkpoints, the end — and reads as the original; a continuation that does not start where the
 * copy ends, or of a run that ended there, is refused with nothing written.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argsHash, OcdbError } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { openRunStore, runExportChunks, type RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpLocation } from '../../helpers/engines';

const exportOf = (store: RunStore, runId: string) => [...runExportChunks(store, runId)].join('');

/** A run recorded into a local SQLite file, copied into a second store part way, and how to record more of it. */
function partlyCopied() {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-continue-'));
  const recorder = openRecorder({ store: join(dir, 'local.db'), fork: false, liveDebugging: false, heartbeatMs: 0 });
  const local = recorder.store;
  const target = openRunStore(tmpLocation(), { create: true });
  const run = recorder.startRun({ agentId: 'continue-test', runtimeContext: testContext() });
  run.checkpoint('before_prompt_build', { messages: [{ role: 'user', content: 'mail the three of them' }] });
  run.checkpoint('after_model_call', {
    messages: [
      { role: 'user', content: 'mail the three of them' },
      { role: 'assistant', content: 'sending the first' },
    ],
  });
  const open = run.beginTool('send_email', { to: 'a@example.com' }, { sideEffectLevel: 'write' });
  const copied = local.getRun(run.runId).checkpointCount;
  target.copyRunIn(local.exportRunHead(run.runId), [local.exportCheckpoints(run.runId, 0, copied)]);
  const close = () => {
    recorder.close();
    target.close();
    rmSync(dir, { recursive: true, force: true });
  };
  /** What was recorded since the copy, as continueRunIn takes it. */
  const since = () => {
    const count = local.getRun(run.runId).checkpointCount;
    const [before, ...added] = local.exportCheckpoints(run.runId, copied - 1, count);
    return {
      continuation: {
        runId: run.runId,
        from: copied,
        lastCheckpointId: before?.checkpointId as string,
        listsFrom: {
          checkpointId: before?.checkpointId as string,
          messages: before?.messages ?? [],
          ledger: before?.toolLedgerSnapshot ?? [],
        },
        toolCalls: local.listToolCalls(run.runId),
      },
      added,
    };
  };
  return { local, target, run, open, copied, since, close };
}

test('a run copied part way is continued with what was recorded since, and reads as the original', () => {
  const { local, target, run, open, since, close } = partlyCopied();
  try {
    run.finishTool(open, 'success', { sent: 1 });
    run.checkpoint('after_tool_call');
    const second = run.beginTool('send_email', { to: 'b@example.com' }, { sideEffectLevel: 'write' });
    run.finishTool(second, 'error', { message: 'mailbox full' });
    run.end();
    const { continuation, added } = since();
    const summary = local.getRun(run.runId);
    target.continueRunIn(
      { ...continuation, end: { status: summary.status as 'completed', endedAt: summary.endedAt as number } },
      [added],
    );
    assert.equal(exportOf(target, run.runId), exportOf(local, run.runId));
    const there = target.getRun(run.runId);
    assert.equal(there.status, 'completed');
    assert.equal(there.checkpointCount, summary.checkpointCount);
    assert.equal(there.toolErrorCount, 1);
  } finally {
    close();
  }
});

test('a continuation that does not start where the copy ends, or of a run that ended there, writes nothing', () => {
  const { target, run, open, copied, since, close } = partlyCopied();
  try {
    run.finishTool(open, 'success', { sent: 1 });
    run.checkpoint('after_tool_call');
    const { continuation, added } = since();
    const before = exportOf(target, run.runId);
    const refused = (c: typeof continuation, code: string) =>
      assert.throws(
        () => target.continueRunIn(c, [added]),
        (e: unknown) => e instanceof OcdbError && e.code === code,
      );
    refused({ ...continuation, from: copied + 1 }, 'InvalidInput');
    refused({ ...continuation, lastCheckpointId: added[0]?.checkpointId as string }, 'InvalidInput');
    // the call's arguments are not the ones open there
    const [call] = continuation.toolCalls;
    refused(
      {
        ...continuation,
        toolCalls: [{ ...call!, args: { to: 'z@example.com' }, argsHash: argsHash({ to: 'z@example.com' }) }],
      },
      'InvalidInput',
    );
    assert.equal(exportOf(target, run.runId), before, 'nothing of a refused continuation was written');
    target.finishRun(run.runId, { status: 'failed', endedAt: Date.now() });
    refused(continuation, 'RunNotRunning');
  } finally {
    close();
  }
});

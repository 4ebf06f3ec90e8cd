/**
 * agent-core's ToolJournal (seed 004) over a recorded run: the seed's interface, copied verbatim, accepts
 * `run.toolJournal()`; a host driving it the way the seed's `executeInvocation` does (begin, the call, finish or
 * failure) leaves a ledger whose success, error and cancelled receipts read back, replay and fork as they ended;
 * per-toolId and glob options decide side effect and policy; misuse is refused with a clear error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { OcdbError, toolOutcomeOf, type ToolCallRecord } from '../../../src/model';
import { openRecorder, type RunRecorder } from '../../../src/recorder';
import type { RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

// ---- the seed's declarations, verbatim (InvocationMetadata is not spelled out by the seed: declared here) ----
interface InvocationMetadata {
  id: string;
  toolId: string;
  startedAt: number;
}
interface ToolJournalStart {
  toolId: string;
  input: unknown;
  invocation?: Partial<InvocationMetadata> | undefined;
}
interface ToolJournalFinish {
  invocationId: string;
  status: 'error' | 'success' | 'cancelled';
  value: unknown;
}
interface ToolJournal {
  beginTool: (request: ToolJournalStart) => string;
  finishTool: (request: ToolJournalFinish) => void;
}
// ---------------------------------------------------------------------------------------------------------------

/** A host's synchronous execution adapter in the spirit of the seed's `executeInvocation`. */
interface Invocation<I, C> {
  id: string;
  call(input: I, context: C): unknown;
}
function executeInvocation<I, C>(
  definition: Invocation<I, C>,
  input: I,
  context: C,
  hooks: { journal: (c: C) => ToolJournal; signal?: (c: C) => AbortSignal; receipt?: (c: C) => unknown },
): void {
  const journal = hooks.journal(context);
  const invocationId = journal.beginTool({ toolId: definition.id, input });
  if (hooks.signal?.(context).aborted) {
    journal.finishTool({ invocationId, status: 'cancelled', value: undefined });
    return;
  }
  try {
    const value = definition.call(input, context);
    journal.finishTool({ invocationId, status: 'success', value: hooks.receipt ? hooks.receipt(context) : value });
  } catch (e) {
    journal.finishTool({ invocationId, status: 'error', value: e });
    throw e;
  }
}

function startRun(store: RunStore): { run: RunRecorder; close: () => void } {
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({
    agentId: 'status-bot',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'Is the service up?' }],
  });
  return { run, close: () => recorder.close() };
}

function byName(records: readonly ToolCallRecord[], name: string): ToolCallRecord {
  const r = records.find((x) => x.toolName === name);
  assert.ok(r, `no ledger record for ${name}`);
  return r;
}

describe('ToolJournal', () => {
  it('satisfies the seed interface and records what executeInvocation does: success, failure, cancellation', async () => {
    const store = tmpStore();
    const { run, close } = startRun(store);
    const journal: ToolJournal = run.toolJournal({
      tools: {
        'read-status': { sideEffectLevel: 'read_only' },
        'deploy.*': { sideEffectLevel: 'external_irreversible' },
      },
    });
    const state = { status: '', journal, signal: new AbortController().signal };
    executeInvocation(
      {
        id: 'read-status',
        call(_input: object, context: typeof state) {
          context.status = '服务正常';
        },
      },
      {},
      state,
      { journal: (c) => c.journal, signal: (c) => c.signal, receipt: (c) => c.status },
    );
    assert.equal(state.status, '服务正常');

    assert.throws(
      () =>
        executeInvocation(
          {
            id: 'deploy.prod',
            call() {
              throw new Error('quota exceeded');
            },
          },
          { version: '1.2.3' },
          state,
          { journal: (c) => c.journal },
        ),
      /quota exceeded/,
    );

    const aborted = new AbortController();
    aborted.abort();
    executeInvocation({ id: 'read-status', call: () => 'never' }, { again: true }, state, {
      journal: (c) => c.journal,
      signal: () => aborted.signal,
    });
    run.end();
    close();

    const ledger = store.listToolCalls(run.runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolName, toolOutcomeOf(r), r.sideEffectLevel, r.replayPolicy]),
      [
        ['read-status', 'success', 'read_only', 'reuse_result'],
        ['deploy.prod', 'error', 'external_irreversible', 'forbid_replay'],
        ['read-status', 'cancelled', 'read_only', 'reuse_result'],
      ],
    );
    assert.equal(ledger[0]?.result, '服务正常', 'the receipt value is the result');
    assert.deepEqual(ledger[1]?.error, { name: 'Error', message: 'quota exceeded' }, 'the failure detail');
    assert.deepEqual(ledger[2]?.error, { name: 'Cancelled', message: 'cancelled' });
    // the conversation carries the outcome too
    const last = store.getCheckpointAt(run.runId, store.getRun(run.runId).checkpointCount - 2);
    assert.deepEqual(last.messages.at(-1)?.content, { error: { name: 'Cancelled', message: 'cancelled' } });
  });

  it('uses the caller’s invocation id, else generates one; refuses a second finish and an unknown id', () => {
    const store = tmpStore();
    const { run, close } = startRun(store);
    const journal = run.toolJournal();
    const given = journal.beginTool({ toolId: 'write-file', input: { path: 'a.txt' }, invocation: { id: 'inv-7' } });
    assert.equal(given, 'inv-7');
    const generated = journal.beginTool({ toolId: 'write-file', input: { path: 'b.txt' } });
    assert.match(generated, /^[0-9a-f-]{36}$/);
    journal.finishTool({ invocationId: given, status: 'success', value: { bytes: 3 } });
    assert.throws(
      () => journal.finishTool({ invocationId: given, status: 'error', value: 'late' }),
      (e: unknown) =>
        e instanceof OcdbError &&
        e.code === 'ToolCallAlreadyFinished' &&
        /invocation inv-7 \(write-file\) was already finished as success/.test(e.message),
    );
    assert.throws(
      () => journal.finishTool({ invocationId: 'nope', status: 'success', value: 1 }),
      (e: unknown) =>
        e instanceof OcdbError && e.code === 'ToolCallNotFound' && /no invocation nope was opened/.test(e.message),
    );
    assert.throws(
      () => journal.beginTool({ toolId: 'write-file', input: {}, invocation: { id: 'inv-7' } }),
      (e: unknown) => e instanceof OcdbError && e.code === 'ToolCallAlreadyExists',
    );
    assert.throws(
      () => journal.finishTool({ invocationId: generated, status: 'done' as 'success', value: 1 }),
      (e: unknown) => e instanceof OcdbError && e.code === 'InvalidInput' && /status/.test(e.message),
    );
    assert.throws(
      () => journal.beginTool({ toolId: '', input: {} }),
      (e: unknown) => e instanceof OcdbError && /toolId/.test(e.message),
    );
    journal.finishTool({ invocationId: generated, status: 'cancelled', value: 'ignored detail' });
    run.end();
    close();
    // unmatched toolIds default to `write`: a fork asks before running them again
    const records = store.listToolCalls(run.runId);
    assert.deepEqual(
      records.map((r) => [r.toolCallId, r.sideEffectLevel, r.replayPolicy, toolOutcomeOf(r)]),
      [
        ['inv-7', 'write', 'manual_confirm', 'success'],
        [generated, 'write', 'manual_confirm', 'cancelled'],
      ],
    );
  });

  it('an exact toolId beats a glob, a longer glob beats a shorter one, and a replay policy is kept', () => {
    const store = tmpStore();
    const { run, close } = startRun(store);
    const journal = run.toolJournal({
      tools: {
        'fs.*': { sideEffectLevel: 'write' },
        'fs.read*': { sideEffectLevel: 'read_only' },
        'fs.readSecret': { sideEffectLevel: 'expensive_read', replayPolicy: 'mock_result' },
      },
      defaultSideEffectLevel: 'none',
    });
    for (const toolId of ['fs.write', 'fs.readFile', 'fs.readSecret', 'clock']) {
      journal.finishTool({ invocationId: journal.beginTool({ toolId, input: {} }), status: 'success', value: 1 });
    }
    run.end();
    close();
    const ledger = store.listToolCalls(run.runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolName, r.sideEffectLevel, r.replayPolicy]),
      [
        ['fs.write', 'write', 'manual_confirm'],
        ['fs.readFile', 'read_only', 'reuse_result'],
        ['fs.readSecret', 'expensive_read', 'mock_result'],
        ['clock', 'none', 'reuse_result'],
      ],
    );
  });

  it('a cancelled receipt replays as cancelled and a fork reuses it as cancelled, never as an error', async () => {
    const store = tmpStore();
    const { run, close } = startRun(store);
    const journal = run.toolJournal({ tools: { lookup: { sideEffectLevel: 'read_only' } } });
    await run.modelCall({}, async () => ({
      message: {
        role: 'assistant',
        content: [
          { type: 'tool_call', toolCallId: 'c1', toolName: 'lookup', args: { id: 1 } },
          { type: 'tool_call', toolCallId: 'c2', toolName: 'lookup', args: { id: 2 } },
        ],
      },
      finishReason: 'tool_calls',
      usage: { inputTokens: 12, outputTokens: 4 },
    }));
    journal.beginTool({ toolId: 'lookup', input: { id: 1 }, invocation: { id: 'c1' } });
    journal.beginTool({ toolId: 'lookup', input: { id: 2 }, invocation: { id: 'c2' } });
    journal.finishTool({ invocationId: 'c1', status: 'success', value: { name: 'Ada' } });
    journal.finishTool({ invocationId: 'c2', status: 'cancelled', value: undefined });
    await run.modelCall({}, async () => ({ message: { role: 'assistant', content: 'Ada.' }, finishReason: 'stop' }));
    run.end();
    close();

    const service = new ForkService(store);
    const replay = service.createReplay(run.runId, { captured: true });
    const replayed = await runFork(store, replay.forkRequestId);
    assert.equal(replayed.status, 'completed', JSON.stringify(replayed.error));
    const replayLedger = store.listToolCalls(replayed.runId);
    assert.equal(toolOutcomeOf(byName(replayLedger.slice(1), 'lookup')), 'cancelled');
    assert.deepEqual(
      replayLedger.map((r) => toolOutcomeOf(r)),
      ['success', 'cancelled'],
    );

    const first = store.listCheckpoints(run.runId, { limit: 1 })[0]!;
    const fork = service.create({ sourceRunId: run.runId, sourceCheckpointId: first.checkpointId });
    const forked = await runFork(store, fork.forkRequestId);
    assert.equal(forked.status, 'completed', JSON.stringify(forked.error));
    assert.deepEqual(
      store.listToolCalls(forked.runId).map((r) => [r.toolCallId, toolOutcomeOf(r)]),
      [
        ['c1', 'success'],
        ['c2', 'cancelled'],
      ],
    );
  });
});

/**
 * open-agent-kernel's ACP stream (seed 002 §4.3, §4.6) through recordAcpStream: the caller gets every update
 * unchanged, and the run shows what the session did — the merged assistant text, the tool call with its result,
 * the tool_confirm call as manual_confirm with the decision given to respondApproval, questions, log lines — and a
 * fork of it asks before running the confirmed tool again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ForkService } from '../../../src/fork/forkService';
import { OcdbError, messageText, toolOutcomeOf } from '../../../src/model';
import { openRecorder, recordAcpStream, recordApproval, type AcpSessionUpdate } from '../../../src/recorder';
import type { RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

/** A session shaped like the seed's (§4.2): send() streams updates, respondApproval() resumes after approval. */
class FakeSession {
  readonly approvals: { toolUseId: string; decision: unknown }[] = [];
  constructor(private readonly streams: AcpSessionUpdate[][]) {}
  async *send(_input: string): AsyncIterable<AcpSessionUpdate> {
    const next = this.streams.shift() ?? [];
    for (const u of next) {
      await new Promise((r) => setImmediate(r));
      yield u;
    }
  }
  async respondApproval(opts: { toolUseId: string; decision: unknown }): Promise<void> {
    this.approvals.push(opts);
  }
}

const FIRST: AcpSessionUpdate[] = [
  { sessionUpdate: 'agent_phase', phase: 'preparing' },
  { sessionUpdate: 'log', level: 'info', message: 'sandbox acquired' },
  { sessionUpdate: 'agent_phase', phase: 'model_responding' },
  { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'I will clean up ' } },
  { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'the build folder.' } },
  { sessionUpdate: 'tool_call', toolCallId: 'toolu_1', title: 'mcp__sandbox__bash', input: { command: 'rm -rf dist' } },
  { sessionUpdate: 'agent_phase', phase: 'tool_executing' },
  {
    sessionUpdate: 'tool_confirm',
    toolCallId: 'toolu_1',
    toolName: 'mcp__sandbox__bash',
    input: { command: 'rm -rf dist' },
  },
];
const RESUMED: AcpSessionUpdate[] = [
  { sessionUpdate: 'agent_phase', phase: 'tool_executing' },
  { sessionUpdate: 'log', level: 'command', message: 'rm -rf dist' },
  { sessionUpdate: 'tool_call_update', toolCallId: 'toolu_1', status: 'completed', result: { exitCode: 0 } },
  { sessionUpdate: 'agent_phase', phase: 'model_responding' },
  { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done: dist is gone.' } },
  { sessionUpdate: 'agent_phase', phase: 'idle' },
];

function start(store: RunStore) {
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'oak-agent', runtimeContext: testContext() });
  return { run, close: () => recorder.close() };
}

async function drain<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('recordAcpStream', () => {
  it('passes the seed’s update sequence through unchanged and leaves the tool call, its result and the approval', async () => {
    const store = tmpStore();
    const { run, close } = start(store);
    const session = new FakeSession([FIRST.map((u) => ({ ...u })), RESUMED.map((u) => ({ ...u }))]);
    const sent1 = FIRST.map((u) => structuredClone(u));

    const seen1 = await drain(
      recordAcpStream(run, session.send('clean the build folder'), {
        prompt: 'clean the build folder',
        tools: { 'mcp__sandbox__*': { sideEffectLevel: 'external_irreversible' } },
      }),
    );
    assert.deepEqual(seen1, sent1, 'every update comes out as it went in');
    await session.respondApproval(recordApproval(run, { toolUseId: 'toolu_1', decision: { behavior: 'allow' } }));
    assert.deepEqual(session.approvals, [{ toolUseId: 'toolu_1', decision: { behavior: 'allow' } }]);
    const seen2 = await drain(recordAcpStream(run, session.send('')));
    assert.deepEqual(seen2, RESUMED);
    run.end();
    close();

    const exported = store.exportRun(run.runId);
    assert.deepEqual(
      exported.checkpoints.map((c) => c.boundary),
      [
        'before_prompt_build',
        'before_model_call',
        'after_model_call',
        'before_tool_call',
        'before_tool_call',
        'after_tool_call',
        'before_model_call',
        'after_model_call',
        'agent_end',
      ],
    );
    const messages = exported.checkpoints.at(-1)?.messages ?? [];
    assert.deepEqual(
      messages.map((m) => [m.role, messageText(m)]),
      [
        ['user', 'clean the build folder'],
        ['assistant', 'I will clean up the build folder.'],
        ['tool', '{"exitCode":0}'],
        ['assistant', 'Done: dist is gone.'],
      ],
    );
    assert.deepEqual(messages[2]?.content, { exitCode: 0 });
    const [call] = exported.toolLedger;
    assert.equal(exported.toolLedger.length, 1);
    assert.equal(call?.toolName, 'mcp__sandbox__bash');
    assert.deepEqual(call?.args, { command: 'rm -rf dist' });
    assert.equal(call?.replayPolicy, 'manual_confirm', 'tool_confirm: the call waits for approval');
    assert.equal(call?.sideEffectLevel, 'external_irreversible');
    assert.deepEqual(call?.result, { exitCode: 0 });
    const events = exported.checkpoints.at(-1)?.runtimeContext.events as { type: string }[];
    assert.deepEqual(
      events.map((e) => e.type),
      ['log', 'tool_confirm', 'approval', 'log'],
    );
    assert.deepEqual(
      (events[2] as unknown as Record<string, unknown>).decision,
      { behavior: 'allow' },
      'the decision given to respondApproval',
    );
    // the approval is on the before_tool_call written when it was given
    assert.equal((exported.checkpoints[4]?.runtimeContext.events as { type: string }[]).at(-1)?.type, 'approval');

    // a fork of the run asks before running the confirmed tool again
    const plan = new ForkService(store).plan({
      sourceRunId: run.runId,
      sourceCheckpointId: exported.checkpoints[0]!.checkpointId,
    });
    const tool = plan.tools.find((t) => t.toolName === 'mcp__sandbox__bash');
    assert.equal(tool?.policy, 'manual_confirm');
  });

  it('a denial finishes the call as cancelled; ask_user and failed updates are recorded as such', async () => {
    const store = tmpStore();
    const { run, close } = start(store);
    await drain(
      recordAcpStream(
        run,
        (async function* (): AsyncIterable<AcpSessionUpdate> {
          yield { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Checking.' } };
          yield { sessionUpdate: 'tool_call', toolCallId: 't-read', title: 'Read', input: { path: 'a.txt' } };
          yield { sessionUpdate: 'tool_call', toolCallId: 't-write', title: 'Write', input: { path: 'a.txt' } };
          yield { sessionUpdate: 'tool_call_update', toolCallId: 't-read', status: 'failed', result: 'ENOENT' };
          yield { sessionUpdate: 'ask_user', toolCallId: 't-ask', questions: [{ question: 'Create it?' }] };
          yield { sessionUpdate: 'tool_call_update', toolCallId: 't-ask', status: 'completed', result: 'yes' };
          yield { sessionUpdate: 'tool_confirm', toolCallId: 't-write', toolName: 'Write', input: { path: 'a.txt' } };
        })(),
        { prompt: 'fix a.txt', tools: { Read: { sideEffectLevel: 'read_only' } } },
      ),
    );
    recordApproval(run, { toolUseId: 't-write', decision: 'deny' });
    assert.throws(
      () => recordApproval(run, { toolUseId: 't-write', decision: 'allow' }),
      (e: unknown) =>
        e instanceof OcdbError && e.code === 'ToolCallNotFound' && /no tool_confirm for t-write/.test(e.message),
    );
    run.end();
    close();
    const ledger = store.listToolCalls(run.runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolName, r.replayPolicy, toolOutcomeOf(r)]),
      [
        ['Read', 'reuse_result', 'error'],
        ['ask_user', 'manual_confirm', 'success'],
        ['Write', 'manual_confirm', 'cancelled'],
      ],
    );
    assert.equal(ledger[1]?.result, 'yes');
    assert.match(String((ledger[2]?.error as { message?: string }).message), /denied by the user/);
  });

  it('passes unknown update kinds through and names the update and field of a malformed one', async () => {
    const store = tmpStore();
    const { run, close } = start(store);
    const plan = { sessionUpdate: 'plan', entries: [{ content: 'step 1' }] };
    const seen = await drain(
      recordAcpStream(
        run,
        (async function* () {
          yield plan;
        })(),
      ),
    );
    assert.equal(seen[0], plan, 'the very same object');
    await assert.rejects(
      drain(
        recordAcpStream(
          run,
          (async function* () {
            yield { sessionUpdate: 'log', level: 'info', message: 'ok' } as AcpSessionUpdate;
            yield { sessionUpdate: 'tool_call', title: 'Read' } as unknown as AcpSessionUpdate;
          })(),
        ),
      ),
      (e: unknown) =>
        e instanceof OcdbError && e.code === 'InvalidInput' && /update 1 \(tool_call\): toolCallId/.test(e.message),
    );
    run.end();
    close();
  });
});

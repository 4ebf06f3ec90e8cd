/**
 * `ocdb acp -- <agent>` as an editor uses it: an ACP client written with @agentclientprotocol/sdk talks through
 * the proxy to an ACP agent written with the same SDK (test/fixtures/agents/acpAgent.ts). The bytes each side
 * sends arrive unchanged on the other, and each session is a run with the prompt, the merged message and
 * thought, the tool calls and their results, the plan, the permission request as manual_confirm with the option
 * the editor chose, and the usage the agent reported.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { messageText, toolOutcomeOf } from '../../../src/model';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';

const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const AGENT = join(ROOT, 'test', 'fixtures', 'agents', 'acpAgent.ts');

interface EditorRun {
  stderr: string;
  code: number | null;
  updates: acp.SessionNotification[];
  stopReasons: string[];
  sentByEditor: string;
  receivedByEditor: string;
  sentByAgent: string;
  receivedByAgent: string;
}

/** Runs an editor session through `ocdb acp`: one session, one prompt per decision, answering permission requests. */
async function editorSession(db: string, decisions: ('allow' | 'reject' | 'cancel')[]): Promise<EditorRun> {
  const dir = tmpDir();
  const sentLog = join(dir, 'agent-sent.ndjson');
  const receivedLog = join(dir, 'agent-received.ndjson');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      MAIN,
      'acp',
      '--store',
      db,
      '--agent-id',
      'test-coding-agent',
      '--',
      process.execPath,
      '--import',
      'tsx',
      AGENT,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, ACP_AGENT_SENT: sentLog, ACP_AGENT_RECEIVED: receivedLog },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let receivedByEditor = '';
  let sentByEditor = '';
  const tap = new PassThrough();
  child.stdout.on('data', (c: Buffer) => {
    receivedByEditor += c.toString();
    tap.write(c);
  });
  child.stdout.on('end', () => tap.end());
  const toAgent = new Writable({
    write(chunk: Buffer, _e, cb) {
      sentByEditor += chunk.toString();
      child.stdin.write(chunk, cb);
    },
  });
  const stream = acp.ndJsonStream(
    Writable.toWeb(toAgent) as WritableStream<Uint8Array>,
    Readable.toWeb(tap) as ReadableStream<Uint8Array>,
  );
  const updates: acp.SessionNotification[] = [];
  const stopReasons: string[] = [];
  let turn = 0;
  const editor = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, () => {
      const decision = decisions[turn] ?? 'cancel';
      return decision === 'cancel'
        ? { outcome: { outcome: 'cancelled' } }
        : { outcome: { outcome: 'selected', optionId: decision } };
    });
  await editor.connectWith(stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: ROOT, mcpServers: [] });
    for (turn = 0; turn < decisions.length; turn++) {
      const r = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: `Fix the typo in README.md (try ${turn + 1})` }],
      });
      stopReasons.push(r.stopReason);
    }
  });
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    stderr,
    code,
    updates,
    stopReasons,
    sentByEditor,
    receivedByEditor,
    sentByAgent: readFileSync(sentLog, 'utf8'),
    receivedByAgent: readFileSync(receivedLog, 'utf8'),
  };
}

describe('ocdb acp', () => {
  it('passes every message through unchanged and records the session as a run', async () => {
    const db = join(tmpDir(), 'runs.db');
    const r = await editorSession(db, ['allow', 'reject']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.receivedByEditor, r.sentByAgent, 'the agent’s bytes reach the editor unchanged');
    assert.equal(r.receivedByAgent, r.sentByEditor, 'the editor’s bytes reach the agent unchanged');
    assert.deepEqual(r.stopReasons, ['end_turn', 'end_turn']);
    assert.equal(r.updates.filter((u) => u.update.sessionUpdate === 'tool_call').length, 4);
    assert.doesNotMatch(r.stderr, /warning/, r.stderr);
    const m = /session sess-1 recorded as run (\S+)/.exec(r.stderr);
    assert.ok(m, r.stderr);

    const store = openRunStore(db);
    try {
      const run = store.exportRun(m[1] as string);
      assert.equal(run.agentId, 'test-coding-agent');
      assert.equal(run.sessionId, 'sess-1');
      assert.equal(run.status, 'completed');
      const messages = run.checkpoints.at(-1)?.messages ?? [];
      assert.deepEqual(
        messages.map((msg) => msg.role),
        // a tool result the model reads before asking for the next call ends its model call
        [
          'user',
          'assistant',
          'tool',
          'assistant',
          'tool',
          'assistant',
          'user',
          'assistant',
          'tool',
          'assistant',
          'tool',
          'assistant',
        ],
      );
      assert.equal(messageText(messages[0]!), 'Fix the typo in README.md (try 1)');
      const first = messages[1]!;
      assert.deepEqual(
        (first.content as { type: string; text?: string; toolName?: string }[]).map((p) => [
          p.type,
          p.text ?? p.toolName,
        ]),
        [
          ['thinking', 'The user wants the typo fixed.'],
          ['text', 'Let me read the README.'],
          ['tool_call', 'Read README.md'],
        ],
      );
      assert.deepEqual(messages[3]?.content, [
        {
          type: 'tool_call',
          toolCallId: 'edit-1',
          toolName: 'Edit README.md',
          args: { path: 'README.md', oldText: 'Helo', newText: 'Hello' },
        },
      ]);
      assert.equal(messageText(messages[5]!), 'Fixed: "Helo" is now "Hello".');
      assert.equal(messageText(messages[11]!), 'I left the file as it was.');

      assert.deepEqual(
        run.toolLedger.map((t) => [t.toolCallId, t.sideEffectLevel, t.replayPolicy, toolOutcomeOf(t)]),
        [
          ['read-1', 'read_only', 'reuse_result', 'success'],
          ['edit-1', 'write', 'manual_confirm', 'success'],
          ['read-2', 'read_only', 'reuse_result', 'success'],
          ['edit-2', 'write', 'manual_confirm', 'cancelled'],
        ],
      );
      assert.deepEqual(run.toolLedger[0]?.result, { text: '# Helo world' });
      assert.deepEqual(run.toolLedger[1]?.result, { applied: true });

      const events = run.checkpoints.at(-1)?.runtimeContext.events as Record<string, unknown>[];
      const approvals = events.filter((e) => e.type === 'approval');
      assert.deepEqual(
        approvals.map((a) => [a.toolCallId, a.approved, a.decision]),
        [
          ['edit-1', true, { outcome: 'selected', optionId: 'allow', name: 'Allow once', kind: 'allow_once' }],
          ['edit-2', false, { outcome: 'selected', optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
        ],
      );
      assert.ok(events.some((e) => e.type === 'plan'));
      assert.ok(events.some((e) => e.type === 'usage'));
      assert.deepEqual(run.checkpoints.at(-1)?.runtimeContext.task.stepStates, {
        'plan: Read README.md': 'in_progress',
        'plan: Fix the typo': 'pending',
      });
      const usages = run.checkpoints.filter((c) => c.usage).map((c) => c.usage);
      assert.deepEqual(
        usages.map((u) => [u?.inputTokens, u?.outputTokens]),
        [
          [1200, 110],
          [1200, 110],
        ],
        'the usage each prompt response reported',
      );
    } finally {
      store.close();
    }
  });

  it('a cancelled permission request is recorded as the editor’s decision and the call as cancelled', async () => {
    const db = join(tmpDir(), 'runs.db');
    const r = await editorSession(db, ['cancel']);
    assert.equal(r.code, 0, r.stderr);
    const store = openRunStore(db);
    try {
      const [summary] = store.listRuns().runs;
      assert.ok(summary);
      const run = store.exportRun(summary.runId);
      const edit = run.toolLedger.find((t) => t.toolCallId === 'edit-1');
      assert.equal(edit && toolOutcomeOf(edit), 'cancelled');
      const events = run.checkpoints.at(-1)?.runtimeContext.events as Record<string, unknown>[];
      assert.deepEqual(events.find((e) => e.type === 'approval')?.decision, { outcome: 'cancelled' });
    } finally {
      store.close();
    }
  });

  it('refuses to start without an agent command', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'acp'], { cwd: ROOT });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 2);
    assert.match(err, /expected the agent command after --/);
  });
});

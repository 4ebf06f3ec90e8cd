/**
 * Claude Code transcripts import as runs a user can debug: the active branch
 * as the run with its checkpoints and tool ledger, the rewound branch as a
 * fork, the subagent as a linked child run, usage counted once, compaction as
 * a fresh prompt, and real published transcripts with every tool_use as a
 * tool call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { argsHash, messageToolCalls, type Checkpoint } from '../../../src/model';
import { importPath, type ImportSummary } from '../../../src/importers';
import { checkpoints, jsonLines, REAL_FILE, SESSION_FILE, SESSION_ID, tempStore, type TempStore } from './helpers';

describe('Claude Code session import', () => {
  let t: TempStore;
  let summary: ImportSummary;
  let mainId: string;
  let forkId: string;
  let subId: string;

  before(async () => {
    t = tempStore();
    summary = await importPath(t.store, SESSION_FILE);
    const runs = summary.files[0]?.runs ?? [];
    mainId = runs.find((r) => r.agentId === 'claude-code' && r.mode === 'live')?.runId ?? '';
    forkId = runs.find((r) => r.mode === 'fork')?.runId ?? '';
    subId = runs.find((r) => r.agentId === 'claude-code/subagent')?.runId ?? '';
  });
  after(() => t.close());

  it('imports the session as a run, a fork and a subagent run', () => {
    assert.equal(summary.imported, 1);
    assert.equal(summary.failed, 0);
    assert.equal(summary.files[0]?.format, 'claude-code');
    assert.equal(summary.runIds.length, 3);
    assert.equal(mainId, `cc-${SESSION_ID}`); // from the session, not the content: a grown file continues it
    assert.deepEqual(summary.files[0]?.unknownTypes, { 'ai-insights-update': 1 });
    const run = t.store.getRun(mainId);
    assert.equal(run.status, 'completed');
    assert.equal(run.sessionId, SESSION_ID);
    assert.equal(run.metadata.title, 'Fix leap-year bug in parseDate');
    assert.equal(run.crashed, false);
  });

  it('maps a split, parallel response to one model call and two tool calls', () => {
    const cps = checkpoints(t.store, mainId);
    assert.deepEqual(
      cps.slice(0, 7).map((c) => [c.boundary, c.stepIndex, c.toolCallId ?? '']),
      [
        ['before_model_call', 0, ''],
        ['after_model_call', 0, ''],
        ['before_tool_call', 0, 'toolu_01Grep'],
        ['before_tool_call', 0, 'toolu_01Read'],
        ['after_tool_call', 0, 'toolu_01Grep'],
        ['after_tool_call', 0, 'toolu_01Read'],
        ['before_model_call', 1, ''],
      ],
    );
    const after0 = cps[1] as Checkpoint;
    assert.equal(after0.finishReason, 'tool_use');
    assert.equal(after0.model?.model, 'claude-sonnet-4-5-20250929');
    const assistant = after0.messages.at(-1);
    assert.equal(assistant?.role, 'assistant');
    assert.deepEqual(
      messageToolCalls(assistant as never).map((c) => [c.toolCallId, c.toolName]),
      [
        ['toolu_01Grep', 'Grep'],
        ['toolu_01Read', 'Read'],
      ],
    );
    // The three split lines repeat the usage; it counts once (the final output figure).
    assert.equal(after0.usage?.outputTokens, 96);
    assert.equal(after0.usage?.inputTokens, 3 + 2100 + 11800);
  });

  it('counts usage once per response over the whole run', () => {
    const run = t.store.getRun(mainId);
    // 13 responses on the active branch (the split first one counted once).
    const outputs = [96, 64, 71, 88, 140, 77, 52, 31, 160, 40, 14, 45, 9];
    assert.equal(
      run.outputTokens,
      outputs.reduce((a, b) => a + b, 0),
    );
    const modelCalls = t.store.listCheckpoints(mainId).filter((c) => c.boundary === 'after_model_call');
    assert.equal(modelCalls.length, outputs.length);
  });

  it('fills the tool ledger with ids, names, args, results, errors and policies', () => {
    const ledger = t.store.listToolCalls(mainId);
    assert.deepEqual(
      ledger.map((r) => r.toolCallId),
      [
        'toolu_01Grep',
        'toolu_01Read',
        'toolu_02Read',
        'toolu_03Bash',
        'toolu_04Task',
        'toolu_05Edit',
        'toolu_06Edit',
        'toolu_07Bash',
        'toolu_11Edit',
        'toolu_12Bash',
        'toolu_14Bash',
      ],
    );
    const byId = new Map(ledger.map((r) => [r.toolCallId, r]));
    const grep = byId.get('toolu_01Grep');
    assert.deepEqual(grep?.args, { pattern: 'parseDate', path: 'src', output_mode: 'files_with_matches' });
    assert.equal(grep?.argsHash, argsHash(grep?.args));
    assert.equal(grep?.result, 'Found 2 files\nsrc/date.ts\nsrc/index.ts');
    assert.equal(grep?.sideEffectLevel, 'read_only');
    assert.equal(grep?.replayPolicy, 'reuse_result');
    const failing = byId.get('toolu_03Bash');
    assert.equal(failing?.result, undefined);
    assert.match(
      String((failing?.error as { message?: string }).message),
      /Exit code 1[\s\S]*RangeError: invalid day 29/,
    );
    assert.equal(failing?.sideEffectLevel, 'external_irreversible');
    assert.equal(failing?.replayPolicy, 'forbid_replay');
    assert.equal(byId.get('toolu_05Edit')?.sideEffectLevel, 'write');
    assert.equal(byId.get('toolu_05Edit')?.replayPolicy, 'manual_confirm');
    assert.equal(byId.get('toolu_04Task')?.sideEffectLevel, 'expensive_read');
    assert.equal(t.store.getRun(mainId).toolErrorCount, 1);
    // The tool result is a `tool` message naming its call, as the recorder writes it.
    const afterGrep = checkpoints(t.store, mainId).find(
      (c) => c.boundary === 'after_tool_call' && c.toolCallId === 'toolu_01Grep',
    );
    const toolMsg = afterGrep?.messages.at(-1);
    assert.deepEqual([toolMsg?.role, toolMsg?.toolCallId, toolMsg?.toolName], ['tool', 'toolu_01Grep', 'Grep']);
    const afterBash = checkpoints(t.store, mainId).find(
      (c) => c.toolCallId === 'toolu_03Bash' && c.boundary === 'after_tool_call',
    );
    assert.ok(
      (afterBash?.messages.at(-1)?.content as { error?: unknown }).error,
      'a failed tool leaves { error } in its message',
    );
  });

  it('synthesises the runtime context from the transcript', () => {
    const ctx = (checkpoints(t.store, mainId)[0] as Checkpoint).runtimeContext;
    assert.equal(ctx.conversation.sessionId, SESSION_ID);
    assert.equal(ctx.project.projectId, 'calendar-kit');
    assert.equal(ctx.project.gitBranch, 'fix/leap-year');
    assert.equal(ctx.project.cwd, '/home/dev/projects/calendar-kit');
    assert.deepEqual(ctx.user.permissions, ['permissionMode:acceptEdits']);
    assert.equal(ctx.user.roleId, 'external');
    assert.deepEqual(ctx.tools.availableTools, ['Bash', 'Edit', 'Grep', 'Read', 'Task']);
    assert.equal(ctx.model.model, 'claude-sonnet-4-5-20250929');
    assert.equal(ctx.model.promptVersion, 'claude-code@2.1.52');
    assert.equal(ctx.task.title, 'Fix leap-year bug in parseDate');
  });

  it('restarts the conversation from the summary at a compaction boundary', () => {
    const cps = checkpoints(t.store, mainId);
    const compact = cps.find((c) => c.boundary === 'before_prompt_build') as Checkpoint;
    assert.ok(compact, 'a before_prompt_build checkpoint marks the compaction');
    assert.equal(compact.messages.length, 1);
    assert.match(String(compact.messages[0]?.content), /continued from a previous conversation/);
    assert.match(String(compact.runtimeContext.conversation.summary), /isLeapYear/);
    const before = cps[cps.indexOf(compact) - 1] as Checkpoint;
    assert.ok(before.messages.length > 20, 'the checkpoint before holds the long conversation');
    assert.equal(t.store.getRun(mainId).metadata.compactions, 1);
    assert.equal(cps.at(-1)?.boundary, 'agent_end');
    assert.equal(cps.at(-1)?.messages.length, 5);
  });

  it('imports the rewound branch as a fork of the run at the branch point', () => {
    const fork = t.store.getRun(forkId);
    assert.equal(fork.mode, 'fork');
    assert.equal(fork.parentRunId, mainId);
    const from = t.store.getCheckpoint(fork.forkFromCheckpointId as string);
    assert.equal(from.runId, mainId);
    assert.equal(from.boundary, 'after_model_call');
    assert.match(
      String(from.messages.at(-1)?.content && JSON.stringify(from.messages.at(-1)?.content)),
      /The test passes/,
    );
    const cps = checkpoints(t.store, forkId);
    assert.equal(cps[0]?.boundary, 'before_model_call');
    assert.equal(cps[0]?.messages.at(-1)?.content, 'Also add a test for 1900.');
    assert.equal(cps[0]?.messages.length, from.messages.length + 1);
    assert.deepEqual(
      t.store.listToolCalls(forkId).map((r) => r.toolCallId),
      ['toolu_09Edit'],
    );
    assert.equal(fork.outputTokens, 96 + 12);
    // The active branch holds the edited prompt instead.
    const mainMsgs = checkpoints(t.store, mainId).map((c) => c.messages.at(-1)?.content);
    assert.ok(mainMsgs.includes('Also add tests for 1900 (not a leap year) and 2000 (a leap year).'));
    assert.ok(!mainMsgs.includes('Also add a test for 1900.'));
  });

  it('links the subagent run to the Task tool call that started it', () => {
    const sub = t.store.getRun(subId);
    assert.deepEqual(sub.metadata.subagentOf, { runId: mainId, toolCallId: 'toolu_04Task' });
    assert.deepEqual(
      t.store.listToolCalls(subId).map((r) => r.toolName),
      ['Grep', 'Read'],
    );
    assert.equal(sub.status, 'completed');
    const subs = t.store.getRun(mainId).metadata.subagents as { agentId: string; runId: string }[];
    assert.deepEqual(
      subs.map((s) => [s.agentId, s.runId]),
      [['a7e1c2d', subId]],
    );
  });

  it('does not duplicate runs when the same file is imported again', async () => {
    const before = t.store.listRuns().total;
    const again = await importPath(t.store, SESSION_FILE);
    assert.equal(again.imported, 0);
    assert.equal(again.skipped, 1);
    assert.match(String(again.files[0]?.reason), /already imported/);
    assert.equal(t.store.listRuns().total, before);
  });
});

describe('real published Claude Code transcript', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('imports every tool_use block as a tool call, parallel results folded into the run', async () => {
    const summary = await importPath(t.store, REAL_FILE);
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    assert.equal(summary.runIds.length, 1, 'parallel tool results are not mistaken for rewinds');
    const runId = summary.runIds[0] as string;
    const expected = jsonLines(REAL_FILE)
      .filter((l) => l.type === 'assistant')
      .flatMap(
        (l) => (l.message as { content: { type: string; id?: string; name?: string; input?: unknown }[] }).content,
      )
      .filter((b) => b.type === 'tool_use');
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolCallId, r.toolName, r.args]),
      expected.map((b) => [b.id, b.name, b.input]),
    );
    assert.ok(
      ledger.every((r) => r.endedAt !== undefined && typeof r.result === 'string'),
      'every call has its result',
    );
    // One response split over three lines (text, thinking, tool_use) and a fourth after hooks: one model call.
    const calls = t.store.listCheckpoints(runId).filter((c) => c.boundary === 'after_model_call');
    assert.equal(calls.length, 2);
    assert.equal(t.store.getRun(runId).outputTokens, 9 + 81);
  });

  it('applies a side-effect table from the user over the defaults', async () => {
    const other = tempStore();
    try {
      const summary = await importPath(other.store, REAL_FILE, { sideEffectTable: { Bash: 'read_only' } });
      const ledger = other.store.listToolCalls(summary.runIds[0] as string);
      assert.ok(ledger.every((r) => r.sideEffectLevel === 'read_only' && r.replayPolicy === 'reuse_result'));
    } finally {
      other.close();
    }
  });
});

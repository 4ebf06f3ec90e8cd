/**
 * Claude Code transcripts as they really are (real public files in
 * test/fixtures/importers/claude-code-real, sources in its README): the lines
 * of one response are one model call with all its tool calls, whichever line
 * each result hangs from; only a rewind is a fork; inline subagents (2.0 /
 * 1.x sidechain lines) are child runs linked to their Task call; a
 * compaction whose parent is missing and a file without links stay one run;
 * a subagent file imported alone is a run of its own.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { messageToolCalls } from '../../../src/model';
import { importPath } from '../../../src/importers';
import type { SqlRunStore } from '../../../src/store';
import { checkpoints, FIXTURES, jsonLines, tempStore, type TempStore } from './helpers';

const REAL = path.join(FIXTURES, 'claude-code-real');
const SUBAGENT = path.join(REAL, 'spotter-subagent', 'agent-a2898e3.jsonl');
const SIDECHAIN = path.join(REAL, 'sidechain-2.0', '88a8d761-7b9a-4bf1-a8ca-c1febe6bf358.jsonl');
const COMPACTION = path.join(REAL, 'compaction', 'dag_compact_after_rewind.jsonl');

type Line = Record<string, unknown> & { message?: { id?: string; content?: unknown; usage?: Record<string, number> } };
type Block = { type: string; id?: string; is_error?: boolean | null };

function blocks(l: Line): Block[] {
  return Array.isArray(l.message?.content) ? (l.message.content as Block[]) : [];
}

/** What the file says, read test-side: tool_use ids, error results, and token sums of each response once. */
function facts(lines: Line[]) {
  const toolUses = lines
    .filter((l) => l.type === 'assistant')
    .flatMap((l) => blocks(l).filter((b) => b.type === 'tool_use'));
  const errors = lines.flatMap((l) => blocks(l)).filter((b) => b.type === 'tool_result' && b.is_error === true);
  const usage = new Map<string, Record<string, number>>();
  for (const l of lines)
    if (l.type === 'assistant' && l.message?.id && l.message.usage) usage.set(l.message.id, l.message.usage);
  let input = 0;
  let output = 0;
  for (const u of usage.values()) {
    input += (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    output += u.output_tokens ?? 0;
  }
  return {
    toolUseIds: toolUses.map((b) => b.id as string),
    errors: errors.length,
    responses: usage.size,
    input,
    output,
  };
}

/** Every tool call the conversation of the run's last checkpoint carries. */
function conversationToolCalls(store: SqlRunStore, runId: string): string[] {
  const last = checkpoints(store, runId).at(-1);
  return (last?.messages ?? [])
    .filter((m) => m.role === 'assistant')
    .flatMap((m) => messageToolCalls(m).map((c) => c.toolCallId));
}

function write(dir: string, name: string, lines: Line[]): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

describe('Claude Code 2.x parallel tool calls (real subagent transcript)', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('imports a subagent file alone as one run with every tool call, error and token of the file', async () => {
    const summary = await importPath(t.store, SUBAGENT);
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    assert.equal(summary.runIds.length, 1, 'parallel tool calls are not forks');
    const runId = summary.runIds[0] as string;
    const run = t.store.getRun(runId);
    const f = facts(jsonLines(SUBAGENT) as Line[]);
    assert.equal(f.toolUseIds.length, 17);
    assert.deepEqual(
      t.store.listToolCalls(runId).map((r) => r.toolCallId),
      f.toolUseIds,
    );
    assert.deepEqual(conversationToolCalls(t.store, runId), f.toolUseIds);
    assert.equal(run.status, 'completed');
    assert.equal(run.toolErrorCount, f.errors);
    assert.equal(run.toolErrorCount, 8);
    assert.deepEqual([run.inputTokens, run.outputTokens], [f.input, f.output]);
    assert.equal(t.store.listCheckpoints(runId).filter((c) => c.boundary === 'after_model_call').length, f.responses);
    assert.equal(run.agentId, 'claude-code/subagent');
    assert.equal(run.metadata.subagentId, 'a2898e3');
  });

  it('keeps a response whole when a slower parallel result is written last and the chain goes on from it', async () => {
    // The results of two parallel Globs written in the other order (the later call finished first), the chain
    // continuing from the last result written: its sibling tool_use line and result are a side branch.
    const lines = jsonLines(SUBAGENT) as Line[];
    const r3 = lines.findIndex((l) => l.uuid === '8652a8d2-ebe3-492f-9231-da1a1abb00df');
    const r4 = lines.findIndex((l) => l.uuid === '8d680c2d-eca1-4fb0-85e0-952ed6c8bb1f');
    const [moved] = lines.splice(r3, 1);
    lines.splice(r4, 0, moved as Line);
    const next = lines.find((l) => l.uuid === 'e8c7a072-475b-4c5b-bcc1-b5d35afc8dea') as Line;
    next.parentUuid = '8652a8d2-ebe3-492f-9231-da1a1abb00df';
    const file = write(t.dir, 'reordered/agent-a2898e3.jsonl', lines);
    const summary = await importPath(t.store, file);
    assert.equal(summary.runIds.length, 1, JSON.stringify(summary.files[0]?.runs));
    const runId = summary.runIds[0] as string;
    assert.equal(t.store.getRun(runId).status, 'completed');
    assert.equal(t.store.listToolCalls(runId).length, 17);
    assert.equal(conversationToolCalls(t.store, runId).length, 17);
  });

  it('imports a file whose lines have no parentUuid as one run in file order', async () => {
    const lines = (jsonLines(SUBAGENT) as Line[]).map((l) => ({ ...l, parentUuid: null }));
    const summary = await importPath(t.store, write(t.dir, 'unlinked/agent-a2898e3.jsonl', lines));
    assert.equal(summary.runIds.length, 1);
    const runId = summary.runIds[0] as string;
    assert.deepEqual(
      t.store.listToolCalls(runId).map((r) => r.toolCallId),
      facts(lines).toolUseIds,
    );
    assert.equal(t.store.getRun(runId).status, 'completed');
  });

  it('imports a subagent transcript under any name as a run of its own', async () => {
    const other = tempStore();
    try {
      const file = write(other.dir, 'renamed/exploration.jsonl', jsonLines(SUBAGENT) as Line[]);
      const summary = await importPath(other.store, file);
      assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
      const run = other.store.getRun(summary.runIds[0] as string);
      assert.equal(run.agentId, 'claude-code/subagent');
      assert.equal(other.store.listToolCalls(run.runId).length, 17);
    } finally {
      other.close();
    }
  });
});

describe('inline subagents (sidechain lines of the session file)', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('imports a 2.0 session with `isMeta: null` and its inline subagent as a child run linked to its Task call', async () => {
    const summary = await importPath(t.store, SIDECHAIN);
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    const runs = summary.files[0]?.runs ?? [];
    assert.equal(runs.length, 2);
    const main = t.store.getRun(runs[0]?.runId as string);
    const sub = t.store.getRun(runs[1]?.runId as string);
    assert.equal(main.agentId, 'claude-code');
    assert.deepEqual(
      t.store.listToolCalls(main.runId).map((r) => r.toolName),
      ['Task'],
    );
    assert.deepEqual(sub.metadata.subagentOf, { runId: main.runId, toolCallId: 'toolu_01JA2mLseQCAW3MdwPE4qWEk' });
    assert.equal(sub.metadata.subagentId, 'e1c84ba5');
    const lines = jsonLines(SIDECHAIN) as Line[];
    const mainFacts = facts(lines.filter((l) => l.isSidechain !== true));
    const subFacts = facts(lines.filter((l) => l.isSidechain === true));
    assert.deepEqual([main.inputTokens, main.outputTokens], [mainFacts.input, mainFacts.output]);
    assert.deepEqual([sub.inputTokens, sub.outputTokens], [subFacts.input, subFacts.output]);
    assert.deepEqual(
      t.store.listToolCalls(sub.runId).map((r) => r.toolCallId),
      subFacts.toolUseIds,
    );
    // The published excerpt stops before the Grep's result: the subagent ends with it cancelled, not lost.
    assert.equal(sub.status, 'cancelled');
    const grep = t.store.listToolCalls(sub.runId)[0];
    assert.equal((grep?.error as { name?: string } | undefined)?.name, 'Cancelled');
  });

  it('links 1.x sidechains (no agentId on any line) to the Task call running when they started', async () => {
    const lines = (jsonLines(SIDECHAIN) as Line[]).map((l) => {
      const { agentId: _agentId, ...rest } = l;
      return { ...rest, version: '1.0.98' };
    });
    const summary = await importPath(t.store, write(t.dir, 'v1/88a8d761-7b9a-4bf1-a8ca-c1febe6bf358.jsonl', lines));
    const runs = summary.files[0]?.runs ?? [];
    assert.equal(runs.length, 2, JSON.stringify(summary.files[0]));
    const sub = t.store.getRun(runs[1]?.runId as string);
    assert.deepEqual(sub.metadata.subagentOf, {
      runId: runs[0]?.runId,
      toolCallId: 'toolu_01JA2mLseQCAW3MdwPE4qWEk',
    });
    assert.equal(sub.metadata.inlineSidechain, true);
  });
});

describe('rewinds and compactions', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('makes a fork only at the rewind and keeps the compacted session one run', async () => {
    const summary = await importPath(t.store, COMPACTION);
    const runs = summary.files[0]?.runs ?? [];
    assert.deepEqual(
      runs.map((r) => r.mode),
      ['live', 'fork'],
    );
    const main = t.store.getRun(runs[0]?.runId as string);
    const fork = t.store.getRun(runs[1]?.runId as string);
    assert.equal(fork.parentRunId, main.runId);
    const prompts = (runId: string) =>
      checkpoints(t.store, runId)
        .filter((c) => c.boundary === 'before_model_call')
        .map((c) => JSON.stringify(c.messages.at(-1)?.content));
    assert.ok(prompts(fork.runId).some((p) => p.includes('First attempt')));
    assert.ok(prompts(main.runId).some((p) => p.includes('Second attempt')));
    assert.ok(prompts(main.runId).some((p) => p.includes('After compaction')));
    assert.equal(main.metadata.compactions, 1);
    // 4 responses on the active branch (the rewound one is the fork's), 10 in and 5 out each.
    assert.deepEqual([main.inputTokens, main.outputTokens, fork.inputTokens, fork.outputTokens], [40, 20, 10, 5]);
  });

  it('links a compaction summariser (agent-acompact-*) to the compaction it wrote', async () => {
    const dir = path.join(t.dir, 'acompact');
    const session = write(dir, 's1.jsonl', jsonLines(COMPACTION) as Line[]);
    // A summariser transcript: the spotter subagent's lines under the acompact agent id, before the compaction.
    const sub = (jsonLines(SUBAGENT) as Line[]).slice(0, 3).map((l) => ({
      ...l,
      sessionId: 's1',
      agentId: 'acompact-e1f845',
      timestamp: '2025-07-01T10:29:00.000Z',
    }));
    write(dir, 's1/subagents/agent-acompact-e1f845.jsonl', sub);
    const other = tempStore();
    try {
      const summary = await importPath(other.store, session);
      const runs = summary.files[0]?.runs ?? [];
      const main = other.store.getRun(runs[0]?.runId as string);
      const compaction = other.store.listCheckpoints(main.runId).find((c) => c.boundary === 'before_prompt_build');
      const summariser = runs.find((r) => r.runId.endsWith('-agent-acompact-e1f845'));
      assert.ok(summariser, JSON.stringify(runs));
      assert.deepEqual(other.store.getRun(summariser.runId).metadata.subagentOf, {
        runId: main.runId,
        compaction: true,
        checkpointId: compaction?.checkpointId,
      });
      assert.ok(!(summary.files[0]?.warnings ?? []).some((w) => /unlinked/.test(w.message)));
    } finally {
      other.close();
    }
  });

  it('continues the session across a compaction whose parent line is not in the file', async () => {
    const lines = (jsonLines(COMPACTION) as Line[]).map((l) =>
      l.subtype === 'compact_boundary' ? { ...l, logicalParentUuid: 'not-in-this-file' } : l,
    );
    const summary = await importPath(t.store, write(t.dir, 'lost/s1.jsonl', lines));
    const runs = summary.files[0]?.runs ?? [];
    assert.deepEqual(
      runs.map((r) => r.mode),
      ['live', 'fork'],
    );
    const main = t.store.getRun(runs[0]?.runId as string);
    assert.equal(main.metadata.detachedBranch, undefined);
    assert.deepEqual(
      [main.inputTokens, main.outputTokens],
      [40, 20],
      'the hours before the compaction stay in the run',
    );
    assert.ok(t.store.getRun(runs[1]?.runId as string).parentRunId === main.runId);
  });
});

describe('a line read again for its message only (toolUseResult not parsed twice)', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  /** The messages of the run's last checkpoint, for the file made of `lines`. */
  async function lastMessages(name: string, lines: Line[]): Promise<unknown[]> {
    const summary = await importPath(t.store, write(t.dir, name, lines));
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    const runId = summary.runIds[0] as string;
    return JSON.parse(JSON.stringify(checkpoints(t.store, runId).at(-1)?.messages ?? [])) as unknown[];
  }

  it('imports the same conversation whether toolUseResult comes after the message, before it, or also as a key of a tool call', async () => {
    const lines = jsonLines(SUBAGENT) as Line[];
    assert.ok(
      lines.some((l) => {
        const keys = Object.keys(l);
        return keys.includes('toolUseResult') && keys.indexOf('message') < keys.indexOf('toolUseResult');
      }),
      'the real file writes toolUseResult after the message',
    );
    // distinct session ids: each file is a run of its own
    const session = (l: Line, k: number): Line => ({ ...l, sessionId: `${String(l.sessionId)}-${k}` });
    const asWritten = await lastMessages(
      'as-written.jsonl',
      lines.map((l) => session(l, 1)),
    );
    const withResults = asWritten.filter((m) => (m as { role?: string }).role === 'tool');
    assert.ok(withResults.length > 0, 'the run has tool results');

    // toolUseResult first: the line is read whole
    const resultFirst = lines.map((l) => {
      if (!('toolUseResult' in l)) return session(l, 2);
      const { toolUseResult, ...rest } = session(l, 2);
      return { toolUseResult, ...rest };
    });
    assert.deepEqual(await lastMessages('result-first.jsonl', resultFirst), asWritten);

    // a tool call whose arguments have a toolUseResult key, and a text quoting the key: the first response's line
    const firstCall = lines.findIndex((l) => l.type === 'assistant' && blocks(l).some((b) => b.type === 'tool_use'));
    const quoted = lines.map((l, k) => {
      const s = session(l, 3);
      if (k !== firstCall) return s;
      const content = (s.message?.content as Record<string, unknown>[]).map((b) =>
        b.type === 'tool_use'
          ? { ...b, input: { ...(b.input as object), toolUseResult: { nested: true } } }
          : b.type === 'text'
            ? { ...b, text: `${String(b.text)} ,"toolUseResult": quoted` }
            : b,
      );
      return { ...s, message: { ...s.message, content }, toolUseResult: 'the line’s own' };
    });
    const withKey = await lastMessages('key-in-args.jsonl', quoted);
    assert.equal(withKey.length, asWritten.length);
    const calls = withKey.flatMap((m) => messageToolCalls(m as never));
    assert.ok(
      calls.some((c) => JSON.stringify(c.args).includes('"toolUseResult":{"nested":true}')),
      'the argument named toolUseResult is in the call',
    );
    assert.deepEqual(withKey.slice(2), asWritten.slice(2), 'the lines after it read as before');
  });
});

/**
 * Other shapes of the same formats: OpenAI messages one per JSONL line, OTLP
 * export requests one per JSONL line (a trace split across them), and a
 * Claude Code session that ends on an API error.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { FIXTURES, SESSION_FILE, tempStore, type TempStore } from './helpers';

describe('other shapes', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('reads OpenAI messages written one per line as one run', async () => {
    const msgs = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'List the files.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_files', arguments: '{"dir":"."}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt\nb.txt' },
      { role: 'assistant', content: 'a.txt and b.txt' },
    ];
    const file = path.join(t.dir, 'messages.jsonl');
    fs.writeFileSync(file, msgs.map((m) => JSON.stringify(m)).join('\n') + '\n');
    const summary = await importPath(t.store, file);
    assert.equal(summary.files[0]?.format, 'openai-chat');
    assert.equal(summary.runIds.length, 1);
    const [call] = t.store.listToolCalls(summary.runIds[0] as string);
    assert.deepEqual([call?.toolName, call?.args, call?.result], ['list_files', { dir: '.' }, 'a.txt\nb.txt']);
  });

  it('reads OTLP export requests one per line, joining a trace split across them', async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'otel', 'travel-booker.otlp.json'), 'utf8')) as {
      resourceSpans: { resource: unknown; scopeSpans: { scope: unknown; spans: unknown[] }[] }[];
    };
    const rs = doc.resourceSpans[0];
    const spans = rs?.scopeSpans[0]?.spans ?? [];
    const part = (s: unknown[]) =>
      JSON.stringify({
        resourceSpans: [{ resource: rs?.resource, scopeSpans: [{ scope: rs?.scopeSpans[0]?.scope, spans: s }] }],
      });
    const file = path.join(t.dir, 'traces.jsonl');
    fs.writeFileSync(file, `${part(spans.slice(0, 3))}\n${part(spans.slice(3))}\n`);
    const summary = await importPath(t.store, file);
    assert.equal(summary.files[0]?.format, 'otel');
    assert.equal(summary.runIds.length, 1);
    assert.equal(t.store.getRun(summary.runIds[0] as string).toolCallCount, 2);
    assert.equal(t.store.getRun(summary.runIds[0] as string).checkpointCount, 11);
  });

  it('marks a Claude Code run failed when it ends on an API error', async () => {
    const lines = fs
      .readFileSync(SESSION_FILE, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .slice(0, 12);
    const last = JSON.parse(lines[11] as string) as { uuid: string; sessionId: string };
    lines.push(
      JSON.stringify({
        parentUuid: last.uuid,
        isSidechain: false,
        type: 'assistant',
        uuid: 'e0000000-0000-4000-8000-000000000001',
        timestamp: '2026-03-02T09:20:00.000Z',
        sessionId: last.sessionId,
        isApiErrorMessage: true,
        error: 'rate_limit',
        message: {
          id: 'x',
          model: '<synthetic>',
          role: 'assistant',
          type: 'message',
          content: [{ type: 'text', text: 'API Error: 429 rate_limit_error' }],
          stop_reason: 'stop_sequence',
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
    );
    const file = path.join(t.dir, 'apierror.jsonl');
    fs.writeFileSync(file, lines.join('\n'));
    const summary = await importPath(t.store, file);
    const run = t.store.getRun(summary.runIds[0] as string);
    assert.equal(run.status, 'failed');
    assert.match(String((run.error as { message: string }).message), /429 rate_limit_error/);
    const cps = t.store.listCheckpoints(run.runId);
    assert.equal(cps.filter((c) => c.boundary === 'after_model_call').at(-1)?.finishReason, 'error');
  });
});

describe('subagent transcripts with parents outside the file', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('folds hook reminders whose parent is in the session file into the run', async () => {
    // Shaped like marot/spotter's agent-acompact-e1f845.jsonl: isMeta reminders parented on main-session lines.
    const env = {
      isSidechain: true,
      userType: 'external',
      cwd: '/w',
      sessionId: 's-1',
      version: '2.1.39',
      agentId: 'acompact-1',
    };
    const lines = [
      {
        ...env,
        parentUuid: 'outside-1',
        type: 'user',
        isMeta: true,
        uuid: 'm1',
        timestamp: '2026-02-12T20:24:43.254Z',
        message: { role: 'user', content: '<system-reminder>compile error</system-reminder>' },
      },
      {
        ...env,
        parentUuid: 'outside-2',
        type: 'user',
        isMeta: true,
        uuid: 'm2',
        timestamp: '2026-02-12T20:26:01.866Z',
        message: { role: 'user', content: '<system-reminder>credo</system-reminder>' },
      },
      {
        ...env,
        parentUuid: 'outside-3',
        type: 'user',
        isMeta: true,
        uuid: 'm3',
        timestamp: '2026-02-12T20:29:04.376Z',
        message: { role: 'user', content: '<system-reminder>compile error 2</system-reminder>' },
      },
      {
        ...env,
        parentUuid: 'm3',
        type: 'user',
        uuid: 'p1',
        timestamp: '2026-02-12T20:29:04.537Z',
        message: { role: 'user', content: 'Your task is to create a detailed summary of the conversation so far.' },
      },
      {
        ...env,
        parentUuid: 'p1',
        type: 'assistant',
        uuid: 'a1',
        timestamp: '2026-02-12T20:30:00.000Z',
        message: {
          id: 'msg_1',
          model: 'claude-opus-4-6',
          role: 'assistant',
          content: [{ type: 'text', text: '<summary>...</summary>' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 10, output_tokens: 900 },
        },
      },
    ];
    const dir = path.join(t.dir, 'proj', 's-1', 'subagents');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'agent-acompact-1.jsonl');
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
    const summary = await importPath(t.store, file);
    assert.equal(summary.runIds.length, 1, JSON.stringify(summary.files[0]?.runs));
    const cps = t.store.listCheckpoints(summary.runIds[0] as string);
    const first = t.store.getCheckpoint(cps[0]?.checkpointId as string);
    assert.equal(first.messages.length, 4, 'three reminders and the prompt reach the model call');
    assert.equal(t.store.getRun(summary.runIds[0] as string).agentId, 'claude-code/subagent');
  });
});

describe('importing a subagents folder on its own', () => {
  it('imports the subagent transcripts there, unlinked', async () => {
    const t = tempStore();
    try {
      const dir = path.join(path.dirname(SESSION_FILE), '7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11', 'subagents');
      const summary = await importPath(t.store, dir);
      assert.equal(summary.imported, 1);
      const run = t.store.getRun(summary.runIds[0] as string);
      assert.equal(run.agentId, 'claude-code/subagent');
      assert.equal(run.toolCallCount, 2);
      assert.equal(run.metadata.subagentOf, undefined);
    } finally {
      t.close();
    }
  });
});

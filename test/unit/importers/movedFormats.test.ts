/**
 * Formats that moved on, on files their producers wrote (sources in test/fixtures/importers/README.md): a Codex
 * 0.60 rollout whose token counts come just before their call's items, a Codex tail whose running total starts
 * again when the session was resumed, a rollout whose conversation is only in `event_msg` events, and the Gemini
 * CLI's JSON Lines chat recording (a header, messages written twice under one id, `$set` and `info` records); and
 * Agents SDK generation spans holding `chat.completion` objects (derived from the constructed weather trace).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { sniffFormat } from '../../../src/importers/sniff';
import { FIXTURES, checkpoints, jsonLines, tempStore, type TempStore } from './helpers';

const AGENTS = path.join(FIXTURES, 'openai-agents', 'weather-agent.trace.json');
const GEMINI_JSONL = path.join(FIXTURES, 'gemini', 'session-2025-10-05T07-11-eefc44a3.jsonl');
const CODEX_060 = path.join(
  FIXTURES,
  'codex',
  'rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl',
);
const CODEX_TAIL = path.join(
  FIXTURES,
  'codex',
  'rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.tail.jsonl',
);

/** Each model call's [input, output] tokens, in order. */
function callTokens(t: TempStore, runId: string): [number, number][] {
  return checkpoints(t.store, runId)
    .filter((c) => c.boundary === 'after_model_call')
    .map((c) => [c.usage?.inputTokens ?? 0, c.usage?.outputTokens ?? 0]);
}

function tokenTotals(file: string): { input: number; output: number } {
  const last = jsonLines(file)
    .map((l) => l.payload as { type?: string; info?: { total_token_usage?: Record<string, number> } } | undefined)
    .filter((p) => p?.type === 'token_count' && p.info?.total_token_usage)
    .at(-1);
  const total = last?.info?.total_token_usage ?? {};
  return { input: total.input_tokens ?? 0, output: total.output_tokens ?? 0 };
}

describe('formats that moved on', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('gives each call of a Codex 0.60 rollout its own tokens (counted just before its items)', async () => {
    const summary = await importPath(t.store, CODEX_060);
    const run = summary.files[0]?.runs[0];
    assert.ok(run, summary.files[0]?.reason);
    const calls = callTokens(t, run.runId);
    // last_token_usage of the three token_count events that change the running total, in file order.
    assert.deepEqual(calls, [
      [3559, 31],
      [3648, 33],
      [3820, 34],
    ]);
    const sum = calls.reduce((a, [i, o]) => ({ input: a.input + i, output: a.output + o }), { input: 0, output: 0 });
    assert.deepEqual(sum, tokenTotals(CODEX_060));
  });

  it('counts the calls of a Codex rollout tail whose running total started again (a resumed session)', async () => {
    const summary = await importPath(t.store, CODEX_TAIL);
    const run = summary.files[0]?.runs[0];
    assert.ok(run, summary.files[0]?.reason);
    // Total 12,418,394 then 194,558: the second is a new process's total, equal to its call's own figures.
    assert.deepEqual(callTokens(t, run.runId), [
      [194312, 230],
      [194558, 13],
    ]);
  });

  it('reads the conversation of a Codex rollout whose messages are only event_msg events', async () => {
    const lines = fs
      .readFileSync(CODEX_TAIL, 'utf8')
      .split('\n')
      .filter((l) => l !== '' && !/"type":"response_item","payload":\{"type":"message"/.test(l));
    const file = path.join(t.dir, 'events-only', 'rollout-events-only.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const summary = await importPath(t.store, file);
    const run = summary.files[0]?.runs[0];
    assert.ok(run, summary.files[0]?.reason);
    const last = checkpoints(t.store, run.runId).at(-1);
    const talk = (last?.messages ?? []).map((m) => [m.role, m.content]);
    assert.deepEqual(talk, [
      ['user', "this is a test prompt. Don't do anythin"],
      ['assistant', '(acknowledged – no action taken)'],
    ]);
    assert.deepEqual(callTokens(t, run.runId), [[194558, 13]]);
  });

  it("reads a Gemini CLI JSON Lines recording: a model turn written twice is one call, with the later copy's tool call", async () => {
    assert.deepEqual(sniffFormat(GEMINI_JSONL), { format: 'gemini-cli' });
    const summary = await importPath(t.store, GEMINI_JSONL);
    const f = summary.files[0];
    const run = f?.runs[0];
    assert.ok(run, f?.reason);
    assert.deepEqual(callTokens(t, run.runId), [
      [7228, 94],
      [10101, 177],
    ]);
    const ledger = t.store.listToolCalls(run.runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolName, r.args, r.result]),
      [
        [
          'run_shell_command',
          { command: 'cargo clippy', description: 'Run cargo clippy' },
          'Command: cargo clippy\nExit Code: 0\nStderr: warning: 4 warnings',
        ],
      ],
    );
    const stored = t.store.getRun(run.runId);
    assert.equal(stored.status, 'completed');
    assert.deepEqual((stored.metadata as { notes?: unknown }).notes, [{ type: 'info', content: 'Request cancelled.' }]);
    const last = checkpoints(t.store, run.runId).at(-1);
    assert.equal(last?.messages[0]?.content, '請幫我檢查一下所有代碼是否足夠簡潔 而不是一堆冗餘代碼');
  });

  it('replays $rewindTo of a Gemini recording, and skips a record of no known shape naming its line', async () => {
    const lines = fs
      .readFileSync(GEMINI_JSONL, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const lastModel = JSON.parse(lines.at(-2) as string) as { id: string };
    // A rewind to the last model message drops it; a line of no known shape is skipped with its line number.
    const edited = [...lines.slice(0, -1), JSON.stringify({ $rewindTo: lastModel.id }), '{"what":1}', lines.at(-1)];
    const file = path.join(t.dir, 'gemini-rewind', 'session-rewind.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, edited.join('\n') + '\n');
    const summary = await importPath(t.store, file);
    const f = summary.files[0];
    assert.ok(f?.runs[0], f?.reason);
    assert.deepEqual(callTokens(t, f.runs[0].runId), [[7228, 94]]);
    assert.deepEqual(
      f.skippedRecords.map((r) => [r.line, r.reason]),
      [[lines.length + 1, 'not a Gemini chat record (no id, $set, $rewindTo or sessionId)']],
    );
  });

  it('reads Agents SDK generation spans whose output is a chat.completion object, or a message without a role', async () => {
    const doc = JSON.parse(fs.readFileSync(AGENTS, 'utf8')) as { data: { span_data?: Record<string, unknown> }[] };
    const generations = doc.data.map((x) => x.span_data).filter((d) => d?.type === 'generation');
    const [first, second] = generations as [Record<string, unknown>, Record<string, unknown>];
    const usage = first.usage as { input_tokens: number; output_tokens: number };
    first.output = [
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: (first.output as unknown[])[0], finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens },
      },
    ];
    delete first.usage;
    second.output = (second.output as Record<string, unknown>[]).map(({ role: _role, ...rest }) => rest);
    const file = path.join(t.dir, 'agents', 'completion-objects.trace.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(doc));
    const summary = await importPath(t.store, file);
    const f = summary.files[0];
    const run = f?.runs[0];
    assert.ok(run, f?.reason);
    assert.deepEqual(callTokens(t, run.runId), [
      [62, 15],
      [94, 9],
    ]);
    assert.deepEqual(
      t.store.listToolCalls(run.runId).map((r) => [r.toolName, r.args]),
      [['get_weather', { city: 'Tokyo' }]],
    );
    const last = checkpoints(t.store, run.runId).at(-1);
    assert.deepEqual(last?.messages.at(-1), { role: 'assistant', content: "It's sunny in Tokyo today." });
  });
});

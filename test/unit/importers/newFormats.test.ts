/**
 * Formats recognised by content that people have besides Claude Code: Codex
 * CLI rollouts, Gemini CLI chats, OpenAI Responses API objects and OpenAI
 * Agents SDK trace exports (fixtures in test/fixtures/importers, sources in
 * its README); an unknown file says which formats exist and how each is
 * recognised; compressed and binary files are named as such.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { messageToolCalls } from '../../../src/model';
import { importPath, sniffFormat } from '../../../src/importers';
import type { SqlRunStore } from '../../../src/store';
import { checkpoints, FIXTURES, tempStore, type TempStore } from './helpers';

const CODEX = path.join(FIXTURES, 'codex', 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
const GEMINI = path.join(FIXTURES, 'gemini', 'session-2025-10-05T07-11-eefc44a3.json');
const RESPONSES = path.join(FIXTURES, 'openai-responses', 'dinner.response.json');
const AGENTS = path.join(FIXTURES, 'openai-agents', 'weather-agent.trace.json');

function conversationCalls(store: SqlRunStore, runId: string): string[] {
  const last = checkpoints(store, runId).at(-1);
  return (last?.messages ?? [])
    .filter((m) => m.role === 'assistant')
    .flatMap((m) => messageToolCalls(m).map((c) => c.toolCallId));
}

const modelCalls = (store: SqlRunStore, runId: string) =>
  store.listCheckpoints(runId).filter((c) => c.boundary === 'after_model_call');

function write(dir: string, name: string, text: string | Buffer): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

describe('new trace formats', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('Codex CLI rollout: each response a model call, function / custom / MCP calls answered by their outputs', async () => {
    assert.deepEqual(sniffFormat(CODEX), { format: 'codex' });
    const summary = await importPath(t.store, CODEX);
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    const runId = summary.runIds[0] as string;
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolCallId, r.toolName]),
      [
        ['call-structured-001', 'exec_command'],
        ['call-custom-001', 'apply_patch'],
        ['call-mcp-001', 'mcp__synthetic__lookup'],
      ],
    );
    assert.deepEqual(ledger[0]?.args, { cmd: 'find . -maxdepth 1 -type f' });
    assert.equal(ledger[0]?.result, './alpha.txt\n./beta.txt');
    assert.deepEqual(
      conversationCalls(t.store, runId),
      ledger.map((r) => r.toolCallId),
    );
    assert.equal(modelCalls(t.store, runId).length, 4);
    const first = checkpoints(t.store, runId).find((c) => c.boundary === 'after_model_call');
    assert.match(
      JSON.stringify(first?.messages.at(-1)?.content),
      /"text":"I will inspect the synthetic directory.","type":"reasoning"/,
    );
    assert.doesNotMatch(JSON.stringify(first?.messages), /ENCRYPTED/);
    assert.equal(first?.model?.model, 'synthetic-model');
    assert.equal(
      checkpoints(t.store, runId).at(-1)?.messages.at(-1)?.content,
      'The synthetic files are alpha.txt and beta.txt.',
    );
    assert.deepEqual(summary.files[0]?.unknownTypes, { future_synthetic_record: 1 });
    const run = t.store.getRun(runId);
    assert.equal(run.status, 'completed');
    assert.equal(run.sessionId, '11111111-1111-4111-8111-111111111111');
  });

  it('Codex CLI: a repeated token_count after a call counts once, for that call', async () => {
    const lines = fs
      .readFileSync(CODEX, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const count = JSON.stringify({
      timestamp: '2026-01-02T03:04:10.500Z',
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: {
          total_token_usage: {
            input_tokens: 14475,
            cached_input_tokens: 2432,
            output_tokens: 216,
            total_tokens: 14691,
          },
          last_token_usage: { input_tokens: 14475, cached_input_tokens: 2432, output_tokens: 216, total_tokens: 14691 },
        },
      },
    });
    lines.splice(7, 0, count, count); // after the first call's output, twice, as Codex writes it
    const summary = await importPath(t.store, write(t.dir, 'codex/rollout-tokens.jsonl', lines.join('\n') + '\n'));
    const runId = summary.runIds[0] as string;
    const calls = modelCalls(t.store, runId);
    assert.deepEqual(calls[0]?.usage, { inputTokens: 14475, outputTokens: 216, cacheReadInputTokens: 2432 });
    assert.equal(calls.filter((c) => c.usage).length, 1);
    assert.deepEqual([t.store.getRun(runId).inputTokens, t.store.getRun(runId).outputTokens], [14475, 216]);
  });

  it('Gemini CLI chat: gemini messages are model calls with their thoughts and tokens', async () => {
    assert.deepEqual(sniffFormat(GEMINI), { format: 'gemini-cli' });
    const summary = await importPath(t.store, GEMINI);
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    const runId = summary.runIds[0] as string;
    const run = t.store.getRun(runId);
    assert.deepEqual([run.inputTokens, run.outputTokens], [7228 + 10101, 94 + 177]);
    const calls = modelCalls(t.store, runId);
    assert.equal(calls.length, 2);
    assert.equal(calls[0]?.usage?.reasoningOutputTokens, 2659);
    const cps = checkpoints(t.store, runId);
    assert.equal(cps[0]?.messages[0]?.content, '請幫我檢查一下所有代碼是否足夠簡潔 而不是一堆冗餘代碼');
    assert.match(JSON.stringify(cps.at(-1)?.messages.at(-1)?.content), /Simplifying the Code/);
    assert.equal(cps.at(-1)?.model?.model, 'gemini-2.5-pro');
    assert.equal(run.startedAt, Date.parse('2025-10-05T07:11:03.979Z'));
  });

  it('Gemini CLI chat: tool calls with their results, errors and cancellations', async () => {
    const doc = JSON.parse(fs.readFileSync(GEMINI, 'utf8')) as { messages: Record<string, unknown>[] };
    const tool = (id: string, name: string, status: string, output: string) => ({
      id,
      name,
      args: { command: 'cargo clippy' },
      result: [{ functionResponse: { id, name, response: { output } } }],
      status,
      timestamp: '2025-10-05T07:11:40.000Z',
      resultDisplay: output,
    });
    (doc.messages[1] as Record<string, unknown>).toolCalls = [
      tool('run_shell_command-1', 'run_shell_command', 'success', 'warning: 4 warnings'),
      tool('run_shell_command-2', 'run_shell_command', 'error', 'Command exited with code 101'),
      tool('replace-3', 'replace', 'cancelled', ''),
    ];
    const summary = await importPath(t.store, write(t.dir, 'gemini/session-tools.json', JSON.stringify(doc)));
    const runId = summary.runIds[0] as string;
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => r.toolCallId),
      ['run_shell_command-1', 'run_shell_command-2', 'replace-3'],
    );
    assert.equal(ledger[0]?.result, 'warning: 4 warnings');
    assert.match(JSON.stringify(ledger[1]?.error), /code 101/);
    assert.equal((ledger[2]?.error as { name?: string }).name, 'Cancelled');
    assert.deepEqual(
      conversationCalls(t.store, runId),
      ledger.map((r) => r.toolCallId),
    );
  });

  it('Responses API object: one model call with its text, usage and created_at', async () => {
    assert.deepEqual(sniffFormat(RESPONSES), { format: 'openai-responses' });
    const summary = await importPath(t.store, RESPONSES);
    const runId = summary.runIds[0] as string;
    const run = t.store.getRun(runId);
    assert.deepEqual([run.inputTokens, run.outputTokens], [16, 50]);
    assert.equal(run.startedAt, 1750766212 * 1000);
    assert.equal(modelCalls(t.store, runId).length, 1);
    assert.match(
      String(checkpoints(t.store, runId).at(-1)?.messages.at(-1)?.content),
      /^Of course! What type of dinner/,
    );
  });

  it('Responses API request / response pairs: function calls answered by the next input, not repeated', async () => {
    const base = JSON.parse(fs.readFileSync(RESPONSES, 'utf8')) as Record<string, unknown>;
    const call = {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_dinner',
      name: 'find_recipe',
      arguments: '{"dish":"risotto"}',
    };
    const first = {
      request: { model: 'gpt-4o-mini', instructions: 'You plan dinners.', input: 'Plan a quick dinner.' },
      response: { ...base, id: 'resp_1', output: [call] },
    };
    const second = {
      request: {
        model: 'gpt-4o-mini',
        input: [
          { type: 'message', role: 'user', content: 'Plan a quick dinner.' },
          call,
          { type: 'function_call_output', call_id: 'call_dinner', output: 'Mushroom risotto, 30 minutes' },
        ],
      },
      response: { ...base, id: 'resp_2', created_at: 1750766220 },
    };
    const file = write(t.dir, 'responses/pairs.jsonl', [first, second].map((r) => JSON.stringify(r)).join('\n') + '\n');
    assert.deepEqual(sniffFormat(file), { format: 'openai-responses' });
    const summary = await importPath(t.store, file);
    const runId = summary.runIds[0] as string;
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolCallId, r.args, r.result]),
      [['call_dinner', { dish: 'risotto' }, 'Mushroom risotto, 30 minutes']],
    );
    assert.equal(modelCalls(t.store, runId).length, 2);
    const last = checkpoints(t.store, runId).at(-1);
    assert.equal(last?.systemPrompt, 'You plan dinners.');
    assert.deepEqual(
      last?.messages.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
  });

  it('Agents SDK trace export: generation spans are model calls, function spans the tool calls', async () => {
    assert.deepEqual(sniffFormat(AGENTS), { format: 'openai-agents' });
    const summary = await importPath(t.store, AGENTS);
    const runId = summary.runIds[0] as string;
    const run = t.store.getRun(runId);
    assert.equal(run.agentId, 'Weather agent');
    assert.deepEqual([run.inputTokens, run.outputTokens], [62 + 94, 15 + 9]);
    assert.deepEqual(
      t.store
        .listCheckpoints(runId)
        .map((c) => c.boundary)
        .filter((b) => b !== 'agent_end'),
      [
        'before_model_call',
        'after_model_call',
        'before_tool_call',
        'after_tool_call',
        'before_model_call',
        'after_model_call',
      ],
    );
    const [call] = t.store.listToolCalls(runId);
    assert.deepEqual(
      [call?.toolCallId, call?.args, call?.result],
      ['call_Qx2TfA9', { city: 'Tokyo' }, 'The weather in Tokyo is sunny.'],
    );
    assert.equal(checkpoints(t.store, runId).at(-1)?.messages.at(-1)?.content, "It's sunny in Tokyo today.");
    assert.equal(run.sessionId, 'conv_7a1b');
  });

  it('names every format to force, in one line, when none fits, and names gzip and binary files', async () => {
    const unknown = await importPath(t.store, write(t.dir, 'misc/notes.json', '{"hello": "world"}'));
    const reason = String(unknown.files[0]?.reason);
    assert.match(reason, /^format not recognised: .*--format/);
    assert.doesNotMatch(reason, /\n/, 'one line');
    for (const f of ['claude-code', 'codex', 'gemini-cli', 'openai-agents', 'openai-responses', 'otel', 'openai-chat'])
      assert.match(reason, new RegExp(`\\b${f}\\b`));
    const gz = await importPath(t.store, write(t.dir, 'misc/session.jsonl.json', gzipSync(fs.readFileSync(CODEX))));
    assert.match(String(gz.files[0]?.reason), /gzip-compressed file: decompress it first/);
    const bin = await importPath(t.store, write(t.dir, 'misc/blob.json', Buffer.from([0x7b, 0, 1, 2, 3, 0x7d])));
    assert.match(String(bin.files[0]?.reason), /a binary file/);
  });
});

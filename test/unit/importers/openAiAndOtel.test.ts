/**
 * OpenAI chat logs (request/response JSONL), Vercel AI SDK messages and OTLP
 * GenAI traces import as runs with model calls, usage and a tool ledger; OTLP
 * spans are ordered by start time and missing content stays missing.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { checkpoints, FIXTURES, tempStore, type TempStore } from './helpers';

describe('OpenAI chat log import', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('turns a request/response JSONL log into one run with every tool round', async () => {
    const summary = await importPath(t.store, path.join(FIXTURES, 'openai', 'umbrella-agent.jsonl'));
    assert.equal(summary.files[0]?.format, 'openai-chat');
    assert.equal(summary.runIds.length, 1, 'each request continues the conversation: one run');
    const runId = summary.runIds[0] as string;
    const run = t.store.getRun(runId);
    assert.equal(run.inputTokens, 182 + 260 + 318 + 371);
    assert.equal(run.outputTokens, 52 + 41 + 60 + 33);
    assert.equal(run.stepCount, 4);
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolCallId, r.toolName, r.args]),
      [
        ['call_w1', 'get_weather', { city: 'Lisbon' }],
        ['call_w2', 'get_weather', { city: 'Porto' }],
        ['call_f1', 'get_forecast', { city: 'Porto', days: 1 }],
        [
          'call_e1',
          'send_email',
          { to: 'ana@example.com', subject: 'Umbrella', body: 'Yes for Porto (80% rain), optional for Lisbon.' },
        ],
      ],
    );
    assert.equal(ledger[0]?.result, '{"city":"Lisbon","temp_c":17,"sky":"cloudy"}');
    assert.equal(ledger[3]?.sideEffectLevel, 'write', 'tools the table does not know are treated as writes');
    const cps = checkpoints(t.store, runId);
    assert.equal(cps[0]?.systemPrompt, 'You are a travel assistant. Use tools for facts.');
    assert.equal(cps[1]?.model?.model, 'gpt-4o-2024-08-06');
    assert.equal(cps.at(-2)?.finishReason, 'stop');
    assert.match(String(cps.at(-1)?.messages.at(-1)?.content), /Pack an umbrella for Porto/);
  });

  it('reads Vercel AI SDK tool-call / tool-result parts, errors included', async () => {
    const summary = await importPath(t.store, path.join(FIXTURES, 'openai', 'vercel-calculator.json'));
    const runId = summary.runIds[0] as string;
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolCallId, r.result]),
      [
        ['tc_1', 391],
        ['tc_2', undefined],
        ['tc_3', 403],
      ],
    );
    assert.equal((ledger[1]?.error as { message: string }).message, 'sqrt of a negative number');
    assert.equal(t.store.getRun(runId).toolErrorCount, 1);
  });
});

describe('OTLP GenAI trace import', () => {
  let t: TempStore;
  let runId: string;
  before(async () => {
    t = tempStore();
    const summary = await importPath(t.store, path.join(FIXTURES, 'otel', 'travel-booker.otlp.json'));
    assert.equal(summary.files[0]?.format, 'otel');
    runId = summary.runIds[0] as string;
  });
  after(() => t.close());

  it('makes one run of the trace, its spans in start-time order', () => {
    assert.match(runId, /^otel-5b8efff798038103d269b633813fc60c-/);
    const run = t.store.getRun(runId);
    assert.equal(run.agentId, 'travel-booker');
    assert.equal(run.sessionId, 'conv_7781');
    assert.deepEqual(
      t.store.listCheckpoints(runId).map((c) => `${c.boundary}${c.toolName ? `:${c.toolName}` : ''}`),
      [
        'before_model_call',
        'after_model_call',
        'before_tool_call:search_flights',
        'after_tool_call:search_flights',
        'before_model_call',
        'after_model_call',
        'before_tool_call:book_flight',
        'after_tool_call:book_flight',
        'before_model_call',
        'after_model_call',
        'agent_end',
      ],
    );
    assert.equal(run.inputTokens, 120 + 201 + 260);
    assert.equal(run.outputTokens, 31 + 28 + 22);
  });

  it('maps execute_tool spans to the ledger with args, results and span errors', () => {
    const [search, book] = t.store.listToolCalls(runId);
    assert.deepEqual(search?.args, { from: 'LIS', to: 'OPO', date: '2026-03-14' });
    assert.deepEqual(search?.result, [
      { id: 'TP1940', price: 39 },
      { id: 'FR8812', price: 29 },
    ]);
    assert.deepEqual(
      book?.args,
      { flight: 'FR8812', user: 42 },
      'args come from the chat output when the span has none',
    );
    assert.equal((book?.error as { message: string }).message, 'card declined');
  });

  it('keeps captured messages and invents none where content was not captured', () => {
    const cps = checkpoints(t.store, runId);
    assert.equal(cps[0]?.systemPrompt, 'You book flights. Always pick the cheapest.');
    assert.equal(cps[0]?.messages[0]?.content, 'Book the cheapest flight LIS->OPO on 2026-03-14 for user 42.');
    assert.equal(cps[4]?.messages.length, 3, 'the second chat span carries the conversation it saw');
    const lastChatBefore = cps[8];
    const lastChatAfter = cps[9];
    assert.equal(
      lastChatAfter?.messages.length,
      lastChatBefore?.messages.length,
      'no output captured: no message invented',
    );
    assert.equal(lastChatAfter?.finishReason, 'stop');
    assert.equal(cps[1]?.model?.model, 'gpt-4o-2024-08-06');
  });
});

/**
 * OpenTelemetry traces of the common producers import with their model
 * calls, tool calls and token counts: Vercel AI SDK (`ai.*`), OpenLLMetry
 * (indexed `gen_ai.prompt.N.*`), OpenInference (`llm.input_messages.N.*`)
 * and the official instrumentation with message content in OTLP logs.
 * Every run replays with --captured.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { messageToolCalls } from '../../../src/model';
import { importPath } from '../../../src/importers';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import type { SqlRunStore } from '../../../src/store';
import { checkpoints, FIXTURES, tempStore, type TempStore } from './helpers';

const OTEL = path.join(FIXTURES, 'otel');

/** Boundaries of the run, tool checkpoints with their tool name. */
function shape(store: SqlRunStore, runId: string): string[] {
  const names = new Map(store.listToolCalls(runId).map((r) => [r.toolCallId, r.toolName]));
  return store
    .listCheckpoints(runId)
    .map((c) => (c.toolCallId ? `${c.boundary}:${names.get(c.toolCallId)}` : c.boundary))
    .filter((b) => b !== 'agent_end');
}

async function importOne(t: TempStore, file: string) {
  const summary = await importPath(t.store, path.join(OTEL, file));
  assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
  const runId = summary.runIds[0] as string;
  return { runId, run: t.store.getRun(runId), warnings: summary.files[0]?.warnings ?? [] };
}

/** The run's export loads into a fresh store with the same checkpoints. */
function exportsAndLoads(t: TempStore, runId: string): void {
  const exported = JSON.parse(JSON.stringify(t.store.exportRun(runId))) as unknown;
  const other = tempStore();
  try {
    other.store.loadRun(exported, { where: runId });
    assert.equal(other.store.getRun(runId).checkpointCount, t.store.getRun(runId).checkpointCount);
  } finally {
    other.close();
  }
}

async function replays(t: TempStore, runId: string): Promise<void> {
  const created = new ForkService(t.store).createReplay(runId, { captured: true });
  const outcome = await runFork(t.store, created.forkRequestId);
  assert.equal(outcome.divergence, undefined, JSON.stringify(outcome.divergence));
  assert.equal(outcome.status, t.store.getRun(runId).status, JSON.stringify(outcome.error));
}

describe('OpenTelemetry producers', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('Vercel AI SDK, spans its own telemetry test recorded: one model call, one tool call, 10 + 20 tokens', async () => {
    const { runId, run, warnings } = await importOne(t, 'vercel-ai-sdk-real-tool-call.otlp.json');
    assert.deepEqual(warnings, []);
    assert.deepEqual(shape(t.store, runId), [
      'before_model_call',
      'after_model_call',
      'before_tool_call:tool1',
      'after_tool_call:tool1',
    ]);
    // The doGenerate span's usage only, not the outer ai.generateText's again.
    assert.deepEqual([run.inputTokens, run.outputTokens, run.toolCallCount, run.toolErrorCount], [10, 20, 1, 0]);
    const [call] = t.store.listToolCalls(runId);
    assert.deepEqual(call?.args, { value: 'value' });
    // ai.toolCall.result is JSON.stringify of what the tool returned: the string result1.
    assert.equal(call?.result, 'result1');
    const end = checkpoints(t.store, runId).at(-1);
    assert.deepEqual(
      end?.messages.map((m) => m.role),
      ['user', 'assistant', 'tool'],
    );
    assert.equal(end?.messages[0]?.content, 'test-input');
    assert.equal(end?.model?.model, 'mock-model-id');
    const exported = JSON.parse(JSON.stringify(t.store.exportRun(runId))) as unknown;
    const other = tempStore();
    try {
      other.store.loadRun(exported, { where: runId });
    } finally {
      other.close();
    }
    await replays(t, runId);
  });

  it('Vercel AI SDK: the provider calls are the model calls, ai.toolCall spans the tool calls', async () => {
    const { runId, run } = await importOne(t, 'vercel-ai-travel.otlp.json');
    assert.deepEqual(shape(t.store, runId), [
      'before_model_call',
      'after_model_call',
      'before_tool_call:get_weather',
      'after_tool_call:get_weather',
      'before_model_call',
      'after_model_call',
      'before_tool_call:book_hotel',
      'after_tool_call:book_hotel',
      'before_tool_call:search_attractions',
      'after_tool_call:search_attractions',
      'before_model_call',
      'after_model_call',
    ]);
    // The three doGenerate spans (800+1200+1500 in, 50+120+300 out), not the outer ai.generateText sum again.
    assert.deepEqual([run.inputTokens, run.outputTokens], [3500, 470]);
    assert.equal(run.toolErrorCount, 1);
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => r.args),
      [{ city: 'Barcelona' }, { city: 'Barcelona', checkin: '2026-04-01' }, { city: 'Barcelona' }],
    );
    assert.match(JSON.stringify(ledger[1]?.error), /No rooms available/);
    const last = checkpoints(t.store, runId).find(
      (c) => c.boundary === 'after_model_call' && c.finishReason === 'stop',
    );
    assert.equal(last?.systemPrompt?.startsWith('You are a travel planning assistant'), true);
    assert.equal(last?.model?.model, 'gpt-4o-2024-05-13');
    const calls = (last?.messages ?? []).filter((m) => m.role === 'assistant').flatMap((m) => messageToolCalls(m));
    assert.deepEqual(
      calls.map((c) => c.toolCallId),
      ledger.map((r) => r.toolCallId),
    );
    assert.match(JSON.stringify(last?.messages.at(-1)?.content), /several attractions/);
    assert.deepEqual(run.metadata.producers, ['vercel-ai']);
    await replays(t, runId);
  });

  it('OpenLLMetry: indexed prompt / completion attributes, the tool call between the two model calls', async () => {
    const { runId, run } = await importOne(t, 'openllmetry-weather.otlp.json');
    assert.deepEqual(shape(t.store, runId), [
      'before_model_call',
      'after_model_call',
      'before_tool_call:get_weather',
      'after_tool_call:get_weather',
      'before_model_call',
      'after_model_call',
    ]);
    assert.deepEqual([run.inputTokens, run.outputTokens], [81 + 111, 15 + 12]);
    const [call] = t.store.listToolCalls(runId);
    assert.deepEqual(
      [call?.toolCallId, call?.args, call?.result],
      ['call_9ZgkXBX1hW', { city: 'Paris' }, 'Sunny, 24 degrees'],
    );
    // The assistant message that only carries a tool call reads back (content is not lost).
    const cps = checkpoints(t.store, runId);
    const second = cps.filter((c) => c.boundary === 'before_model_call')[1];
    assert.deepEqual(
      second?.messages.map((m) => m.role),
      ['user', 'assistant', 'tool'],
    );
    assert.equal(second?.systemPrompt, 'You answer with the weather.');
    assert.equal(cps.at(-2)?.messages.at(-1)?.content, 'It is sunny in Paris, 24 degrees.');
    await replays(t, runId);
  });

  it('OpenInference: llm.input_messages / output_messages, token counts and the TOOL span', async () => {
    const { runId, run } = await importOne(t, 'openinference-stocks.otlp.json');
    assert.deepEqual(shape(t.store, runId), [
      'before_model_call',
      'after_model_call',
      'before_tool_call:get_stock_price',
      'after_tool_call:get_stock_price',
      'before_model_call',
      'after_model_call',
    ]);
    assert.deepEqual([run.inputTokens, run.outputTokens], [84 + 115, 17 + 11]);
    const [call] = t.store.listToolCalls(runId);
    assert.deepEqual([call?.toolCallId, call?.args, call?.result], ['call_pQx8UaT3', { ticker: 'NVDA' }, '181.46']);
    const final = checkpoints(t.store, runId).at(-1);
    assert.equal(final?.messages.at(-1)?.content, 'NVDA is trading at $181.46.');
    assert.equal(final?.model?.model, 'gpt-4o-2024-08-06');
    await replays(t, runId);
  });

  it('OpenLLMetry, a span Traceloop 0.33.9 wrote (as Langfuse keeps it): one model call, 14 + 173 tokens', async () => {
    const { runId, run, warnings } = await importOne(t, 'openllmetry-langfuse-real.otlp.json');
    assert.deepEqual(warnings, []);
    assert.deepEqual(shape(t.store, runId), ['before_model_call', 'after_model_call']);
    // gen_ai.usage.prompt_tokens / completion_tokens (the older names), not llm.usage.total_tokens.
    assert.deepEqual([run.inputTokens, run.outputTokens, run.toolCallCount], [14, 173, 0]);
    assert.equal(run.status, 'completed');
    assert.deepEqual(run.metadata.producers, ['openllmetry']);
    const end = checkpoints(t.store, runId).find((c) => c.boundary === 'after_model_call');
    assert.deepEqual(end?.model, { provider: 'OpenAI', model: 'gpt-3.5-turbo-0125' });
    assert.equal(end?.finishReason, 'stop');
    assert.deepEqual(end?.messages[0], { role: 'user', content: 'What is LLM Observability?' });
    assert.match(String(end?.messages[1]?.content), /^LLM Observability \(Logs, Metrics, and Traces Observability\)/);
    exportsAndLoads(t, runId);
    await replays(t, runId);
  });

  it('OpenInference, the spans its openai instrumentation wrote: three model calls, two tool calls, their tokens', async () => {
    const { runId, run, warnings } = await importOne(t, 'openinference-openai-real-tool-calls.otlp.json');
    assert.deepEqual(warnings, []);
    // No TOOL spans: openai's runTools runs the tools itself; each call is answered by the next span's input.
    assert.deepEqual(shape(t.store, runId), [
      'before_model_call',
      'after_model_call',
      'before_tool_call:getCurrentLocation',
      'after_tool_call:getCurrentLocation',
      'before_model_call',
      'after_model_call',
      'before_tool_call:getWeather',
      'after_tool_call:getWeather',
      'before_model_call',
      'after_model_call',
    ]);
    assert.deepEqual(
      [run.inputTokens, run.outputTokens, run.toolCallCount, run.toolErrorCount],
      [70 + 86 + 121, 7 + 15 + 20, 2, 0],
    );
    assert.equal(run.status, 'completed');
    assert.deepEqual(
      t.store.listToolCalls(runId).map((r) => [r.toolCallId, r.args, r.result]),
      [
        ['call_5ERYvu4iTGSvDlcDQjDP3g3J', {}, 'Boston'],
        // The tool message openai-node sent: the tool's object, JSON-encoded.
        ['call_0LCdYLkdRUt3rV3dawoIFHBf', { location: 'Boston' }, '{"temperature":52,"precipitation":"rainy"}'],
      ],
    );
    const afterCalls = checkpoints(t.store, runId).filter((c) => c.boundary === 'after_model_call');
    // The finish reason is only in the raw response (output.value).
    assert.deepEqual(
      afterCalls.map((c) => c.finishReason),
      ['tool_calls', 'tool_calls', 'stop'],
    );
    assert.deepEqual(afterCalls.at(-1)?.model, { provider: 'openai', model: 'gpt-3.5-turbo-0613' });
    assert.equal(
      afterCalls.at(-1)?.messages.at(-1)?.content,
      'The weather in Boston this week is expected to be rainy with a temperature of 52 degrees.',
    );
    exportsAndLoads(t, runId);
    await replays(t, runId);
  });

  it('OpenInference, the same spans as the test recorded them (each its own trace): three runs, each replays', async () => {
    const file = path.join(OTEL, 'openinference-openai-real-tool-calls.otlp.json');
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[];
    };
    doc.resourceSpans[0]?.scopeSpans[0]?.spans.forEach((s, i) => (s.traceId = `${i + 1}`.repeat(32)));
    const split = path.join(t.dir, 'openinference-three-traces.otlp.json');
    fs.writeFileSync(split, JSON.stringify(doc));
    const summary = await importPath(t.store, split);
    assert.equal(summary.runIds.length, 3, JSON.stringify(summary.files[0]));
    const runs = summary.runIds.map((id) => t.store.getRun(id));
    runs.sort((a, b) => a.startedAt - b.startedAt);
    // The first two end on a call the trace never answers; the third opens nothing.
    assert.deepEqual(
      runs.map((r) => [r.status, r.inputTokens, r.outputTokens, r.toolCallCount]),
      [
        ['cancelled', 70, 7, 1],
        ['cancelled', 86, 15, 1],
        ['completed', 121, 20, 0],
      ],
    );
    for (const r of runs) await replays(t, r.runId);
  });

  it('reads message content the instrumentation wrote to OTLP logs', async () => {
    const { runId, run } = await importOne(t, 'openai-v2-logs.otlp.jsonl');
    assert.deepEqual([run.inputTokens, run.outputTokens], [24, 9]);
    const cps = checkpoints(t.store, runId);
    const before = cps.find((c) => c.boundary === 'before_model_call');
    assert.equal(before?.systemPrompt, 'You write haiku.');
    assert.deepEqual(before?.messages, [{ role: 'user', content: 'Write a haiku about the sea.' }]);
    const afterCall = cps.find((c) => c.boundary === 'after_model_call');
    assert.match(String(afterCall?.messages.at(-1)?.content), /Grey waves fold/);
    assert.equal(afterCall?.finishReason, 'stop');
  });
});

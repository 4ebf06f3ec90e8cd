/**
 * What a recording costs on disk, SQLite: the bench's ReAct workload — through the SDK, an
 * assistant message of a text part and a tool call, a ~1 KB tool result, a ledger record per call — takes at most
 * 1.3x its unique content (the canonical JSON of its messages and its ledger's facts) beyond the empty store, and
 * the same bytes per checkpoint late in the run as early.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { canonicalJson } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { assistantMessage, toolResult } from '../../bench/record.bench';
import { testContext } from '../../helpers/context';
import { tmpDir } from '../../helpers/tmp';

test('a ReAct run takes at most 1.3x its unique content, and the same bytes per checkpoint late as early', async () => {
  const file = join(tmpDir(), 'runs.db');
  const store = openRunStore(file);
  const size = () => {
    store.checkpointWal();
    return statSync(file).size;
  };
  const empty = size();
  let clock = Date.parse('2026-11-01T00:00:00Z');
  const recorder = openRecorder({ runStore: store, now: () => (clock += 7), heartbeatMs: 0 });
  const ctx = testContext();
  const first = { role: 'user' as const, content: 'Survey the literature on replay debugging for LLM agents.' };
  const systemPrompt = 'You are a research agent. Use the search tool, then answer.';
  const run = recorder.startRun({ agentId: 'bytes', runtimeContext: ctx, systemPrompt, messages: [first] });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { q: string; step: number }) =>
    toolResult(args.step),
  );
  const unique: string[] = [canonicalJson(ctx), canonicalJson(systemPrompt), canonicalJson(first)];
  const sizes: number[] = [];
  for (let step = 0; step < 300; step++) {
    const message = assistantMessage(step);
    await run.modelCall({}, () =>
      Promise.resolve({ message, finishReason: 'tool_calls', usage: { inputTokens: 500 + step, outputTokens: 40 } }),
    );
    await search({ q: `query ${step}`, step }, { toolCallId: `call-${step}` });
    unique.push(canonicalJson(message));
    unique.push(
      canonicalJson({ role: 'tool', toolCallId: `call-${step}`, toolName: 'search', content: toolResult(step) }),
    );
    if (step % 100 === 99) sizes.push(size());
  }
  run.end();
  recorder.close();
  for (const rec of store.listToolCalls(run.runId)) unique.push(canonicalJson({ ...rec, result: undefined }));
  const total = size();
  store.close();
  const uniqueBytes = unique.reduce((n, s) => n + Buffer.byteLength(s), 0);
  assert.ok(total - empty <= 1.3 * uniqueBytes, `${total - empty} B for ${uniqueBytes} B of unique content`);
  // 400 checkpoints each: steps 100-199 and 200-299 add the same bytes (within a few pages)
  const [a, b, c] = sizes as [number, number, number];
  assert.ok(Math.abs(c - b - (b - a)) <= 0.1 * (b - a), `${b - a} B then ${c - b} B per 400 checkpoints`);
});

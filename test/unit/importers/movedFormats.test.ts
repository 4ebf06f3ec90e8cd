/**
 * Formats that moved on, on files their producers wrote (sources in test/fixtures/importers/README.md): a Codex
 * 0.60 rollout whose token counts come just before their call's items, a Codex tail whose running total starts
 * again when the session was resumed, and a rollout whose conversation is only in `event_msg` events.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { FIXTURES, checkpoints, jsonLines, tempStore, type TempStore } from './helpers';

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
});

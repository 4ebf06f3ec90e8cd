/**
 * OpenAI chat logs as people have them: an assistant message with empty or
 * null content keeps its tool calls in the conversation; run times come
 * from the responses' `created`; tool calls without ids are answered in
 * order; a streamed `chat.completion.chunk` log (real chunks in
 * openai/get-weather-stream.jsonl) is one model call; a log that ends on an
 * unanswered call ends it cancelled and replays; a BOM and a corrupt first
 * line are read right.
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

const UMBRELLA = path.join(FIXTURES, 'openai', 'umbrella-agent.jsonl');
const STREAM = path.join(FIXTURES, 'openai', 'get-weather-stream.jsonl');

type Rec = { request: { messages: Record<string, unknown>[] }; response: Record<string, unknown> };
const records = (): Rec[] =>
  fs
    .readFileSync(UMBRELLA, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);

function lastConversation(store: SqlRunStore, runId: string) {
  return checkpoints(store, runId).at(-1)?.messages ?? [];
}

describe('OpenAI chat logs', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('keeps the tool calls of assistant messages with null content in the conversation, each answered', async () => {
    const summary = await importPath(t.store, UMBRELLA);
    const runId = summary.runIds[0] as string;
    const asked = records().flatMap((r) =>
      ((r.response.choices as { message: { tool_calls?: { id: string }[] } }[])[0]?.message.tool_calls ?? []).map(
        (c) => c.id,
      ),
    );
    assert.equal(asked.length, 4);
    assert.deepEqual(
      t.store.listToolCalls(runId).map((r) => r.toolCallId),
      asked,
    );
    const messages = lastConversation(t.store, runId);
    const inConversation = messages.filter((m) => m.role === 'assistant').flatMap((m) => messageToolCalls(m));
    assert.deepEqual(
      inConversation.map((c) => c.toolCallId),
      asked,
    );
    // Each call is followed by its tool message: a valid sequence for a real model.
    for (const id of asked) {
      const at = messages.findIndex(
        (m) => m.role === 'assistant' && messageToolCalls(m).some((c) => c.toolCallId === id),
      );
      assert.ok(
        messages.slice(at + 1).some((m) => m.role === 'tool' && m.toolCallId === id),
        id,
      );
    }
  });

  it('dates the run from the responses, not the file', async () => {
    const runId = (await importPath(t.store, UMBRELLA)).files[0]?.reason?.split(' ').at(-1) as string;
    const run = t.store.getRun(runId);
    const created = records().map((r) => (r.response.created as number) * 1000);
    assert.equal(run.startedAt, created[0]);
    const afterModel = t.store.listCheckpoints(runId).filter((c) => c.boundary === 'after_model_call');
    assert.deepEqual(
      afterModel.map((c) => c.createdAt >= (created[afterModel.indexOf(c)] as number)),
      [true, true, true, true],
    );
    assert.ok((run.endedAt ?? 0) < (created.at(-1) as number) + 60_000);
  });

  it('answers tool calls without ids (other models behind OpenAI-compatible endpoints) in order', async () => {
    const blank = records().map((r) => {
      const strip = (m: Record<string, unknown>) => ({
        ...m,
        ...(m.tool_calls
          ? { tool_calls: (m.tool_calls as Record<string, unknown>[]).map((c) => ({ ...c, id: '' })) }
          : {}),
        ...(m.role === 'tool' ? { tool_call_id: '' } : {}),
      });
      const choices = (r.response.choices as { message: Record<string, unknown> }[]).map((c) => ({
        ...c,
        message: strip(c.message),
      }));
      return {
        request: { ...r.request, messages: r.request.messages.map(strip) },
        response: { ...r.response, choices },
      };
    });
    const file = path.join(t.dir, 'blank-ids.jsonl');
    fs.writeFileSync(file, blank.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const summary = await importPath(t.store, file);
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    const runId = summary.runIds[0] as string;
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolName, (r.args as { city?: string }).city]),
      [
        ['get_weather', 'Lisbon'],
        ['get_weather', 'Porto'],
        ['get_forecast', 'Porto'],
        ['send_email', undefined],
      ],
    );
    assert.ok(ledger.every((r) => r.endedAt !== undefined));
    assert.equal(new Set(ledger.map((r) => r.toolCallId)).size, 4);
    assert.match(JSON.stringify(ledger[1]?.result), /station/);
    assert.equal(t.store.getRun(runId).status, 'completed');
  });

  it('reads a BOM and names a corrupt first line as line 1', async () => {
    const text = fs.readFileSync(UMBRELLA, 'utf8');
    const bom = path.join(t.dir, 'bom.jsonl');
    fs.writeFileSync(bom, '\uFEFF' + text.replace('"chatcmpl-1"', '"chatcmpl-1b"'));
    const withBom = await importPath(t.store, bom);
    assert.equal(withBom.imported, 1, JSON.stringify(withBom.files[0]));
    assert.equal(t.store.listToolCalls(withBom.runIds[0] as string).length, 4);
    const corrupt = path.join(t.dir, 'corrupt-first.jsonl');
    fs.writeFileSync(corrupt, text.replace('{"request":', '{"request" '));
    const strict = await importPath(t.store, corrupt, { strict: true });
    assert.equal(strict.failed, 1);
    assert.match(String(strict.files[0]?.reason), /line 1: not valid JSON/);
    const lenient = await importPath(t.store, corrupt);
    assert.deepEqual(
      lenient.files[0]?.skippedRecords.map((r) => r.line),
      [1],
    );
  });
});

describe('streamed chat completion chunks', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('assembles the chunks into one model call with its tool call and usage', async () => {
    const summary = await importPath(t.store, STREAM);
    assert.equal(summary.imported, 1, JSON.stringify(summary.files[0]));
    const runId = summary.runIds[0] as string;
    const run = t.store.getRun(runId);
    assert.deepEqual([run.inputTokens, run.outputTokens], [67, 31]);
    assert.equal(run.startedAt, 1745678496 * 1000);
    const calls = t.store.listCheckpoints(runId).filter((c) => c.boundary === 'after_model_call');
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.finishReason, 'tool_calls');
    const ledger = t.store.listToolCalls(runId);
    assert.deepEqual(
      ledger.map((r) => [r.toolCallId, r.toolName, r.args]),
      [['call_PieqNSej6kM9hgYbcQdbZSaC', 'get_weather', { location: 'Tokyo' }]],
    );
  });

  it('ends a log that stops on an unanswered call cancelled, and replays it with --captured', async () => {
    const runId = (await importPath(t.store, STREAM)).files[0]?.reason?.split(' ').at(-1) as string;
    const run = t.store.getRun(runId);
    assert.equal(run.status, 'cancelled');
    assert.match(String((run.error as { message: string }).message), /unanswered tool call.*get_weather/);
    assert.equal((t.store.listToolCalls(runId)[0]?.error as { name?: string }).name, 'Cancelled');
    const created = new ForkService(t.store).createReplay(runId, { captured: true });
    const outcome = await runFork(t.store, created.forkRequestId);
    assert.equal(outcome.divergence, undefined);
    assert.equal(outcome.status, 'cancelled', JSON.stringify(outcome.error));
  });
});

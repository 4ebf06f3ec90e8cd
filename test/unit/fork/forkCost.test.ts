/**
 * Forks at O(new data): a fork of a late checkpoint of a long SDK-recorded run reuses the
 * source's stored lists (nothing hashed or written again for the shared conversation and ledger), and its captured
 * replay reproduces the recording checkpoint for checkpoint — also when the recording rewrites its conversation
 * (a compaction) after the fork point.
 */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import type { Checkpoint, Message } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { ContentStore } from '../../../src/store/contentStore';
import { checkpointKey } from '../../../src/store/rowCodec';
import type { SqlRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const text = (step: number, n: number) => Array.from({ length: n }, (_, k) => `w${(step * 31 + k) % 997}`).join(' ');

/** A ReAct run through the SDK: per step a model call answering with a tool call, and the tool's ~1 KB result. */
async function recordReact(store: SqlRunStore, runId: string, steps: number): Promise<void> {
  let clock = Date.parse('2026-11-01T00:00:00Z');
  const recorder = openRecorder({ runStore: store, now: () => (clock += 7), heartbeatMs: 0 });
  const run = recorder.startRun({
    runId,
    agentId: 'react',
    runtimeContext: testContext(),
    systemPrompt: 'Use the search tool, then answer.',
    messages: [{ role: 'user', content: 'Survey replay debugging.' }],
  });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { q: string; step: number }) => ({
    hits: [text(args.step, 150)],
  }));
  for (let step = 0; step < steps; step++) {
    const message: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${step}: ${text(step, 40)}` },
        { type: 'tool_call', toolCallId: `call-${step}`, toolName: 'search', args: { q: `q${step}`, step } },
      ],
    };
    await run.modelCall({}, () => Promise.resolve({ message, finishReason: 'tool_calls' }));
    await search({ q: `q${step}`, step }, { toolCallId: `call-${step}` });
  }
  run.end();
  recorder.close();
}

function rows(store: SqlRunStore): { nodes: number; blobs: number } {
  const db = new Database(store.path, { readonly: true });
  try {
    const count = (table: string) =>
      Number((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n);
    return { nodes: count('list_nodes'), blobs: count('blobs') };
  } finally {
    db.close();
  }
}

function listNodes(store: SqlRunStore, checkpointId: string): { messages: number; ledger: number } {
  const db = new Database(store.path, { readonly: true });
  try {
    const row = db
      .prepare('SELECT messages_node, ledger_node FROM checkpoints WHERE checkpoint_id = ?')
      .get(checkpointKey(checkpointId)) as { messages_node: number; ledger_node: number };
    return { messages: row.messages_node, ledger: row.ledger_node };
  } finally {
    db.close();
  }
}

/** What a user compares between a recording and its replay: everything but ids, times and the captured flag. */
function comparable(cp: Checkpoint) {
  return {
    boundary: cp.boundary,
    stepIndex: cp.stepIndex,
    messages: cp.messages,
    systemPrompt: cp.systemPrompt,
    runtimeContext: cp.runtimeContext,
    toolCallId: cp.toolCallId,
    finishReason: cp.finishReason,
    ledger: cp.toolLedgerSnapshot.map((r) => ({ id: r.toolCallId, name: r.toolName, result: r.result })),
  };
}

/** Counts the list items the store serialises and hashes while `fn` runs. */
function itemsHashedDuring(fn: () => void): number {
  const original = ContentStore.prototype.putItem;
  let n = 0;
  ContentStore.prototype.putItem = function (this: ContentStore, value: unknown) {
    n++;
    return original.call(this, value);
  };
  try {
    fn();
  } finally {
    ContentStore.prototype.putItem = original;
  }
  return n;
}

test('a fork of a late checkpoint adds no list rows and hashes none of the conversation it shares', async () => {
  const store = tmpStore();
  await recordReact(store, 'long', 120);
  const summaries = store.listCheckpoints('long');
  const source = summaries.at(-10) as (typeof summaries)[0];
  assert.ok(source.messageCount > 200);
  const before = rows(store);
  let created: { runId: string } | undefined;
  const hashed = itemsHashedDuring(() => {
    created = new ForkService(store).createReplay('long', { fromCheckpointId: source.checkpointId });
  });
  assert.equal(hashed, 0, 'no message or ledger record is serialised and hashed again');
  assert.deepEqual(rows(store).nodes, before.nodes, 'no list row is added for the shared prefix');
  const first = store.listCheckpoints(created?.runId as string)[0]?.checkpointId as string;
  assert.deepEqual(listNodes(store, first), listNodes(store, source.checkpointId), 'the same stored lists');
  assert.deepEqual(store.getCheckpoint(first).messages, store.getCheckpoint(source.checkpointId).messages);
});

test('a captured replay of a late checkpoint reproduces the recording checkpoint for checkpoint', async () => {
  const store = tmpStore();
  await recordReact(store, 'long', 60);
  const summaries = store.listCheckpoints('long');
  const from = summaries.length - 23;
  const created = new ForkService(store).createReplay('long', {
    fromCheckpointId: summaries[from]?.checkpointId as string,
  });
  const outcome = await runFork(store, created.forkRequestId);
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  const replayed = store.listCheckpoints(created.runId).map((c) => comparable(store.getCheckpoint(c.checkpointId)));
  const recorded = summaries.slice(from).map((c) => comparable(store.getCheckpoint(c.checkpointId)));
  assert.equal(replayed.length, recorded.length);
  replayed.forEach((cp, i) => assert.deepEqual(cp, recorded[i], `checkpoint ${i} of the replay`));
  assert.deepEqual(store.exportRun(created.runId).checkpoints.at(-1)?.messages, recorded.at(-1)?.messages);
});

test('a replay across a recording that rewrites its conversation after the fork point stays identical', async () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ runId: 'compacting', agentId: 'c', runtimeContext: testContext() });
  let messages: Message[] = [{ role: 'user', content: 'start' }];
  for (let i = 0; i < 12; i++) {
    messages = [...messages, { role: 'assistant', content: `turn ${i}: ${text(i, 20)}` }];
    run.checkpoint('before_prompt_build', { messages });
  }
  // A compaction: the conversation keeps its first two messages and a summary of the rest, then grows again.
  messages = [...messages.slice(0, 2), { role: 'assistant', content: 'summary of turns 1-11' }];
  run.checkpoint('before_prompt_build', { messages });
  for (let i = 0; i < 3; i++) {
    messages = [...messages, { role: 'assistant', content: `after ${i}` }];
    run.checkpoint('before_prompt_build', { messages });
  }
  run.end();
  recorder.close();
  const summaries = store.listCheckpoints('compacting');
  assert.equal(store.sharedMessageCount(summaries[10]?.checkpointId ?? '', summaries[12]?.checkpointId ?? ''), 2);
  assert.equal(store.sharedMessageCount(summaries[9]?.checkpointId ?? '', summaries[10]?.checkpointId ?? ''), 11);
  const created = new ForkService(store).createReplay('compacting', {
    fromCheckpointId: summaries[8]?.checkpointId as string,
  });
  const outcome = await runFork(store, created.forkRequestId);
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  const replayed = store.listCheckpoints(created.runId).map((c) => store.getCheckpoint(c.checkpointId).messages);
  const recorded = summaries.slice(8).map((c) => store.getCheckpoint(c.checkpointId).messages);
  assert.deepEqual(replayed, recorded);
});

/** Counts the values the store reads whole, and those it reads only the inline fields of, while `fn` runs. */
async function valuesReadDuring(fn: () => Promise<void> | void): Promise<{ whole: number; inline: number }> {
  const proto = ContentStore.prototype;
  const originals = { getValue: proto.getValue, getText: proto.getText, getInline: proto.getInline };
  const n = { whole: 0, inline: 0 };
  for (const name of ['getValue', 'getText', 'getInline'] as const) {
    const original = originals[name] as (this: ContentStore, hash: string) => unknown;
    (proto as unknown as Record<string, unknown>)[name] = function (this: ContentStore, hash: string) {
      n[name === 'getInline' ? 'inline' : 'whole']++;
      return original.call(this, hash);
    };
  }
  try {
    await fn();
  } finally {
    Object.assign(proto, originals);
  }
  return n;
}

test('creating and resuming a fork of a late checkpoint reads no more than a fork of an early one', async () => {
  const store = tmpStore();
  await recordReact(store, 'long', 120);
  const summaries = store.listCheckpoints('long');
  const reads = async (index: number) => {
    const from = summaries[index] as (typeof summaries)[0];
    let forkRequestId = '';
    const created = await valuesReadDuring(() => {
      forkRequestId = new ForkService(store).createReplay('long', {
        fromCheckpointId: from.checkpointId,
      }).forkRequestId;
    });
    const abort = new AbortController();
    let walked = 0;
    const resumed = await valuesReadDuring(async () => {
      await runFork(store, forkRequestId, {
        signal: abort.signal,
        onCheckpoint: () => {
          if (++walked >= 6) abort.abort();
        },
      });
    });
    const ledger = store.getCheckpointView(from.checkpointId).toolLedgerSnapshot.length;
    return { created, resumed, messages: from.messageCount, ledger };
  };
  const early = await reads(12);
  const late = await reads(summaries.length - 13);
  assert.ok(late.messages > 200 && early.messages < 10, `${early.messages} and ${late.messages} messages`);
  // A few values (the context, the prompt, the walked checkpoints' new items) — not the conversation or ledger.
  const flat = (what: string, a: number, b: number, slack: number) =>
    assert.ok(a <= b + slack, `${what}: ${a} values read late, ${b} early`);
  flat('creation', late.created.whole + late.created.inline, early.created.whole + early.created.inline, 4);
  flat('the run', late.resumed.whole, early.resumed.whole, 8);
  // The tool cassette and the ledger's search by id read each inherited record's inline fields at most once.
  assert.ok(late.resumed.inline <= late.ledger, `${late.resumed.inline} inline reads, ${late.ledger} records`);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, type Message } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { storeBytes, TEST_ENGINE, tmpLocation } from '../../helpers/engines';

function message(i: number): Message {
  // ~1 KB of distinct text per message
  const words = Array.from({ length: 140 }, (_, k) => `w${(i * 7919 + k * 104729) % 100000}`).join(' ');
  return { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}: ${words}` };
}

test('a 500-checkpoint run growing one message per checkpoint takes under 2x its unique content on disk', () => {
  const file = tmpLocation();
  const store = openRunStore(file);
  // PostgreSQL gives every table and index pages of its own (some 400 KB for the empty schema): what is asserted
  // there is what the run adds. A SQLite file starts at a few pages and is measured whole.
  const empty = TEST_ENGINE === 'postgres' ? storeBytes(file) : 0;
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const ctx = testContext();
  const run = recorder.startRun({ agentId: 'grower', runtimeContext: ctx });
  const messages: Message[] = [];
  for (let i = 0; i < 500; i++) {
    messages.push(message(i));
    run.checkpoint(i % 2 === 0 ? 'before_model_call' : 'after_model_call', { messages: [...messages] });
  }
  run.end();
  recorder.close();
  store.checkpointWal();
  const unique =
    messages.reduce((n, m) => n + Buffer.byteLength(canonicalJson(m)), 0) + Buffer.byteLength(canonicalJson(ctx));
  const onDisk = storeBytes(file) - empty;
  const naive = messages.reduce((n, _m, i) => n + Buffer.byteLength(canonicalJson(messages.slice(0, i + 1))), 0);
  assert.ok(onDisk < 2 * unique, `store ${onDisk} B vs unique content ${unique} B`);
  assert.ok(naive > 100 * onDisk, `a full-snapshot layout would hold ${naive} B`);
  // and the API still returns whole checkpoints
  const last = store.getCheckpointAt(run.runId, 499);
  assert.equal(last.messages.length, 500);
  assert.deepEqual(last.messages[250], messages[250]);
  assert.equal(store.getCheckpointAt(run.runId, 9).messages.length, 10);
  store.close();
});

test('a second writer of the same conversation finds its list nodes instead of adding them', () => {
  const file = tmpLocation();
  const conversation = Array.from({ length: 20 }, (_, i) => message(i));
  // Each run through a store of its own: no writer memo carries over, so the shared prefix is hash-consed in SQL.
  const record = (runId: string, extra: Message[]) => {
    const store = openRunStore(file);
    const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
    const run = recorder.startRun({ runId, agentId: 'twin', runtimeContext: testContext() });
    for (let i = 1; i <= conversation.length; i++) {
      run.checkpoint('after_model_call', { messages: [...conversation.slice(0, i)] });
    }
    if (extra.length > 0) run.checkpoint('after_model_call', { messages: [...conversation, ...extra] });
    run.end();
    recorder.close();
    const counts = store.contentBytes();
    store.close();
    return counts;
  };
  const first = record('first', []);
  const second = record('second', [message(99)]);
  // the one new message is the one new node (and blob); the 20 shared ones are found, not written again
  assert.equal(second.listNodes - first.listNodes, 1);
  assert.equal(second.blobCount - first.blobCount, 1);
  const store = openRunStore(file);
  const last = store.listCheckpoints('second').at(-1);
  assert.ok(last);
  const loaded = store.getCheckpoint(last.checkpointId);
  store.close();
  assert.deepEqual(
    loaded.messages.map((m) => canonicalJson(m)),
    [...conversation, message(99)].map((m) => canonicalJson(m)),
  );
});

/**
 * A debugger step reads the page of messages and ledger records the step before it read: those items are
 * validated and frozen once per content and shared by the views of every checkpoint that holds them
 * (store/itemCache.ts), and what a view hands out cannot be changed by the reader it was handed to.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { ItemCache } from '../../../src/store/itemCache';
import { tmpStore } from '../../helpers/tmp';

test('views of two checkpoints hand out the same frozen items for the messages and records they share', () => {
  const store = tmpStore();
  writeDemoStore(store);
  const cps = store.listCheckpoints('demo-support-refund');
  const last = cps.at(-1);
  const before = cps.at(-2);
  assert.ok(last && before);
  const a = store.getCheckpointView(before.checkpointId);
  const b = store.getCheckpointView(last.checkpointId);
  assert.ok(a.messages.length > 10 && a.toolLedgerSnapshot.length > 5, 'a run with a conversation and a ledger');
  for (let i = 0; i < a.messages.length; i++) assert.equal(b.messages[i], a.messages[i], `messages[${i}]`);
  const shared = a.toolLedgerSnapshot.findIndex((r) => r.endedAt !== undefined);
  assert.equal(b.toolLedgerSnapshot[shared], a.toolLedgerSnapshot[shared], 'a finished record');
  // the same values the whole read gives
  const whole = store.getCheckpoint(last.checkpointId);
  assert.deepEqual([...b.messages], whole.messages);
  assert.deepEqual([...b.toolLedgerSnapshot], whole.toolLedgerSnapshot);
  // and nobody's to change: a reader that tries gets an error, the next view the stored value
  const first = b.messages[0] as { content: unknown };
  assert.throws(() => {
    first.content = 'changed';
  }, TypeError);
  assert.deepEqual(store.getCheckpointView(last.checkpointId).messages[0], whole.messages[0]);
  // getCheckpoint still hands out copies of its own
  assert.notEqual(store.getCheckpoint(last.checkpointId).messages[0], whole.messages[0]);
});

test('the cache keeps what fits: the least recently used go first, and an item too heavy is not kept', () => {
  const cache = new ItemCache(3, 4000);
  const reads: string[] = [];
  const item = (key: string, text = key) =>
    cache.get(key, () => {
      reads.push(key);
      return { text };
    });
  const a = item('a');
  item('b');
  item('c');
  assert.equal(item('a'), a, 'a hit');
  item('d'); // four items: b, the least recently used, goes
  item('b');
  assert.deepEqual(reads, ['a', 'b', 'c', 'd', 'b']);
  assert.ok(Object.isFrozen(a), 'frozen');
  const heavy = 'x'.repeat(2000); // more than a quarter of the weight: read each time, never kept
  assert.notEqual(item('h', heavy), item('h', heavy));
  // weight: five items of ~920 characters do not fit in 4,000 (four do); the least recently used goes
  const light = new ItemCache(100, 4000);
  const kept: string[] = [];
  const put = (key: string) =>
    light.get(key, () => {
      kept.push(key);
      return { text: 'y'.repeat(900) };
    });
  for (const k of ['w1', 'w2', 'w3', 'w4', 'w5']) put(k);
  kept.length = 0;
  put('w5');
  put('w2');
  put('w1');
  assert.deepEqual(kept, ['w1'], 'w5 and w2 kept, w1 gone');
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { writeDemoStore } from '../../../src/demo';
import type { FrameRef } from '../../../src/debug/frames';
import { Variables } from '../../../src/debug/variables';
import { RunView } from '../../../src/replay/runView';
import { openRecorder } from '../../../src/recorder';
import { lazyList, openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpDir, tmpStore } from '../../helpers/tmp';

test('a checkpoint view holds the same values as the whole checkpoint, for every checkpoint of every demo run', () => {
  const store = tmpStore();
  for (const runId of writeDemoStore(store)) {
    for (const s of store.listCheckpoints(runId)) {
      const whole = store.getCheckpoint(s.checkpointId);
      const view = store.getCheckpointView(s.checkpointId);
      assert.ok(Array.isArray(view.messages) && Array.isArray(view.toolLedgerSnapshot));
      assert.equal(view.messages.length, whole.messages.length);
      assert.deepEqual(view.messages.at(-1), whole.messages.at(-1));
      assert.equal(JSON.stringify(view), JSON.stringify(whole), `${runId} ${s.checkpointId}`);
      assert.deepEqual(view, whole);
    }
  }
});

test('the Variables view shows the same scopes and children from lazily loaded checkpoints', () => {
  const store = tmpStore();
  const ids = writeDemoStore(store);
  const whole = new Variables(
    (ref) => store.getCheckpoint(ref.view.summaries[ref.index]?.checkpointId ?? ''),
    () => undefined,
  );
  const lazy = new Variables(
    (ref) => ref.view.load(ref.index),
    () => undefined,
  );
  const dump = (vars: Variables, ref: FrameRef): unknown =>
    vars.scopes(ref).map((s) => ({
      name: s.name,
      indexed: s.indexedVariables,
      named: s.namedVariables,
      children: vars
        .variables(s.variablesReference, 0, 100)
        .map((v) => ({ ...v, variablesReference: v.variablesReference > 0 })),
    }));
  for (const runId of ids) {
    const view = new RunView(store, runId);
    for (let index = 0; index < view.summaries.length; index++) {
      assert.deepEqual(dump(lazy, { view, index }), dump(whole, { view, index }), `${runId} [${index}]`);
    }
  }
});

test('a view reads only the items asked for, and validates each when it is read', async () => {
  const file = join(tmpDir(), 'runs.db');
  const recorder = openRecorder({ store: file, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId: 'r',
    agentId: 'lazy',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'poisoned later' }],
  });
  for (let i = 0; i < 5; i++) {
    await run.modelCall({}, () => Promise.resolve({ message: { role: 'assistant', content: `answer ${i}` } }));
  }
  run.end();
  recorder.close();
  // Damage the first message's blob on disk: a whole read fails, a view fails only when that message is read.
  const db = new Database(file);
  const first = db
    .prepare('SELECT item FROM list_nodes WHERE parent = 0')
    .all()
    .map((r) => (r as { item: Buffer }).item); // the hash's bytes (schema 6)
  for (const hash of first) {
    db.prepare('UPDATE blobs SET data = ? WHERE hash = ?').run('{"role":"oracle","content":"x"}', hash);
  }
  db.close();
  const store = openRunStore(file, { create: false });
  try {
    const last = store.listCheckpoints('r').at(-1)?.checkpointId ?? '';
    assert.throws(() => store.getCheckpoint(last), /messages\[0\]\.role/);
    const view = store.getCheckpointView(last);
    assert.equal(view.messages.length, 6);
    assert.equal(view.messages[5]?.content, 'answer 4');
    assert.throws(() => view.messages[0], /store checkpoint .*: messages\[0\]\.role/);
  } finally {
    store.close();
  }
});

test('lazyList behaves as an array and reads each item once', () => {
  const reads: number[] = [];
  const list = lazyList(4, (i) => {
    reads.push(i);
    return { i };
  });
  assert.ok(Array.isArray(list));
  assert.equal(list.length, 4);
  assert.deepEqual(list[2], { i: 2 });
  assert.equal(list[2], list[2]);
  assert.deepEqual(reads, [2]);
  assert.deepEqual(
    list.slice(0, 2).map((x) => x.i),
    [0, 1],
  );
  assert.deepEqual(reads, [2, 0, 1]);
  assert.deepEqual([...list], [{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }]);
  assert.deepEqual(reads, [2, 0, 1, 3]);
  list.push({ i: 9 });
  assert.equal(list.length, 5);
  assert.equal(JSON.stringify(list), '[{"i":0},{"i":1},{"i":2},{"i":3},{"i":9}]');
});

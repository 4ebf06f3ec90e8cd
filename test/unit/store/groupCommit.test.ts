/**
 * Group commit (OpenStoreOptions.groupCommit, SQLite): the writes of one event-loop turn share one
 * transaction, each in a savepoint. What another connection (a debugger, the runs tree, another agent) sees: a write
 * once its turn ends, at flush() or close(), or when the group reaches its limits; a failed write never takes its
 * group with it; a group that cannot commit is reported, never silently dropped; a process that exits commits.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { OcdbError } from '../../../src/model';
import { openRunStore, SqlRunStore, type RunStore } from '../../../src/store';
import { openDriver } from '../../../src/store/openDriver';
import { RunWriter } from '../../../src/writer';
import { testContext } from '../../helpers/context';
import { tmpLocation } from '../../helpers/engines';

const CHILD = join(__dirname, '..', '..', 'fixtures', 'groupCommitChild.ts');

function writerOf(store: RunStore, runId: string): RunWriter {
  let n = 0;
  return RunWriter.create(
    store,
    { runId, agentId: 'a', state: { runtimeContext: testContext(), messages: [] } },
    { newId: () => `${runId}-id-${++n}` },
  );
}

/** What another connection sees of `runId`: its checkpoint count, or undefined when the run is not there. */
function seenElsewhere(file: string, runId: string): number | undefined {
  const other = openRunStore(file, { create: false });
  try {
    return other.hasRun(runId) ? other.getRun(runId).checkpointCount : undefined;
  } finally {
    other.close();
  }
}

test('another connection sees a grouped write when the turn ends, not before; flush() and close() commit at once', async () => {
  const file = tmpLocation('group.db', 'sqlite');
  // (a first write compiles its statements: no time limit here, the next test has its own)
  const store = openRunStore(file, { groupCommit: { maxMs: 60_000 } });
  const w = writerOf(store, 'r');
  w.checkpoint('before_model_call', { messages: [{ role: 'user', content: 'hi' }] });
  w.checkpoint('after_model_call', { appendMessages: [{ role: 'assistant', content: 'hello' }] });
  assert.equal(seenElsewhere(file, 'r'), undefined, 'the group is not committed inside its turn');
  assert.equal(store.getRun('r').checkpointCount, 2, 'the writing connection reads its own writes');
  await turn();
  assert.equal(seenElsewhere(file, 'r'), 2, 'committed when the turn ended');

  w.checkpoint('before_tool_call');
  store.flush();
  assert.equal(seenElsewhere(file, 'r'), 3, 'flush() commits at once');
  w.checkpoint('after_tool_call');
  w.dispose();
  store.close();
  assert.equal(seenElsewhere(file, 'r'), 4, 'close() commits what the group held');
});

test('a group commits at its limits without the turn ending: maxWrites writes, or maxMs of being open', () => {
  const file = tmpLocation('limits.db', 'sqlite');
  const store = openRunStore(file, { groupCommit: { maxWrites: 3, maxMs: 60_000 } });
  try {
    const w = writerOf(store, 'r');
    w.checkpoint('before_model_call'); // createRun was the group's first write
    assert.equal(seenElsewhere(file, 'r'), undefined);
    w.checkpoint('after_model_call'); // the third write
    assert.equal(seenElsewhere(file, 'r'), 2, 'the third write committed the group');
    w.dispose();
  } finally {
    store.close();
  }

  const timed = tmpLocation('timed.db', 'sqlite');
  const slow = openRunStore(timed, { groupCommit: { maxWrites: 1000, maxMs: 5 } });
  try {
    const w = writerOf(slow, 'r');
    w.checkpoint('before_model_call');
    slow.flush();
    w.checkpoint('after_model_call'); // opens a group
    const until = performance.now() + 10;
    while (performance.now() < until); // the agent's own synchronous work: the turn does not end
    w.checkpoint('before_tool_call');
    assert.equal(seenElsewhere(timed, 'r'), 3, 'a write made after maxMs committed the group');
    w.dispose();
  } finally {
    slow.close();
  }
});

test('a failed write in a group rolls back alone: the writes before and after it commit, and the change feed sees them', async () => {
  const file = tmpLocation('failed.db', 'sqlite');
  const store = openRunStore(file, { groupCommit: true });
  try {
    const other = writerOf(store, 'other');
    other.checkpoint('before_model_call', { checkpointId: 'taken' });
    await turn();
    const seq = seenSeq(file);
    const w = writerOf(store, 'r');
    w.checkpoint('before_model_call', { checkpointId: 'r-1' });
    assert.throws(
      () => w.checkpoint('after_model_call', { checkpointId: 'taken' }),
      (e: unknown) => e instanceof OcdbError && /taken/.test(e.message),
    );
    w.checkpoint('after_model_call', { checkpointId: 'r-2', appendMessages: [{ role: 'assistant', content: 'ok' }] });
    await turn();
    const reader = openRunStore(file, { create: false });
    try {
      assert.deepEqual(
        reader.listCheckpoints('r').map((c) => c.checkpointId),
        ['r-1', 'r-2'],
      );
      assert.equal(reader.getCheckpoint('r-2').messages.at(-1)?.content, 'ok');
      assert.deepEqual(
        reader.changesSince(seq).changedRuns.map((r) => [r.runId, r.checkpointCount]),
        [['r', 2]],
        'the feed names the run once, with what the group committed',
      );
      assert.equal(reader.getRun('other').checkpointCount, 1);
      assert.equal(reader.integrityCheck(), 'ok');
    } finally {
      reader.close();
    }
    w.dispose();
    other.dispose();
  } finally {
    store.close();
  }
});

test("a write rolled back in a group takes what it counted with it: the run's counts read and commit without it", async () => {
  const file = tmpLocation('counts.db', 'sqlite');
  const store = openRunStore(file, { groupCommit: { maxMs: 60_000 } });
  try {
    const w = writerOf(store, 'r');
    w.checkpoint('before_model_call');
    const call = (toolCallId: string) => ({
      toolCallId,
      toolName: 'search',
      args: { q: toolCallId },
      sideEffectLevel: 'read_only' as const,
      replayPolicy: 'reuse_result' as const,
      startedAt: 1,
    });
    store.beginToolCall('r', call('kept'));
    assert.throws(
      () =>
        store.transaction(() => {
          store.beginToolCall('r', call('dropped'));
          store.finishToolCall('r', 'dropped', { outcome: 'error', error: { message: 'no' }, endedAt: 2 });
          assert.equal(store.getRun('r').toolCallCount, 2, 'a read inside the write sees what it counted');
          throw new Error('the write fails after counting');
        }),
      /after counting/,
    );
    const run = store.getRun('r');
    assert.deepEqual([run.checkpointCount, run.toolCallCount, run.toolErrorCount], [1, 1, 0]);
    store.finishToolCall('r', 'kept', { outcome: 'error', error: { message: 'kept failed' }, endedAt: 3 });
    await turn();
    const reader = openRunStore(file, { create: false });
    try {
      const seen = reader.getRun('r');
      assert.deepEqual(
        [seen.checkpointCount, seen.toolCallCount, seen.toolErrorCount],
        [1, 1, 1],
        'another connection reads the counts of the writes that committed',
      );
    } finally {
      reader.close();
    }
    w.dispose();
  } finally {
    store.close();
  }
});

function seenSeq(file: string): number {
  const other = openRunStore(file, { create: false });
  try {
    return other.changeSeq();
  } finally {
    other.close();
  }
}

test('a group that cannot commit is reported with the writes it lost, by the next write too; nothing half-written stays', async () => {
  const file = tmpLocation('lost.db', 'sqlite');
  openRunStore(file).close();
  // the real driver, whose COMMIT fails once (as a disk that fills up or an I/O error would)
  const driver = openDriver(file, { create: false });
  let failCommit = false;
  const commit = driver.commit.bind(driver);
  driver.commit = () => {
    if (failCommit) {
      failCommit = false;
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    }
    commit();
  };
  driver.setLockTimeout(5000);
  const store = new SqlRunStore(file, driver);
  store.groupCommits({});
  try {
    const w = writerOf(store, 'r');
    w.checkpoint('before_model_call');
    await turn();
    failCommit = true;
    w.checkpoint('after_model_call');
    w.checkpoint('before_tool_call');
    await turn(); // the commit at the turn's end fails
    const lost = (() => {
      try {
        w.checkpoint('after_tool_call');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(lost instanceof OcdbError, 'the next write throws');
    assert.equal(lost.code, 'StoreUnavailable');
    assert.match(
      lost.message,
      /The last 2 writes to .* could not be committed and are not in the store: .*disk I\/O error/,
    );
    assert.equal(seenElsewhere(file, 'r'), 1, 'what was committed before stays; the lost group left nothing');
    w.dispose();
  } finally {
    store.close();
  }
});

test('a process that exits inside a turn commits its group; one killed outright loses only its open group, never part of a write', () => {
  const file = tmpLocation('exit.db', 'sqlite');
  const exited = spawnSync(process.execPath, ['--import', 'tsx', CHILD, file, 'exit'], { encoding: 'utf8' });
  assert.equal(exited.status, 0, exited.stderr);
  assert.equal(seenElsewhere(file, 'exit'), 5, 'process.exit() inside the turn: every write is in the store');

  const killed = spawnSync(process.execPath, ['--import', 'tsx', CHILD, file, 'kill'], { encoding: 'utf8' });
  assert.equal(killed.signal, 'SIGKILL');
  const reader = openRunStore(file, { create: false });
  try {
    // the child committed 3 checkpoints (flush), then wrote 2 more in a group and killed itself
    assert.equal(reader.getRun('kill').checkpointCount, 3);
    assert.equal(reader.listCheckpoints('kill').length, 3);
    assert.equal(reader.integrityCheck(), 'ok');
  } finally {
    reader.close();
  }
});

test('connections of one process never wait for each other: a write of another commits the open group first', () => {
  const file = tmpLocation('same-process.db', 'sqlite');
  // two recorders' stores of one file in one process, and a plain one (an import, the CLI in-process); a short
  // busy timeout, so a wait for a group that cannot commit would fail the test rather than take 5 s
  const a = openRunStore(file, { groupCommit: { maxMs: 60_000 }, busyTimeoutMs: 200 });
  const b = openRunStore(file, { groupCommit: { maxMs: 60_000 }, busyTimeoutMs: 200 });
  const plain = openRunStore(file, { busyTimeoutMs: 200 });
  try {
    const wa = writerOf(a, 'a');
    const wb = writerOf(b, 'b');
    for (let i = 0; i < 3; i++) {
      wa.checkpoint('before_model_call');
      wb.checkpoint('before_model_call');
    }
    const wp = writerOf(plain, 'p');
    wp.checkpoint('before_model_call');
    assert.equal(plain.getRun('a').checkpointCount, 3, "a's group was committed before the plain write");
    assert.equal(b.getRun('b').checkpointCount, 3);
    wa.checkpoint('after_model_call');
    a.checkpointWal(); // a checkpoint of the WAL commits the group first too
    assert.equal(seenElsewhere(file, 'a'), 4);
    for (const w of [wa, wb, wp]) w.dispose();
  } finally {
    a.close();
    b.close();
    plain.close();
  }
});

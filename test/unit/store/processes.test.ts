import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { openRunStore, type RunSummary } from '../../../src/store';
import { tmpLocation } from '../../helpers/engines';

const LOOP = join(__dirname, '..', '..', 'fixtures', 'recordLoop.ts');

function recordInChild(store: string, runId: string, count: number) {
  return spawn(process.execPath, ['--import', 'tsx', LOOP, store, runId, String(count)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function waitForLines(child: ReturnType<typeof recordInChild>, n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      seen += lines.filter((l) => l.startsWith('checkpoint')).length;
      if (seen >= n) resolve();
    });
    child.on('exit', (code) =>
      seen >= n ? resolve() : reject(new Error(`child exited ${code} after ${seen} checkpoints`)),
    );
  });
}

test('a recorder killed with SIGKILL leaves a sound store, no half checkpoint, and the run shown as crashed', async () => {
  const file = tmpLocation();
  const child = recordInChild(file, 'doomed', 0);
  await waitForLines(child, 150);
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const store = openRunStore(file, { create: false });
  try {
    assert.equal(store.integrityCheck(), 'ok');
    const run = store.getRun('doomed');
    assert.equal(run.status, 'running');
    assert.equal(run.crashed, true, 'a dead recorder is shown as crashed');
    // the recorder commits in groups (RecorderOptions.groupCommit): a kill loses at most the open one, 64 writes
    assert.ok(run.checkpointCount >= 150 - 64, `${run.checkpointCount} checkpoints after 150 were recorded`);
    // every checkpoint the store lists reads back whole, messages growing one by one
    const summaries = store.listCheckpoints('doomed');
    assert.equal(summaries.length, run.checkpointCount);
    summaries.forEach((s, i) => {
      const cp = store.getCheckpoint(s.checkpointId);
      assert.equal(cp.messages.length, i + 2);
      assert.equal(s.index, i);
    });
  } finally {
    store.close();
  }
});

test('four processes recording into one store at once lose nothing, and a reader following the change feed misses no change', async () => {
  const file = tmpLocation();
  const ids = ['proc-a', 'proc-b', 'proc-c', 'proc-d'];
  const reader = openRunStore(file);
  // what a live view knows: the newest summary of each run, from changesSince alone
  const seen = new Map<string, RunSummary>();
  let seq = reader.changeSeq();
  const follow = () => {
    const changes = reader.changesSince(seq);
    for (const run of changes.changedRuns) seen.set(run.runId, run);
    seq = changes.changeSeq;
  };
  const timer = setInterval(follow, 25);
  const children = ids.map((id) => recordInChild(file, id, 300));
  const codes = await Promise.all(children.map((c) => new Promise<number | null>((r) => c.on('exit', r))));
  clearInterval(timer);
  follow();
  assert.deepEqual(
    codes,
    ids.map(() => 0),
  );
  const store = openRunStore(file, { create: false });
  try {
    for (const id of ids) {
      const run = store.getRun(id);
      assert.equal(run.status, 'completed');
      assert.equal(run.crashed, false);
      assert.equal(run.checkpointCount, 301, `${id}: 300 checkpoints + agent_end`);
      assert.equal(run.toolCallCount, 60);
      const last = store.getCheckpointAt(id, 299);
      assert.equal(last.messages.length, 301);
      assert.match(String(last.messages[300]?.content), new RegExp(`^${id} turn 299`));
      assert.equal(seen.get(id)?.status, 'completed', `${id}: the feed's reader saw the run end`);
      assert.equal(seen.get(id)?.checkpointCount, 301, `${id}: the feed's reader saw every checkpoint`);
    }
    assert.equal(store.integrityCheck(), 'ok');
  } finally {
    store.close();
    reader.close();
  }
});

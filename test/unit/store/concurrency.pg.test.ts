/**
 * Several writers on one PostgreSQL store at once (a team's shared store: several writers on several machines), from
 * separate processes: writers of different runs hold their run locks at the same time and lose nothing, while a
 * poller of changesSince sees every change once and in order; a transaction left open does not hold up writers of
 * other runs, and the change it commits later is not missed; two forks of one parent writing the same list node
 * at once both succeed (the second waits for the first and takes its row); two stores in two schemas of one
 * database never wait for each other's locks; a host whose clock is off records runs others read alive; deleteRun's
 * garbage collection waits for a writer in flight that reuses the deleted run's content.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isOcdbError } from '../../../src/model';
import { openRunStore, type RunSummary } from '../../../src/store';
import { MIGRATION_LOCK, PgDriver, storeLockKeys, WRITE_LOCK } from '../../../src/store/pgDriver';
import { testContext } from '../../helpers/context';
import { pgAdminQuery, pgSchemaUrl, schemaOf } from '../../helpers/engines';
import { tmpDir } from '../../helpers/tmp';

const ROOT = join(__dirname, '..', '..', '..');
const src = (m: string) => JSON.stringify(join(ROOT, 'src', m));

interface Child {
  /** Resolves once the child printed `line`. */
  said(line: string): Promise<void>;
  send(text: string): void;
  done: Promise<{ code: number | null; out: string }>;
}

/** Runs `script` (CommonJS, src/ at hand) under tsx in a child process. */
function child(script: string): Child {
  const p = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0)) {
      if (out.split('\n').includes(w.line)) w.resolve();
      else waiters.push(w);
    }
  };
  p.stdout.on('data', onData);
  p.stderr.on('data', onData);
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    p.on('exit', (code) => resolve({ code, out })),
  );
  return {
    said: (line) =>
      new Promise<void>((resolve, reject) => {
        if (out.split('\n').includes(line)) return resolve();
        waiters.push({ line, resolve });
        void done.then((r) => reject(new Error(`the child ended (${r.code}) before "${line}": ${r.out}`)));
      }),
    send: (text) => p.stdin.end(text),
    done,
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

/** The advisory run locks (two-int form, first int the store's row key of `runs`) granted right now. */
function grantedRunLocks(schema: string): number {
  const classid = storeLockKeys(schema).row('runs') >>> 0;
  const row = pgAdminQuery(
    "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted AND classid = ?",
    classid,
  )[0];
  return Number(row?.n ?? 0);
}

test('eight writer processes on eight runs hold their run locks at once, lose nothing, and a poller of changesSince sees each change once, in order', async () => {
  const location = pgSchemaUrl();
  const schema = schemaOf(location);
  const writers = 8;
  const appends = 30;
  const store = openRunStore(location);
  try {
    const script = (runId: string) => `const { openRecorder } = require(${src('recorder')});
      const recorder = openRecorder({ store: ${JSON.stringify(location)}, heartbeatMs: 0, fork: false });
      const run = recorder.startRun({ runId: ${JSON.stringify(runId)}, agentId: 'w',
        runtimeContext: require(${JSON.stringify(join(ROOT, 'test', 'helpers', 'context'))}).testContext(),
        systemPrompt: 'One of eight writers.', messages: [{ role: 'user', content: 'go ${runId}' }] });
      process.stdout.write('ready\\n');
      process.stdin.once('data', async () => {
        for (let i = 0; i < ${appends}; i++) {
          await run.modelCall({}, () => Promise.resolve({
            message: { role: 'assistant', content: 'answer ' + i + ' ' + 'x'.repeat(300) }, finishReason: 'stop' }));
        }
        run.end();
        recorder.close();
        process.stdout.write('done\\n');
      });`;
    const children = Array.from({ length: writers }, (_, w) => child(script(`w${w}`)));
    await Promise.all(children.map((c) => c.said('ready')));
    let since = store.changeSeq();
    const seen: { runId: string; changeSeq: number; checkpoints: number }[] = [];
    const polls: { since: number; changeSeq: number }[] = [];
    let overlap = 0;
    let finished = false;
    const all = Promise.all(children.map((c) => c.done)).finally(() => (finished = true));
    for (const c of children) c.send('go\n');
    for (let round = 0; !finished || round < 1; round++) {
      overlap = Math.max(overlap, grantedRunLocks(schema));
      const changes = store.changesSince(since);
      polls.push({ since, changeSeq: changes.changeSeq });
      for (const r of changes.changedRuns) {
        seen.push({ runId: r.runId, changeSeq: r.changeSeq, checkpoints: r.checkpointCount });
      }
      since = changes.changeSeq;
      await tick();
    }
    for (const r of await all) assert.equal(r.code, 0, r.out);
    // the last changes, after every writer ended
    const last = store.changesSince(since);
    for (const r of last.changedRuns)
      seen.push({ runId: r.runId, changeSeq: r.changeSeq, checkpoints: r.checkpointCount });
    polls.push({ since, changeSeq: last.changeSeq });

    assert.ok(overlap >= 2, `two writers held their run locks at the same moment (at most ${overlap} did)`);
    // nothing lost: every run has its user message turn, the model calls (two checkpoints each) and agent_end
    const runs = new Map<string, RunSummary>();
    for (let w = 0; w < writers; w++) runs.set(`w${w}`, store.getRun(`w${w}`));
    for (const [id, run] of runs) {
      assert.equal(run.status, 'completed', id);
      assert.equal(run.checkpointCount, 2 * appends + 1, `${id}: every checkpoint is in the store`);
    }
    // each poll goes on from where the last one stopped, and the counter only grows
    for (let i = 1; i < polls.length; i++) {
      assert.equal(polls[i]?.since, polls[i - 1]?.changeSeq);
      assert.ok((polls[i]?.changeSeq ?? 0) >= (polls[i]?.since ?? 0));
    }
    // each change once: no change number reported twice, each run's changes in order of number and progress
    const numbers = seen.map((s) => s.changeSeq);
    assert.equal(new Set(numbers).size, numbers.length, 'no change reported twice');
    for (const id of runs.keys()) {
      const mine = seen.filter((s) => s.runId === id);
      for (let i = 1; i < mine.length; i++) {
        assert.ok((mine[i]?.changeSeq ?? 0) > (mine[i - 1]?.changeSeq ?? 0), `${id}: in order`);
        assert.ok((mine[i]?.checkpoints ?? 0) >= (mine[i - 1]?.checkpoints ?? 0), `${id}: never backwards`);
      }
      // and the run's last change was seen (none missed at the end)
      assert.equal(mine.at(-1)?.changeSeq, runs.get(id)?.changeSeq, `${id}: its last change was seen`);
      assert.equal(mine.at(-1)?.checkpoints, 2 * appends + 1);
    }
    assert.ok(seen.length > writers, 'the poller saw the runs grow, not only their end');
  } finally {
    store.close();
  }
});

/** A child that writes `runId`'s first checkpoint inside a transaction it holds open until `flag` exists. */
function holdingWriter(location: string, runId: string, flag: string, messages: string): Child {
  return child(`const fs = require('node:fs');
    const { openRunStore } = require(${src('store')});
    const s = openRunStore(${JSON.stringify(location)});
    const cp = JSON.parse(${JSON.stringify(messages)});
    s.transaction(() => {
      s.appendCheckpoint({ ...cp, runId: ${JSON.stringify(runId)}, checkpointId: ${JSON.stringify(`${runId}#1`)} });
      process.stdout.write('holding\\n');
      const pause = new Int32Array(new SharedArrayBuffer(4));
      while (!fs.existsSync(${JSON.stringify(flag)})) Atomics.wait(pause, 0, 0, 20);
    });
    s.close();
    process.stdout.write('committed\\n');`);
}

/** A child that writes `runId`'s first checkpoint and commits. */
function writer(location: string, runId: string, messages: string): Child {
  return child(`const { openRunStore } = require(${src('store')});
    const s = openRunStore(${JSON.stringify(location)});
    const cp = JSON.parse(${JSON.stringify(messages)});
    s.appendCheckpoint({ ...cp, runId: ${JSON.stringify(runId)}, checkpointId: ${JSON.stringify(`${runId}#1`)} });
    const row = s.getCheckpointSummary(${JSON.stringify(`${runId}#1`)});
    s.close();
    process.stdout.write('committed ' + row.messageCount + '\\n');`);
}

/** Until `check` holds (polling the server), or fails after 60 s naming `what`. */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a transaction left open holds up no writer of another run, and the change it commits later is not missed', async () => {
  const location = pgSchemaUrl();
  const store = openRunStore(location);
  try {
    for (const id of ['warm', 'slow', 'quick'])
      store.createRun({ runId: id, sessionId: 's', agentId: 'a', startedAt: 1 });
    const checkpoint = (content: string) =>
      JSON.stringify({
        boundary: 'before_model_call',
        stepIndex: 0,
        messages: [{ role: 'user', content }],
        runtimeContext: testContext(),
        toolLedgerSnapshot: [],
        createdAt: 2,
      });
    // the context both share is in the store already (a new blob two writers insert at once: the second waits)
    store.appendCheckpoint({ ...JSON.parse(checkpoint('warm')), runId: 'warm', checkpointId: 'warm#1' });
    const since = store.changeSeq();
    const flag = join(tmpDir(), 'release');
    const slow = holdingWriter(location, 'slow', flag, checkpoint('slow down'));
    await slow.said('holding');
    // the other run's writer goes through while 'slow' is still open: nothing it waits for
    const quick = writer(location, 'quick', checkpoint('be quick'));
    const quickDone = await quick.done;
    assert.equal(quickDone.code, 0, quickDone.out);
    assert.ok(!existsSync(flag));
    const first = store.changesSince(since);
    assert.deepEqual(
      first.changedRuns.map((r) => r.runId),
      ['quick'],
      'the open transaction has no change number yet',
    );
    writeFileSync(flag, 'go');
    assert.equal((await slow.done).code, 0);
    // numbered when it committed, after what the reader saw: the next poll has it
    const second = store.changesSince(first.changeSeq);
    assert.deepEqual(
      second.changedRuns.map((r) => r.runId),
      ['slow'],
    );
    assert.ok(second.changeSeq > first.changeSeq);
    assert.equal(store.getRun('slow').checkpointCount, 1);
  } finally {
    store.close();
  }
});

test("two forks of one parent writing the same list node at once both succeed: the second takes the first one's row", async () => {
  const location = pgSchemaUrl();
  const schema = schemaOf(location);
  const store = openRunStore(location);
  try {
    store.createRun({ runId: 'parent', sessionId: 's', agentId: 'a', startedAt: 1 });
    const shared = {
      boundary: 'before_model_call' as const,
      stepIndex: 0,
      messages: [{ role: 'user' as const, content: 'the same question' }],
      runtimeContext: testContext(),
      toolLedgerSnapshot: [],
      createdAt: 2,
    };
    store.appendCheckpoint({ ...shared, runId: 'parent', checkpointId: 'parent#1' });
    for (const id of ['fork-a', 'fork-b']) {
      store.createRun({
        runId: id,
        sessionId: 's',
        agentId: 'a',
        startedAt: 3,
        parentRunId: 'parent',
        forkFromCheckpointId: 'parent#1',
      });
    }
    // both forks go on with the same new message: the same blob and the same list node (parent's prefix, item)
    const next = JSON.stringify({
      ...shared,
      messages: [...shared.messages, { role: 'assistant', content: `the same answer ${'y'.repeat(600)}` }],
    });
    const flag = join(tmpDir(), 'release');
    const a = holdingWriter(location, 'fork-a', flag, next);
    await a.said('holding');
    const b = writer(location, 'fork-b', next);
    // fork-b waits for fork-a's uncommitted row (a transaction id lock), not for any lock of the store
    await until(
      "fork-b waits for fork-a's transaction",
      () =>
        Number(
          pgAdminQuery(
            `SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
              WHERE NOT l.granted AND l.locktype = 'transactionid' AND a.application_name = 'agent-time-travel'`,
          )[0]?.n ?? 0,
        ) > 0,
    );
    writeFileSync(flag, 'go');
    const [ra, rb] = await Promise.all([a.done, b.done]);
    assert.equal(ra.code, 0, ra.out);
    assert.equal(rb.code, 0, rb.out);
    assert.match(rb.out, /committed 2/);
    // one list node and one blob for both
    const nodes = pgAdminQuery(
      `SELECT c.messages_node AS n FROM ${schema}.checkpoints c JOIN ${schema}.runs r ON r.run_key = c.run_key
        WHERE r.run_id IN ('fork-a', 'fork-b') ORDER BY r.run_id`,
    ).map((r) => Number(r.n));
    assert.equal(nodes.length, 2);
    assert.equal(nodes[0], nodes[1], 'the two forks share the node');
    assert.deepEqual(
      store.getCheckpoint('fork-b#1').messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(store.integrityCheck(), 'ok');
  } finally {
    store.close();
  }
});

test("two stores in two schemas of one database never wait for each other's locks", () => {
  const one = pgSchemaUrl();
  const two = pgSchemaUrl();
  openRunStore(one).close();
  // another writer holds schema one's store exclusively, and its migration lock
  const holder = new PgDriver({ url: one, location: 'holder' });
  try {
    holder.begin('write');
    holder.prepare('SELECT pg_advisory_xact_lock(?, ?)').get(storeLockKeys(schemaOf(one)).store, WRITE_LOCK);
    holder.prepare('SELECT pg_advisory_xact_lock(?, ?)').get(storeLockKeys(schemaOf(one)).store, MIGRATION_LOCK);
    const t = Date.now();
    // schema two: migrated and written at once
    const other = openRunStore(two, { busyTimeoutMs: 300 });
    try {
      assert.equal(other.createRun({ runId: 'free', sessionId: 's', agentId: 'a', startedAt: 1 }).runId, 'free');
    } finally {
      other.close();
    }
    assert.ok(Date.now() - t < 20_000);
    // schema one's writers do wait (its lock is held): StoreLocked after their timeout
    const same = openRunStore(one, { busyTimeoutMs: 300 });
    try {
      assert.throws(
        () => same.createRun({ runId: 'blocked', sessionId: 's', agentId: 'a', startedAt: 1 }),
        (e: unknown) => isOcdbError(e) && e.code === 'StoreLocked',
      );
    } finally {
      same.close();
    }
  } finally {
    holder.rollback();
    holder.close();
  }
});

test("a host whose clock is two minutes behind the server's records a run that others read alive, not crashed", async () => {
  const location = pgSchemaUrl();
  const cp = JSON.stringify({
    boundary: 'before_model_call',
    stepIndex: 0,
    messages: [{ role: 'user', content: 'from a skewed host' }],
    runtimeContext: testContext(),
    toolLedgerSnapshot: [],
    createdAt: 2,
  });
  // another host (its own name) whose clock runs 120 s behind; its process stays alive while the reader looks
  const behind = child(`require('node:os').hostname = () => 'skewed-host';
    const real = Date.now.bind(Date);
    Date.now = () => real() - 120000;
    const { openRunStore } = require(${src('store')});
    const s = openRunStore(${JSON.stringify(location)});
    s.createRun({ runId: 'behind', sessionId: 's', agentId: 'a', startedAt: Date.now() });
    s.appendCheckpoint({ ...JSON.parse(${JSON.stringify(cp)}), runId: 'behind', checkpointId: 'behind#1' });
    s.heartbeat('behind', Date.now());
    process.stdout.write('written\\n');
    process.stdin.once('data', () => s.close());`);
  await behind.said('written');
  const store = openRunStore(location);
  try {
    const run = store.getRun('behind');
    assert.equal(run.status, 'running');
    assert.equal(run.crashed, false, "its heartbeat is in the server's time: fresh");
    assert.ok(Math.abs((run.heartbeatAt ?? 0) - Date.now()) < 30_000, `heartbeat ${run.heartbeatAt} is near now`);
    assert.equal(store.listRuns().runs.find((r) => r.runId === 'behind')?.crashed, false);
  } finally {
    store.close();
    behind.send('bye\n');
    await behind.done;
  }
});

test("deleting a run waits for the writers in flight: a list node and blob another run's open transaction reuses are not collected", async () => {
  const location = pgSchemaUrl();
  const store = openRunStore(location);
  try {
    const shared = {
      boundary: 'before_model_call' as const,
      stepIndex: 0,
      messages: [{ role: 'user' as const, content: `kept by the newer run ${'z'.repeat(700)}` }],
      runtimeContext: testContext(),
      toolLedgerSnapshot: [],
      createdAt: 2,
    };
    for (const id of ['old', 'new']) store.createRun({ runId: id, sessionId: 's', agentId: 'a', startedAt: 1 });
    store.appendCheckpoint({ ...shared, runId: 'old', checkpointId: 'old#1' });
    const flag = join(tmpDir(), 'release');
    // 'new' reuses old's node and blob (found, not inserted) in a transaction it holds open
    const writing = holdingWriter(location, 'new', flag, JSON.stringify(shared));
    await writing.said('holding');
    const deleting = child(`const { openRunStore } = require(${src('store')});
      const s = openRunStore(${JSON.stringify(location)}, { busyTimeoutMs: 60000 });
      s.deleteRun('old');
      s.close();
      process.stdout.write('deleted\\n');`);
    await until(
      'the delete waits for the store',
      () =>
        Number(
          pgAdminQuery(
            `SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
              WHERE NOT l.granted AND l.locktype = 'advisory' AND l.classid = ? AND l.objid = ?`,
            storeLockKeys(schemaOf(location)).store >>> 0,
            WRITE_LOCK,
          )[0]?.n ?? 0,
        ) > 0,
    );
    writeFileSync(flag, 'go');
    const [w, d] = await Promise.all([writing.done, deleting.done]);
    assert.equal(w.code, 0, w.out);
    assert.equal(d.code, 0, d.out);
    assert.equal(store.hasRun('old'), false);
    assert.equal(store.getCheckpoint('new#1').messages[0]?.content, shared.messages[0]?.content);
    assert.equal(store.integrityCheck(), 'ok');
  } finally {
    store.close();
  }
});

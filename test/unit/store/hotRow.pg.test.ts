/**
 * No row every writer holds: while one process pushes a run to a PostgreSQL store in one long transaction, another
 * process's agent starts a run and a third pushes another run, both to the end, before the first commits. (The count
 * of top-level runs used to be one `meta` row a trigger updated for every top-level run: the long push held it, and
 * the others waited for it until they failed StoreLocked.) Real processes; the runs' contents differ, as two agents'
 * do (a blob or list node the long push inserted is one a second writer of the same content would wait for).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { pgSchemaUrl } from '../../helpers/engines';
import { tmpDir } from '../../helpers/tmp';

const ROOT = join(__dirname, '..', '..', '..');
const src = (m: string) => JSON.stringify(join(ROOT, 'src', m));

/** Runs `script` (CommonJS, src/ at hand) under tsx; `said(line)` resolves once the child printed `line`. */
function child(script: string): {
  said(line: string): Promise<void>;
  done: Promise<{ code: number | null; out: string }>;
} {
  const p = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OCDB_TEAM_STORE: 'direct' },
  });
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
    done,
  };
}

/** A finished run of `n` checkpoints in a SQLite file, its messages and context its own (`tag`). */
function recordRun(file: string, runId: string, tag: string, n: number): void {
  const store = openRunStore(file);
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: false });
  const run = recorder.startRun({
    agentId: `agent-${tag}`,
    runId,
    runtimeContext: testContext({ project: { projectId: tag } }),
  });
  const messages: { role: 'user' | 'assistant'; content: string }[] = [];
  for (let i = 0; i < n; i++) {
    messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: `${tag} message ${i}` });
    run.checkpoint(i % 2 === 0 ? 'before_model_call' : 'after_model_call', { messages: [...messages] });
  }
  run.end();
  recorder.close();
  store.close();
}

test('a long push holds up neither another process starting a run nor a second push, and all of them land', async () => {
  const location = pgSchemaUrl();
  openRunStore(location).close(); // the schema, before anyone races for it
  const dir = tmpDir();
  const first = join(dir, 'first.db');
  const second = join(dir, 'second.db');
  recordRun(first, 'pushed-first', 'first', 60);
  recordRun(second, 'pushed-second', 'second', 60);
  const release = join(dir, 'release');
  // the long push: its transaction stays open (its run inserted) until the test lets it go
  const longPush = child(`
    const fs = require('node:fs');
    const { openRunStore } = require(${src('store')});
    const { transferRuns } = require(${src('team/runTransfer')});
    const local = openRunStore(${JSON.stringify(first)}, { create: false });
    const team = openRunStore(${JSON.stringify(location)}, { busyTimeoutMs: 3000 });
    team.transaction(() => {
      transferRuns(local, team, ['pushed-first']);
      team.getRun('pushed-first'); // what the transaction wrote is on the server before it says so
      console.log('holding');
      const wait = new Int32Array(new SharedArrayBuffer(4));
      while (!fs.existsSync(${JSON.stringify(release)})) Atomics.wait(wait, 0, 0, 20);
    });
    console.log('committed');
    team.close();
    local.close();`);
  await longPush.said('holding');
  // a writer held up by the push would fail StoreLocked after its lock timeout (5 s), visibly
  const agent = child(`
    const { openRecorder } = require(${src('recorder')});
    const recorder = openRecorder({ store: ${JSON.stringify(location)}, heartbeatMs: 0, fork: false });
    const run = recorder.startRun({ agentId: 'agent-third', runId: 'started-meanwhile',
      runtimeContext: ${JSON.stringify(testContext({ project: { projectId: 'third' } }))} });
    run.checkpoint('before_model_call', { messages: [{ role: 'user', content: 'third message' }] });
    run.end();
    recorder.close();
    console.log('started');`);
  const secondPush = child(`
    const { openRunStore } = require(${src('store')});
    const { transferRuns } = require(${src('team/runTransfer')});
    const local = openRunStore(${JSON.stringify(second)}, { create: false });
    const team = openRunStore(${JSON.stringify(location)}, { busyTimeoutMs: 3000 });
    transferRuns(local, team, ['pushed-second']);
    team.close();
    local.close();
    console.log('pushed');`);
  const [started, pushed] = await Promise.all([agent.done, secondPush.done]);
  writeFileSync(release, '');
  const held = await longPush.done;
  assert.equal(started.code, 0, `the agent's run while the push held its transaction: ${started.out}`);
  assert.match(started.out, /^started$/m);
  assert.equal(pushed.code, 0, `the second push while the first held its transaction: ${pushed.out}`);
  assert.equal(held.code, 0, held.out);
  assert.match(held.out, /^committed$/m);
  const store = openRunStore(location, { create: false });
  try {
    for (const id of ['pushed-first', 'pushed-second', 'started-meanwhile']) assert.equal(store.hasRun(id), true, id);
    // the tree's page still counts the top-level runs (now at read time)
    assert.equal(store.listRuns({ parentRunId: null }).total, 3);
  } finally {
    store.close();
  }
});

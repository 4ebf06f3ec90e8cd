/**
 * The team store reached asynchronously (src/team/teamClient.ts), against the test server behind a delay proxy:
 * listing and copying runs leave the caller's event loop free however slow the network; a server that stops
 * answering costs a bounded wait and reads offline; an unreachable host reads offline at once with a retry; a
 * wrong password reads as such; a run copied to a local store and one made there and shipped back round-trip.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunStore } from '../../../src/store';
import { TeamStore, type TeamState } from '../../../src/team/teamClient';
import { writeDemoStore } from '../../../src/demo';
import { pgSchemaUrl } from '../../helpers/engines';
import { startDelayProxy, type DelayProxy } from '../../support/delayProxy';

const PG = process.env.OCDB_TEST_PG_URL;
let proxy: DelayProxy;
let url: string;
const dir = mkdtempSync(join(tmpdir(), 'ocdb-team-'));

before(async () => {
  assert.ok(PG, 'OCDB_TEST_PG_URL names the test server (node test/run.mjs --postgres starts one)');
  const schemaUrl = pgSchemaUrl();
  const seed = openRunStore(schemaUrl, { create: true });
  try {
    writeDemoStore(seed);
  } finally {
    seed.close();
  }
  const server = new URL(PG);
  proxy = await startDelayProxy({ host: server.hostname, port: Number(server.port) }, 25);
  url = proxy.urlFor(schemaUrl);
});

after(async () => {
  await proxy.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The longest gap between turns of this event loop while `work` runs (a 1 ms interval ticking throughout). */
async function longestBlock<T>(work: () => Promise<T>): Promise<{ value: T; blockedMs: number }> {
  let last = performance.now();
  let worst = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  try {
    const value = await work();
    return { value, blockedMs: Math.max(worst, performance.now() - last) };
  } finally {
    clearInterval(tick);
  }
}

function waitForState(team: TeamStore, kind: TeamState['kind']): Promise<TeamState> {
  if (team.state.kind === kind) return Promise.resolve(team.state);
  return new Promise((resolve) => {
    const stop = team.onState((s) => {
      if (s.kind !== kind) return;
      stop();
      resolve(s);
    });
  });
}

test('listing and copying a team run over a 50 ms round trip never blocks the caller', async () => {
  const team = new TeamStore(url);
  try {
    const { value, blockedMs } = await longestBlock(async () => {
      const listed = await team.listRuns({ parentRunId: null });
      const local = join(dir, 'cache.db');
      const copied = await team.pull(['demo-support-refund'], local);
      return { listed, copied, local };
    });
    assert.ok(
      value.listed.runs.some((r) => r.runId === 'demo-support-refund'),
      'the demo run is listed',
    );
    assert.deepEqual(value.copied.copied, ['demo-support-refund']);
    const local = openRunStore(value.local, { create: false });
    try {
      assert.ok(local.listCheckpoints('demo-support-refund').length > 5, 'its checkpoints are in the local store');
    } finally {
      local.close();
    }
    // a synchronous wait on the network would stall this thread for the whole copy (seconds at 25 ms a way)
    assert.ok(blockedMs < 1000, `the event loop was blocked ${Math.round(blockedMs)} ms`);
    assert.equal(team.state.kind, 'connected');
  } finally {
    team.close();
  }
});

test('a run made in a local store ships to the team store and reads there', async () => {
  const local = join(dir, 'ship.db');
  const team = new TeamStore(url);
  try {
    await team.pull(['demo-support-refund'], local);
    const store = openRunStore(local, { create: false });
    try {
      // the same run under another id (every id that names it renamed): a run only this store holds
      const text = JSON.stringify(store.exportRun('demo-support-refund')).replaceAll(
        'demo-support-refund',
        'shipped-copy',
      );
      store.loadRun(JSON.parse(text));
    } finally {
      store.close();
    }
    const outcome = await team.push(['shipped-copy'], local);
    assert.deepEqual(outcome.copied, ['shipped-copy']);
    const [run] = await team.getRuns(['shipped-copy']);
    assert.equal(run?.runId, 'shipped-copy');
    const again = await team.push(['shipped-copy'], local);
    assert.deepEqual(again.unchanged, ['shipped-copy'], 'shipping twice copies nothing twice');
  } finally {
    team.close();
  }
});

test('a listing asked while a run is being shipped is answered at once, and the shipping goes on', async () => {
  const local = join(dir, 'lanes.db');
  // quick requests bounded well under the push's time: one that waited behind the push would run out
  const team = new TeamStore(url, { requestTimeoutMs: 1500 });
  try {
    await team.pull(['demo-support-refund'], local);
    const store = openRunStore(local, { create: false });
    try {
      const text = JSON.stringify(store.exportRun('demo-support-refund')).replaceAll(
        'demo-support-refund',
        'shipped-while-listing',
      );
      store.loadRun(JSON.parse(text));
    } finally {
      store.close();
    }
    const order: string[] = [];
    const push = team.push(['shipped-while-listing'], local).then((o) => {
      order.push('pushed');
      return o;
    });
    const listed = await team.listRuns({ limit: 5 });
    order.push('listed');
    assert.ok(listed.runs.length > 0);
    const outcome = await push;
    assert.deepEqual(outcome.copied, ['shipped-while-listing'], 'the push was not cut short by the listing');
    assert.deepEqual(order, ['listed', 'pushed'], 'the listing did not wait for the push');
    assert.equal(team.state.kind, 'connected');
  } finally {
    team.close();
  }
});

test('a server that stops answering: the request fails within its bound, the store reads offline', async () => {
  const team = new TeamStore(url, { requestTimeoutMs: 1500, minBackoffMs: 60_000 });
  try {
    await team.connect();
    proxy.setMode('hang');
    const { value, blockedMs } = await longestBlock(() =>
      team.listRuns().then(
        () => 'answered',
        (e: Error) => e.message,
      ),
    );
    assert.match(value, /did not answer within 2 s; working offline/);
    assert.equal(team.state.kind, 'offline');
    assert.ok(blockedMs < 1000, `the event loop was blocked ${Math.round(blockedMs)} ms`);
    await assert.rejects(team.changeSeq(), /did not answer/, 'offline: the next request fails at once');
  } finally {
    proxy.setMode('forward');
    team.close();
  }
});

test('an unreachable host reads offline with a retry; it connects when the host comes back', async () => {
  proxy.setMode('down');
  const team = new TeamStore(url, { minBackoffMs: 50, maxBackoffMs: 200 });
  try {
    const offlineSeen = waitForState(team, 'offline');
    await assert.rejects(team.connect(), /Cannot reach|did not answer|thread/);
    const offline = await offlineSeen;
    assert.equal(offline.kind, 'offline');
    assert.ok(offline.kind === 'offline' && offline.retryInMs > 0);
    proxy.setMode('forward');
    await waitForState(team, 'connected');
    assert.ok((await team.changeSeq()) >= 0);
  } finally {
    proxy.setMode('forward');
    team.close();
  }
});

test('a wrong password reads as such and is not retried', async () => {
  const wrong = new URL(url);
  wrong.password = 'not-the-password';
  const team = new TeamStore(wrong.toString(), { minBackoffMs: 10 });
  try {
    await assert.rejects(team.connect(), /Cannot sign in/);
    assert.equal(team.state.kind, 'wrong-password');
    assert.ok(!JSON.stringify(team.state).includes('not-the-password'), 'the password is not in the state');
    await assert.rejects(team.listRuns(), /Cannot sign in/, 'fails at once, no new attempt');
  } finally {
    team.close();
  }
});

test('a database with no run store reads as such, not as offline, and connects once a store is made there', async () => {
  const empty = pgSchemaUrl();
  const team = new TeamStore(empty, { minBackoffMs: 50, maxBackoffMs: 200 });
  try {
    const seen = waitForState(team, 'offline');
    await assert.rejects(team.connect(), /No run store in/);
    const state = await seen;
    assert.ok(state.kind === 'offline' && state.noStore === true, 'the state says the database holds no store');
    const made = openRunStore(empty, { create: true });
    try {
      writeDemoStore(made);
    } finally {
      made.close();
    }
    await waitForState(team, 'connected');
    assert.ok((await team.listRuns()).runs.length > 0, 'the runs made there are listed');
  } finally {
    team.close();
  }
});

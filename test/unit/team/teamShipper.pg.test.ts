/**
 * An agent pointed at a team store with `teamStore: 'local-first'` records into a SQLite store on its own disk and
 * ships each ended run in the background (src/team/teamShipper.ts): the agent's thread never waits on the network
 * (the team store is behind a 25 ms-a-way delay proxy here, and hung while the agent records), `shipped()` confirms the run is in the team store, a
 * run ended while the host is unreachable is not confirmed (the error names it and where it stays) and ships when a
 * later recorder starts with the host back.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { pgSchemaUrl } from '../../helpers/engines';
import { testContext } from '../../helpers/context';
import { startProxyThread, type ProxyThread } from '../../support/delayProxyThread';

const PG = process.env.OCDB_TEST_PG_URL;
// in a thread of its own: the recorder's confirmations block this thread while they wait for the server
let proxy: ProxyThread;
let direct: string;
let viaProxy: string;
const home = mkdtempSync(join(tmpdir(), 'ocdb-ship-home-'));
const savedHome = process.env.HOME;

before(async () => {
  assert.ok(PG, 'OCDB_TEST_PG_URL names the test server (node test/run.mjs --postgres starts one)');
  // the local store of a team store lives under ~/.ocdb/stores/<hash>/: a home of the test's own
  process.env.HOME = home;
  direct = pgSchemaUrl();
  openRunStore(direct, { create: true }).close();
  const server = new URL(PG);
  proxy = await startProxyThread({ host: server.hostname, port: Number(server.port) });
  await proxy.setDelay(25);
  viaProxy = proxy.urlFor(direct);
});

after(async () => {
  process.env.HOME = savedHome;
  await proxy.close();
  rmSync(home, { recursive: true, force: true });
});

function teamHas(runId: string): boolean {
  const store = openRunStore(direct, { create: false });
  try {
    return store.hasRun(runId) && store.getRun(runId).status === 'completed';
  } finally {
    store.close();
  }
}

/** Records `steps` ReAct-like steps (synchronous calls: a wait on the network would block them). */
function steps(recorder: ReturnType<typeof openRecorder>, n: number) {
  const run = recorder.startRun({ agentId: 'shipper-test', runtimeContext: testContext() });
  for (let i = 0; i < n; i++) {
    run.checkpoint('before_prompt_build');
    run.checkpoint('before_model_call');
  }
  return run;
}

/** A run of `n` steps, ended (its end confirmed in the team store, or the error). */
function record(recorder: ReturnType<typeof openRecorder>, n: number): { runId: string } {
  const run = steps(recorder, n);
  run.end();
  return { runId: run.runId };
}

test('a local-first agent records on its own disk and its end is confirmed in the team store', async () => {
  // the server stops answering while the agent records: a writer that waited on it would never get through
  await proxy.setMode('hang');
  const recorder = openRecorder({ store: viaProxy, teamStore: 'local-first', heartbeatMs: 0 });
  try {
    const started = Date.now();
    const run = steps(recorder, 20);
    assert.ok(Date.now() - started < 5000, 'recording did not wait on the hung server');
    assert.equal(teamHas(run.runId), false, 'not in the team store before it is shipped');
    await proxy.setMode('forward');
    run.end();
    assert.equal(teamHas(run.runId), true, 'in the team store once end() returned');
    await recorder.shipped(60_000);
  } finally {
    recorder.close();
  }
});

test('ended while the host is unreachable: end() says it is not confirmed, kept locally, shipped by the next recorder', async () => {
  await proxy.setMode('down');
  const errors: string[] = [];
  const first = openRecorder({
    store: viaProxy,
    teamStore: 'local-first',
    heartbeatMs: 0,
    shipTimeoutMs: 2000,
    onStoreError: 'disable',
    onError: (e) => errors.push(e.message),
  });
  let runId: string;
  try {
    runId = record(first, 3).runId;
    assert.match(errors[0] ?? '', new RegExp(`${runId} not confirmed in the team store .* at the end of the run`));
    assert.match(errors[0] ?? '', /kept in .*cache\.db/);
    await assert.rejects(first.shipped(2000), (e: Error) => {
      assert.match(e.message, new RegExp(`not confirmed in the team store .*${runId}`));
      return true;
    });
  } finally {
    first.close();
  }
  assert.match(errors.at(-1) ?? '', /when the recorder closed/, 'close() said it again');
  assert.equal(teamHas(runId), false);
  await proxy.setMode('forward');
  const second = openRecorder({ store: viaProxy, teamStore: 'local-first', heartbeatMs: 0 });
  try {
    const next = record(second, 1).runId;
    await second.shipped(60_000);
    assert.equal(teamHas(next), true);
    // the earlier run was handed over again at start (resumable): wait for it as a state, not a time
    for (let i = 0; !teamHas(runId) && i < 600; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(teamHas(runId), true, 'the run recorded offline reached the team store');
  } finally {
    second.close();
  }
});

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
import { startDelayProxy, type DelayProxy } from '../../support/delayProxy';

const PG = process.env.OCDB_TEST_PG_URL;
let proxy: DelayProxy;
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
  proxy = await startDelayProxy({ host: server.hostname, port: Number(server.port) }, 25);
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

/** Records a run of `steps` ReAct-like steps (synchronous calls: a wait on the network would block them). */
function record(recorder: ReturnType<typeof openRecorder>, steps: number): { runId: string } {
  const run = recorder.startRun({ agentId: 'shipper-test', runtimeContext: testContext() });
  for (let i = 0; i < steps; i++) {
    run.checkpoint('before_prompt_build');
    run.checkpoint('before_model_call');
  }
  run.end();
  return { runId: run.runId };
}

test('a local-first agent records on its own disk and its ended run is confirmed in the team store', async () => {
  // the server stops answering while the agent records: a writer that waited on it would never get through
  proxy.setMode('hang');
  const recorder = openRecorder({ store: viaProxy, teamStore: 'local-first', heartbeatMs: 0 });
  try {
    const { runId } = record(recorder, 20);
    assert.equal(teamHas(runId), false, 'not in the team store before it is shipped');
    proxy.setMode('forward');
    await recorder.shipped(60_000);
    assert.equal(teamHas(runId), true, 'in the team store once shipped() resolves');
  } finally {
    recorder.close();
  }
});

test('ended while the host is unreachable: not confirmed, kept locally, shipped by the next recorder', async () => {
  proxy.setMode('down');
  const first = openRecorder({ store: viaProxy, teamStore: 'local-first', heartbeatMs: 0 });
  let runId: string;
  try {
    runId = record(first, 3).runId;
    await assert.rejects(first.shipped(2000), (e: Error) => {
      assert.match(e.message, new RegExp(`not confirmed in the team store .*${runId}`));
      assert.match(e.message, /kept in .*cache\.db/);
      return true;
    });
  } finally {
    first.close();
  }
  assert.equal(teamHas(runId), false);
  proxy.setMode('forward');
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

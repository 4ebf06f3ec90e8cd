/**
 * Reading a whole run from a team store costs a few round trips a batch, not a few a checkpoint: a copy of a run
 * (`ocdb pull`, the extension's cache) and an export (`ocdb export`) through a proxy that counts what the client
 * sends, against the same run read from the SQLite file it came from.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunStore, runExportChunks, type RunStore } from '../../../src/store';
import { transferRuns } from '../../../src/team/runTransfer';
import { recordLongRun } from '../../bench/longRun';
import { pgSchemaUrl } from '../../helpers/engines';
import { startProxyThread, type ProxyThread } from '../../support/delayProxyThread';
import { driverRequests } from '../../helpers/pgRequests';

const PG = process.env.OCDB_TEST_PG_URL;
const CHECKPOINTS = 700; // two read-ahead batches for an export
const dir = mkdtempSync(join(tmpdir(), 'ocdb-readahead-'));
let proxy: ProxyThread;
let local: RunStore;
let team: RunStore;
let runId: string;

before(async () => {
  assert.ok(PG, 'OCDB_TEST_PG_URL names the test server (node test/run.mjs --postgres starts one)');
  const seed = join(dir, 'seed.db');
  runId = recordLongRun(seed, CHECKPOINTS, 'read-ahead-run');
  local = openRunStore(seed, { create: false });
  const schemaUrl = pgSchemaUrl();
  const direct = openRunStore(schemaUrl, { create: true });
  transferRuns(local, direct, [runId]);
  direct.close();
  const server = new URL(PG);
  // in a thread of its own: the synchronous store below parks this thread on every read
  proxy = await startProxyThread({ host: server.hostname, port: Number(server.port) });
  team = openRunStore(proxy.urlFor(schemaUrl), { create: false });
});

after(async () => {
  team?.close();
  local?.close();
  await proxy?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the client sent to the server while `work` ran (each a flight of requests: a round trip at most). */
async function flights<T>(work: () => T): Promise<{ value: T; flights: number }> {
  await proxy.setDelay(0);
  const before = proxy.requests();
  const value = work();
  await proxy.setDelay(0); // a round trip to the proxy's thread: its counter is current
  return { value, flights: proxy.requests() - before };
}

test('copying a 700-checkpoint team run into a local store takes a few round trips, and the copy is the same run', async () => {
  const cache = openRunStore(join(dir, 'cache.db'), { create: true });
  try {
    const { value: report, flights: sent } = await flights(() => transferRuns(team, cache, [runId]));
    assert.deepEqual(
      report.runs.map((r) => r.outcome),
      ['copied'],
    );
    assert.ok(sent < 40, `the copy sent ${sent} flights for ${CHECKPOINTS} checkpoints`);
    assert.equal([...runExportChunks(cache, runId)].join(''), [...runExportChunks(local, runId)].join(''));
  } finally {
    cache.close();
  }
});

test('an export of the team run reads a batch in a few round trips and writes what the SQLite file exports', async () => {
  const { value: text, flights: sent } = await flights(() => [...runExportChunks(team, runId)].join(''));
  assert.ok(sent < 40, `the export sent ${sent} flights for ${CHECKPOINTS} checkpoints`);
  assert.equal(text, [...runExportChunks(local, runId)].join(''));
});

test('an export left after its first batch (the next one already sent for) leaves the store reading the same run', () => {
  const chunks = runExportChunks(team, runId);
  // the frame, then the first checkpoint: batch 0 is read and batch 1 is on its way
  chunks.next();
  chunks.next();
  chunks.return(undefined);
  // the answer sent for batch 1 arrives while these wait: it is not taken for theirs
  assert.equal(team.getRun(runId).checkpointCount, CHECKPOINTS);
  assert.equal(team.getCheckpointAt(runId, 600).checkpointId, local.getCheckpointAt(runId, 600).checkpointId);
  assert.equal([...runExportChunks(team, runId)].join(''), [...runExportChunks(local, runId)].join(''));
});

test('pushing a 700-checkpoint run to a team store takes a few round trips a batch, not a few a checkpoint', () => {
  const target = openRunStore(pgSchemaUrl(), { create: true });
  try {
    const { value: report, requests } = driverRequests(() => transferRuns(local, target, [runId]));
    assert.deepEqual(
      report.runs.map((r) => r.outcome),
      ['copied'],
    );
    assert.ok(requests < 40, `the push sent ${requests} requests for ${CHECKPOINTS} checkpoints`);
    assert.equal([...runExportChunks(target, runId)].join(''), [...runExportChunks(local, runId)].join(''));
    // pushed again: the same run is left as it is, compared in a few round trips a batch too
    const again = driverRequests(() => transferRuns(local, target, [runId]));
    assert.deepEqual(
      again.value.runs.map((r) => r.outcome),
      ['unchanged'],
    );
    assert.ok(again.requests < 40, `the comparison sent ${again.requests} requests`);
  } finally {
    target.close();
  }
});

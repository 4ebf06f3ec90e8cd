/**
 * `npm run bench -- team`: the team store reached asynchronously (src/team) with PostgreSQL behind a delay proxy
 * on loopback (test/support/delayProxy.ts) adding 0 / 10 / 50 ms each way. Needs a server: OCDB_BENCH_PG_URL (or
 * OCDB_TEST_PG_URL; test/support/pgCluster.sh starts one); a fresh schema is made there and dropped after.
 * At each latency, on the caller's thread (the extension host's, an agent's):
 *   - list: `TeamStore.listRuns` of the top-level runs — time, and the longest block of the caller's event loop;
 *   - open: `TeamStore.pull` of a run of OCDB_BENCH_TEAM_CHECKPOINTS checkpoints (default 2,000) into a fresh
 *     local SQLite store — time, longest block, and the request flights the client sent (round trips, at most);
 *   - record: the time on the agent's thread per checkpoint for a local SQLite store, a local-first recorder
 *     pointed at the team store, and a direct PostgreSQL recorder (fewer checkpoints: it pays round trips); then
 *     `shipped()` — the time until the local-first run is confirmed in the team store.
 *     It follows a listing, as in the editor (the tree lists before a run is opened); `cold open` is the same pull as
 *     the first request of a new client (its threads start and connect for it);
 *   - export: `ocdb export`'s read of the run from the team store (the synchronous store, as the CLI reads it) —
 *     time and request flights; at 0 ms also without the read-ahead (runReadAhead.ts), as it read before;
 *   - `ocdb pull` and `ocdb export` of the run as a user runs them (dist/cli.js, a process each, through the
 *     proxy): time and flights, beside the time the CLI takes to start and print its version (their floor);
 *   - step: reading a checkpoint (what a debugger step reads) on the opened copy against the local original;
 *   - unreachable / hung: a connection attempt to a host that refuses, and a listing from a server that stopped
 *     answering (bounded at 2 s here) — the time until the store reads offline and the caller's longest block.
 * OCDB_BENCH_TEAM_DELAYS picks the delays (default `0,10,50`). Figures only; nothing is asserted.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecorder } from '../../src/recorder';
import { openRunStore, runExportChunks, type RunStore } from '../../src/store';
import { PgDriver } from '../../src/store/pgDriver';
import { TeamStore } from '../../src/team/teamClient';
import { transferRuns } from '../../src/team/runTransfer';
import { testContext } from '../helpers/context';
import { startProxyThread } from '../support/delayProxyThread';
import { recordLongRun } from './longRun';
import { envInt, fmt } from './stats';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

/** Runs `ocdb args…` (this checkout's dist/cli.js) in a process of its own: the time until it exits. */
function ocdb(args: string[]): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { maxBuffer: 1 << 30 }, (error, _out, stderr) => {
      if (error) reject(new Error(`ocdb ${args[0]} failed: ${stderr || error.message}`));
      else resolve(performance.now() - t0);
    });
  });
}

/** The time and the flights `work` sent through the proxy (its counter read on its thread after a round trip). */
async function counted(
  proxy: Awaited<ReturnType<typeof startProxyThread>>,
  delay: number,
  work: () => Promise<number>,
): Promise<{ ms: number; flights: number }> {
  await proxy.setDelay(delay);
  const before = proxy.requests();
  const ms = await work();
  await proxy.setDelay(delay);
  return { ms, flights: proxy.requests() - before };
}

/** Runs `work` while a 1 ms timer watches this thread's event loop: the time and the longest gap between turns. */
async function watched<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; blockMs: number }> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 1);
    last = now;
  }, 1);
  const t0 = performance.now();
  try {
    const value = await work();
    return { value, ms: performance.now() - t0, blockMs: Math.max(worst, performance.now() - last - 1) };
  } finally {
    clearInterval(timer);
  }
}

/** Milliseconds per checkpoint on this thread for a recorder over `store` (a run of `n` checkpoints). */
function perCheckpoint(recorder: ReturnType<typeof openRecorder>, n: number): { ms: number; runId: string } {
  const run = recorder.startRun({ agentId: 'bench-agent', runtimeContext: testContext() });
  const messages: { role: 'user' | 'assistant'; content: string }[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}: ${'lorem ipsum '.repeat(25)}` });
    run.checkpoint(i % 2 === 0 ? 'before_model_call' : 'after_model_call', { messages: [...messages] });
  }
  const ms = (performance.now() - t0) / n;
  run.end();
  return { ms, runId: run.runId };
}

/** Milliseconds a checkpoint read takes (the median of reading every 10th checkpoint of the run), on `store`. */
function stepMs(store: RunStore, runId: string, count: number): number {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 10) {
    const t0 = performance.now();
    store.getCheckpointAt(runId, i);
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? 0;
}

/** Reads the run's export from `url` (a fresh connection) through the proxy: time and the flights it sent. */
async function exportFlights(
  proxy: Awaited<ReturnType<typeof startProxyThread>>,
  url: string,
  runId: string,
  readAhead: boolean,
  delay: number,
): Promise<{ ms: number; flights: number }> {
  const store = openRunStore(url, { create: false });
  try {
    // without: the store as it read before the read-ahead (an own property hides the method)
    if (!readAhead) Object.assign(store, { readAhead: undefined });
    await proxy.setDelay(delay); // a round trip to the proxy's thread: its counter is current
    const before = proxy.requests();
    const t0 = performance.now();
    let bytes = 0;
    for (const chunk of runExportChunks(store, runId)) bytes += chunk.length;
    const ms = performance.now() - t0;
    await proxy.setDelay(delay);
    return { ms: bytes > 0 ? ms : 0, flights: proxy.requests() - before };
  } finally {
    store.close();
  }
}

export async function run(): Promise<void> {
  const server = process.env.OCDB_BENCH_PG_URL ?? process.env.OCDB_TEST_PG_URL;
  if (!server) {
    console.log('skipped: no PostgreSQL server (OCDB_BENCH_PG_URL or OCDB_TEST_PG_URL; test/support/pgCluster.sh)');
    return;
  }
  const checkpoints = envInt(process.env.OCDB_BENCH_TEAM_CHECKPOINTS, 2000);
  const recordN = envInt(process.env.OCDB_BENCH_TEAM_RECORD, 200);
  const directN = envInt(process.env.OCDB_BENCH_TEAM_DIRECT, 20);
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-team-'));
  const savedHome = process.env.HOME;
  process.env.HOME = dir; // the local-first recorder's store lives under ~/.ocdb/stores/<hash>/
  const schema = `bench_team_${randomBytes(4).toString('hex')}`;
  const admin = new PgDriver({ url: server, location: 'the bench server' });
  admin.exec(`CREATE SCHEMA ${schema}`);
  const url = new URL(server);
  url.searchParams.set('options', `-c search_path=${schema}`);
  // in a thread of its own: the direct writer measured below blocks this one while it waits on the server
  const proxy = await startProxyThread({ host: url.hostname, port: Number(url.port) });
  try {
    // the team store: one long run, copied there as `ocdb push` would
    const seed = join(dir, 'seed.db');
    const runId = recordLongRun(seed, checkpoints, 'team-long-run');
    const local = openRunStore(seed, { create: false });
    const team = openRunStore(url.toString(), { create: true });
    transferRuns(local, team, [runId]);
    local.close();
    team.close();
    const teamUrl = proxy.urlFor(url.toString());
    console.log(`a run of ${checkpoints} checkpoints; recording ${recordN} checkpoints (direct: ${directN})`);
    console.log(
      'delay/way  list ms (block)  open ms (block, flights)   record ms/cp: local  local-first  direct   shipped ms',
    );
    const exports: string[] = [];
    const ratios: string[] = [];
    const delays = (process.env.OCDB_BENCH_TEAM_DELAYS ?? '0,10,50').split(',').map((d) => Number(d.trim()));
    const cliFloor = await ocdb(['--version']);
    for (const delay of delays) {
      await proxy.setDelay(delay);
      const client = new TeamStore(teamUrl);
      await client.connect();
      const list = await watched(() => client.listRuns({ parentRunId: null }));
      const flights0 = proxy.requests();
      const open = await watched(() => client.pull([runId], join(dir, `cache-${delay}.db`)));
      await proxy.setDelay(delay); // a round trip to the thread: its counter is current
      const flights = proxy.requests() - flights0;
      client.close();
      // the same open as the first request of a new client: its threads start and connect for it
      const coldClient = new TeamStore(teamUrl);
      const cold = await counted(proxy, delay, async () => {
        const t0 = performance.now();
        await coldClient.pull([runId], join(dir, `cold-${delay}.db`));
        return performance.now() - t0;
      });
      coldClient.close();
      const cliPull = await counted(proxy, delay, () =>
        ocdb(['pull', runId, '--from', teamUrl, '--store', join(dir, `pulled-${delay}.db`)]),
      );
      const cliExport = await counted(proxy, delay, () =>
        ocdb(['export', runId, '--store', teamUrl, '--out', join(dir, `export-${delay}.json`)]),
      );

      const plain = openRecorder({ store: join(dir, `local-${delay}.db`), heartbeatMs: 0, fork: false });
      const localMs = perCheckpoint(plain, recordN).ms;
      plain.close();
      const first = openRecorder({ store: teamUrl, teamStore: 'local-first', heartbeatMs: 0, fork: false });
      const localFirstMs = perCheckpoint(first, recordN).ms;
      // a copy costs round trips by the row today: at 50 ms a way it may not be confirmed within the bound
      const shipped = await watched(() =>
        first.shipped(120_000).then(
          () => true,
          () => false,
        ),
      );
      first.close();
      const exported = await exportFlights(proxy, teamUrl, runId, true, delay);
      const cache = openRunStore(join(dir, `cache-${delay}.db`), { create: false });
      const seedStore = openRunStore(seed, { create: false });
      const steps = { opened: stepMs(cache, runId, checkpoints), local: stepMs(seedStore, runId, checkpoints) };
      cache.close();
      seedStore.close();
      exports.push(
        `${String(delay).padStart(6)} ms  export ${fmt(exported.ms, 0)} ms, ${exported.flights} flights;  a checkpoint read on the opened copy ${fmt(steps.opened, 2)} ms, on the local run ${fmt(steps.local, 2)} ms`,
        `${String(delay).padStart(6)} ms  cold open ${fmt(cold.ms, 0)} ms (${cold.flights} flights);  ocdb pull ${fmt(cliPull.ms, 0)} ms (${cliPull.flights} flights), ocdb export ${fmt(cliExport.ms, 0)} ms (${cliExport.flights} flights), ocdb --version ${fmt(cliFloor, 0)} ms`,
      );
      // the figures the targets name, each against the same work on a local store
      ratios.push(
        `${String(delay).padStart(6)} ms  open ${checkpoints}: ${fmt(open.ms / 1000, 2)} s (target 3 s at 10 ms)  step ×${fmt(steps.opened / Math.max(steps.local, 0.001), 2)} of local (target 1.5)  record/cp ×${fmt(localFirstMs / Math.max(localMs, 0.001), 2)} of local (target 2)  pull ${flights} flights, export ${exported.flights} flights`,
      );
      if (delay === 0) {
        const plainExport = await exportFlights(proxy, teamUrl, runId, false, delay);
        exports.push(
          `     0 ms  export without read-ahead ${fmt(plainExport.ms, 0)} ms, ${plainExport.flights} flights (${fmt(plainExport.flights / checkpoints, 2)} a checkpoint)`,
        );
      }
      const direct = openRecorder({ store: teamUrl, teamStore: 'direct', heartbeatMs: 0, fork: false });
      const directMs = perCheckpoint(direct, directN).ms;
      direct.close();
      console.log(
        `${String(delay).padStart(6)} ms  ${fmt(list.ms, 0).padStart(7)} (${fmt(list.blockMs, 0)})  ${fmt(open.ms, 0).padStart(9)} (${fmt(open.blockMs, 0)}, ${flights})   ${fmt(localMs, 2).padStart(15)}  ${fmt(localFirstMs, 2).padStart(11)}  ${fmt(directMs, 1).padStart(6)}   ${shipped.value ? fmt(shipped.ms, 0).padStart(8) : '> 120000'}`,
      );
    }
    for (const line of exports) console.log(line);
    for (const line of ratios) console.log(line);
    // the host away: what the caller's thread pays while the client finds out
    const away = new TeamStore(teamUrl, { requestTimeoutMs: 2000, minBackoffMs: 60_000 });
    await away.connect();
    await proxy.setMode('down');
    const refused = await watched(() =>
      away.reconnect().then(
        () => 'connected',
        () => away.state.kind,
      ),
    );
    await proxy.setMode('forward');
    await away.reconnect();
    await proxy.setMode('hang');
    const hung = await watched(() =>
      away.listRuns().then(
        () => 'answered',
        () => away.state.kind,
      ),
    );
    await proxy.setMode('forward');
    away.close();
    console.log(
      `host refusing: ${refused.value} after ${fmt(refused.ms, 0)} ms (block ${fmt(refused.blockMs, 0)} ms); server hung: ${hung.value} after ${fmt(hung.ms, 0)} ms (block ${fmt(hung.blockMs, 0)} ms)`,
    );
  } finally {
    process.env.HOME = savedHome;
    await proxy.close();
    admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    admin.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

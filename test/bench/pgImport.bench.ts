/**
 * `npm run bench -- pgImport`: a large Claude Code session (largeSession.ts, OCDB_BENCH_PGIMPORT_CALLS tool calls,
 * default 1,000) imported into a PostgreSQL store as `ocdb import --store postgres://…` does, through the delay proxy
 * (test/support/delayProxy.ts, in a thread of its own: the synchronous store parks this one) at
 * OCDB_BENCH_PGIMPORT_DELAYS ms each way (default `0,10`). For each: the import's wall time and the requests the
 * store's driver sent (each a pipelined batch: one round trip), and of those the part that stores the run's rebuilt
 * files (`putRebuiltFiles`: its rows and their texts). Beside it, the same import into a SQLite file.
 * Needs a server: OCDB_BENCH_PG_URL (or OCDB_TEST_PG_URL; test/support/pgCluster.sh starts one); a fresh schema is
 * made there for each delay and dropped after. Figures only; nothing is asserted.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importPath } from '../../src/importers';
import { openRunStore, type RunStore } from '../../src/store';
import { PgDriver } from '../../src/store/pgDriver';
import { startProxyThread } from '../support/delayProxyThread';
import { LARGE, SESSION_ID, records, writeSession } from './largeSession';
import { envInt, fmt } from './stats';

const RUN = `cc-${SESSION_ID}`;

/** Counts the requests every PgDriver of this process sends from now on, until `stop`. */
function countRequests(): { count: () => number; stop: () => void } {
  const proto = PgDriver.prototype as unknown as { request(this: unknown, ...args: unknown[]): unknown };
  const request = proto.request;
  let n = 0;
  proto.request = function (this: unknown, ...args: unknown[]) {
    n++;
    return request.apply(this, args);
  };
  return { count: () => n, stop: () => (proto.request = request) };
}

/** The time and requests of `store.putRebuiltFiles` while the import runs (wrapped on the instance). */
function watchFiles(store: RunStore): { ms: number; requests: number; rows: number } {
  const seen = { ms: 0, requests: 0, rows: 0 };
  const put = store.putRebuiltFiles.bind(store);
  store.putRebuiltFiles = (runId, files) => {
    const counter = countRequests();
    const t0 = performance.now();
    try {
      put(runId, files);
    } finally {
      seen.ms += performance.now() - t0;
      seen.requests += counter.count();
      seen.rows += files ? files.snapshots.length + files.shellMarks.length + 1 : 0;
      counter.stop();
    }
  };
  return seen;
}

async function importInto(
  store: RunStore,
  file: string,
): Promise<{ ms: number; requests: number; files: ReturnType<typeof watchFiles> }> {
  const files = watchFiles(store);
  const counter = countRequests();
  const t0 = performance.now();
  try {
    const result = await importPath(store, file);
    if (result.files[0]?.outcome !== 'imported') throw new Error(`not imported: ${result.files[0]?.reason}`);
  } finally {
    counter.stop();
  }
  return { ms: performance.now() - t0, requests: counter.count(), files };
}

export async function run(): Promise<void> {
  const server = process.env.OCDB_BENCH_PG_URL ?? process.env.OCDB_TEST_PG_URL;
  if (!server) {
    console.log('skipped: no PostgreSQL server (OCDB_BENCH_PG_URL or OCDB_TEST_PG_URL; test/support/pgCluster.sh)');
    return;
  }
  const calls = envInt(process.env.OCDB_BENCH_PGIMPORT_CALLS, 1000);
  const delays = (process.env.OCDB_BENCH_PGIMPORT_DELAYS ?? '0,10').split(',').map((d) => Number(d.trim()));
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-pgimport-'));
  const admin = new PgDriver({ url: server, location: 'the bench server' });
  const base = new URL(server);
  const proxy = await startProxyThread({ host: base.hostname, port: Number(base.port) });
  const schemas: string[] = [];
  try {
    const { lines, subagent, edits } = records({ ...LARGE, toolCalls: calls });
    const file = writeSession(dir, lines, subagent);
    console.log(`a Claude Code session of ${calls} tool calls (${edits} Edits over ${LARGE.files} files)`);
    const local = openRunStore(join(dir, 'runs.db'), { create: true });
    const sqlite = await importInto(local, file);
    const snapshots = local.getRebuiltFiles(RUN)?.snapshots.length ?? 0;
    local.close();
    console.log(
      `SQLite file      import ${fmt(sqlite.ms, 0)} ms; its rebuilt files (${sqlite.files.rows} rows, ${snapshots} file versions) ${fmt(sqlite.files.ms, 0)} ms`,
    );
    for (const delay of delays) {
      const schema = `bench_pgimport_${randomBytes(4).toString('hex')}`;
      admin.exec(`CREATE SCHEMA ${schema}`);
      schemas.push(schema);
      const url = new URL(server);
      url.searchParams.set('options', `-c search_path=${schema}`);
      openRunStore(url.toString(), { create: true }).close(); // the schema made before, not through the proxy
      await proxy.setDelay(delay);
      const store = openRunStore(proxy.urlFor(url.toString()), { create: false });
      try {
        const pg = await importInto(store, file);
        console.log(
          `PostgreSQL ${String(delay).padStart(2)} ms  import ${fmt(pg.ms, 0)} ms, ${pg.requests} requests; its rebuilt files (${pg.files.rows} rows) ${fmt(pg.files.ms, 0)} ms, ${pg.files.requests} requests`,
        );
      } finally {
        store.close();
      }
    }
  } finally {
    await proxy.close();
    for (const s of schemas) admin.exec(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    admin.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

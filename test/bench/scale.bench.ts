/**
 * The shared store at scale: OCDB_BENCH_SCALE_RUNS runs holding about
 * OCDB_BENCH_SCALE_CHECKPOINTS checkpoints on SQLite and on PostgreSQL, the same workload, printed side by side;
 * the same measures at smaller scales (OCDB_BENCH_SCALE_GROWTH, comma-separated run counts) in stores of their own,
 * so the growth shows. The defaults (10,000 runs / 100,000 checkpoints, growth from 1,000) finish in about a
 * quarter of an hour on a busy 2-core machine; the scale is OCDB_BENCH_SCALE_RUNS=100000
 * OCDB_BENCH_SCALE_CHECKPOINTS=1000000 OCDB_BENCH_SCALE_GROWTH=1000,10000 — PostgreSQL seeds at some 200–400
 * checkpoints/s there (every write waits on the store's write lock and a few round trips), so over an hour:
 * OCDB_BENCH_SCALE_KEEP lets a run that was cut short be continued.
 *
 * Seeding (set-up, printed apart): a handful of template runs recorded through the SDK and the fork engine
 * (scaleTemplates.ts), multiplied under new run ids through `RunStore.loadRun` in large transactions
 * (scaleSeed.ts) — the store writes its own rows, whatever its table layout — then the store's integrity check;
 * plus one long run (OCDB_BENCH_SCALE_LONG checkpoints, default 2,000) recorded through the SDK.
 *
 * Measured through the documented API, in real processes:
 *   - the runs tree: `listRuns({ parentRunId: null, limit: 200 })` (the Agent Runs view's top level) and
 *     `listRuns({ parentRunId })` (a run's forks, when it is expanded), p50 / p95 of 30;
 *   - `ocdb runs` (dist/cli.js, a process of its own each time: start, open, list 50, print), p50 / p95 of 5;
 *   - a step in a real `ocdb dap` process: launch on the long run, next -> stopped -> stackTrace 20 -> scopes ->
 *     variables of every scope, p50 / p95 of 20 steps from its checkpoint 100 and 20 at its end; and every step of a seeded
 *     fork (from its first checkpoint to its end: a loaded run replays);
 *   - append under OCDB_BENCH_SCALE_WRITERS writer processes at once (default 8; sharedWriter.ts, the SDK), each
 *     OCDB_BENCH_SCALE_APPENDS checkpoints (default 100): per checkpoint p50 / p95, throughput, and the
 *     checkpoints in the store afterwards against those expected.
 *
 * PostgreSQL: OCDB_BENCH_PG_URL, else OCDB_TEST_PG_URL; each scale gets a database of its own on that server
 * (advisory locks, hence the store's write lock, are per database: the long seeding transactions never hold up
 * another store on a shared server), dropped after; `VACUUM (ANALYZE)` once seeded, as autovacuum would in time.
 * OCDB_BENCH_SCALE_KEEP=<folder> keeps the seeded stores (SQLite files in the folder, databases named
 * ocdb_scale_<runs>r_<checkpoints>c, the scale's own counts) and continues seeding one that was cut short.
 * Figures only; nothing is asserted but that the store checks out and the writers lost nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunStore, type RunStore } from '../../src/store';
import { PgDriver } from '../../src/store/pgDriver';
import { OcdbDebugClient } from '../dap/support/dapClient';
import { copyRunId, firstMissingCopy, loadCopies, runsPerCopy } from './scaleSeed';
import { recordLongRun, recordTemplates, type TemplateFamily } from './scaleTemplates';
import { steps as dapSteps } from './dap.bench';
import { concurrentAppends } from './shared.bench';
import { envInt, fmt, summarize, us } from './stats';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const LONG_RUN = 'scale-long-run';

type Summary = ReturnType<typeof summarize>;

interface Figures {
  runs: number;
  checkpoints: number;
  seedS: number;
  seededCheckpoints: number;
  integrity: string;
  tree: Summary;
  forks: Summary;
  cliRuns: Summary;
  stepStart: Summary;
  stepEnd: Summary;
  /** Stepping a seeded fork from its first checkpoint to its end (any seeded run replays). */
  stepSeeded: Summary;
  longCheckpoints: number;
  writers: number;
  append: Summary;
  appendsPerS: number;
  written: number;
  expected: number;
}

function sample(n: number, fn: () => void): Summary {
  const samples: number[] = [];
  for (let k = 0; k < n; k++) {
    const t = process.hrtime.bigint();
    fn();
    samples.push(us(t));
  }
  return summarize(samples);
}

/** Seeds `store` to `copies` copies of the families (continuing a kept store) and the long run. */
async function seed(
  store: RunStore,
  location: string,
  families: readonly TemplateFamily[],
  copies: number,
  longCheckpoints: number,
  label: string,
): Promise<{ seconds: number; checkpoints: number }> {
  const from = firstMissingCopy(store, copies);
  const t0 = process.hrtime.bigint();
  let done = 0;
  let checkpoints = 0;
  let next = 10_000;
  loadCopies(store, families, from, copies, (runs, cps) => {
    done += runs;
    checkpoints += cps;
    if (done >= next) {
      const s = us(t0) / 1e6;
      process.stdout.write(
        `  ${label}: ${done} runs loaded, ${checkpoints} checkpoints, ${fmt(checkpoints / s, 0)}/s\n`,
      );
      next += 10_000;
    }
  });
  if (!store.hasRun(LONG_RUN)) {
    await recordLongRun(location, LONG_RUN, longCheckpoints);
    checkpoints += store.getRun(LONG_RUN).checkpointCount;
  }
  return { seconds: us(t0) / 1e6, checkpoints };
}

/** Every run's checkpoints, by pages of the tree's own query (the total the store holds). */
function countCheckpoints(store: RunStore): { runs: number; checkpoints: number } {
  let checkpoints = 0;
  let runs = 0;
  for (let offset = 0; ; offset += 5000) {
    const page = store.listRuns({ limit: 5000, offset }).runs;
    for (const r of page) checkpoints += r.checkpointCount;
    runs += page.length;
    if (page.length < 5000) return { runs, checkpoints };
  }
}

function cliRuns(location: string, n: number): Summary {
  const samples: number[] = [];
  for (let k = 0; k < n; k++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [CLI, 'runs', '--store', location], { encoding: 'utf8' });
    samples.push(us(t));
    if (r.status !== 0 || r.stdout.split('\n').length < 50) throw new Error(`ocdb runs failed: ${r.stderr}`);
  }
  return summarize(samples);
}

/** `count` steps of a real `ocdb dap` launched on `runId` at checkpoint index `at`. */
async function steps(location: string, runId: string, checkpointId: string, count: number): Promise<Summary> {
  const dc = new OcdbDebugClient();
  dc.defaultTimeout = 600_000;
  await dc.start();
  try {
    await dc.launchAndStop({ runId, store: location, stopOnEntry: true, checkpointId });
    return summarize(await dapSteps(dc, count));
  } finally {
    await dc.stop();
  }
}

interface Seeded {
  seconds: number;
  checkpoints: number;
  integrity: string;
}

/** Seeds the store at `location` to `runs` runs (and the long run), then runs its integrity check. */
async function prepare(
  location: string,
  label: string,
  families: readonly TemplateFamily[],
  runs: number,
): Promise<Seeded> {
  const copies = Math.ceil(runs / runsPerCopy(families));
  const seeder = openRunStore(location, { create: true });
  try {
    process.stdout.write(`${label}: seeding ${copies * runsPerCopy(families)} runs…\n`);
    const seeded = await seed(
      seeder,
      location,
      families,
      copies,
      envInt(process.env.OCDB_BENCH_SCALE_LONG, 2000),
      label,
    );
    const integrity = seeder.integrityCheck();
    process.stdout.write(
      `${label}: seeded ${seeded.checkpoints} checkpoints in ${fmt(seeded.seconds, 1)} s; integrity ${integrity}\n`,
    );
    return { ...seeded, integrity };
  } finally {
    seeder.close();
  }
}

async function measure(
  location: string,
  label: string,
  families: readonly TemplateFamily[],
  runs: number,
  seeded: Seeded,
): Promise<Figures> {
  const writerCount = envInt(process.env.OCDB_BENCH_SCALE_WRITERS, 8);
  const appends = envInt(process.env.OCDB_BENCH_SCALE_APPENDS, 100);
  const copies = Math.ceil(runs / runsPerCopy(families));
  const integrity = seeded.integrity;
  // measured as the next process to open the store finds it (SQLite: the seeding's WAL folded in at close)
  const store = openRunStore(location, { create: false });
  try {
    const counted = countCheckpoints(store);
    process.stdout.write(`${label}: measuring (${counted.runs} runs / ${counted.checkpoints} checkpoints)…\n`);
    const mid = Math.floor(copies / 2);
    const forked = copyRunId(
      mid,
      families.findIndex((f) => f.runIds.length > 1),
    );
    const tree = sample(30, () => store.listRuns({ parentRunId: null, limit: 200 }));
    const forks = sample(30, () => {
      if (store.listRuns({ parentRunId: forked }).runs.length === 0) throw new Error(`${forked} has no forks`);
    });
    const cli = cliRuns(location, 5);
    const long = store.listCheckpoints(LONG_RUN);
    const stepCount = Math.min(20, Math.floor(long.length / 2) - 1);
    // from checkpoint 100 (as dap.bench.ts): a page of 100 messages to show at the start as at the end
    const startAt = long[Math.min(100, Math.floor(long.length / 4))] ?? long[0];
    const stepStart = await steps(location, LONG_RUN, startAt?.checkpointId ?? '', stepCount);
    const endAt = long[long.length - 2 - stepCount];
    const stepEnd = await steps(location, LONG_RUN, endAt?.checkpointId ?? '', stepCount);
    const seededFork = copyRunId(
      mid,
      families.findIndex((f) => f.runIds.length > 1),
      1,
    );
    const seededCps = store.listCheckpoints(seededFork);
    const stepSeeded = await steps(location, seededFork, seededCps[0]?.checkpointId ?? '', seededCps.length - 1);
    const ids = Array.from({ length: writerCount }, (_, w) => `scale-writer-${process.pid}-${runs}-${w}`);
    const w = await concurrentAppends(location, ids, appends);
    let written = 0;
    for (const id of ids) written += store.getRun(id).checkpointCount;
    return {
      runs: counted.runs,
      checkpoints: counted.checkpoints,
      seedS: seeded.seconds,
      seededCheckpoints: seeded.checkpoints,
      integrity,
      tree,
      forks,
      cliRuns: cli,
      stepStart,
      stepEnd,
      stepSeeded,
      longCheckpoints: long.length,
      writers: writerCount,
      append: summarize(w.perCheckpoint),
      appendsPerS: w.perCheckpoint.length / (w.wallUs / 1e6),
      written,
      // each writer: two per model call, and agent_end
      expected: writerCount * (2 * Math.max(1, Math.floor(appends / 2)) + 1),
    };
  } finally {
    store.close();
  }
}

/** A database of its own on the server of `url` (dropped by the returned function unless kept). */
function pgDatabase(
  url: string,
  name: string,
  keep: boolean,
): { location: string; settle: () => void; drop: () => void } {
  const admin = new PgDriver({ url, location: 'the bench server' });
  const exists = admin.prepare('SELECT 1 AS x FROM pg_database WHERE datname = ?').get(name);
  if (!exists) admin.exec(`CREATE DATABASE ${name}`);
  const at = new URL(url);
  at.pathname = `/${name}`;
  return {
    location: at.toString(),
    // after a bulk load, what autovacuum does to a store that has been in use for a while: the planner's statistics
    // and the visibility map (without it a COUNT reads the heap of every run the load just wrote and updated)
    settle: () => {
      const db = new PgDriver({ url: at.toString(), location: `the bench database ${name}` });
      try {
        db.exec('VACUUM (ANALYZE)');
      } finally {
        db.close();
      }
    },
    drop: () => {
      if (!keep) admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      admin.close();
    },
  };
}

interface Column {
  engine: string;
  runs: number;
  f: Figures;
}

const ms = (s: Summary) => `${fmt(s.p50 / 1000, 2)} / ${fmt(s.p95 / 1000, 2)}`;

const MEASURES: [string, (f: Figures) => string, (f: Figures) => number][] = [
  ['runs / checkpoints in the store', (f) => `${f.runs} / ${f.checkpoints}`, (f) => f.checkpoints],
  ['tree page p50 / p95 (ms, 200 top-level runs)', (f) => ms(f.tree), (f) => f.tree.p50],
  ["a run's forks p50 / p95 (ms)", (f) => ms(f.forks), (f) => f.forks.p50],
  ['`ocdb runs` wall p50 / p95 (ms, a process each)', (f) => ms(f.cliRuns), (f) => f.cliRuns.p50],
  ['debugger step at checkpoint 100 of the long run p50 / p95 (ms)', (f) => ms(f.stepStart), (f) => f.stepStart.p50],
  ['debugger step at the end of the long run p50 / p95 (ms)', (f) => ms(f.stepEnd), (f) => f.stepEnd.p50],
  ['debugger step across a seeded fork p50 / p95 (ms)', (f) => ms(f.stepSeeded), (f) => f.stepSeeded.p50],
  [
    'append under concurrent writers p50 / p95 (ms per checkpoint)',
    (f) => `${ms(f.append)} (${f.writers} processes)`,
    (f) => f.append.p50,
  ],
  ['append throughput, all writers (checkpoints/s)', (f) => fmt(f.appendsPerS, 0), (f) => f.appendsPerS],
  ['checkpoints the writers left / expected', (f) => `${f.written} / ${f.expected}`, () => NaN],
];

export async function run(): Promise<void> {
  const full = envInt(process.env.OCDB_BENCH_SCALE_RUNS, 10_000);
  const total = envInt(process.env.OCDB_BENCH_SCALE_CHECKPOINTS, 100_000);
  const growth = (process.env.OCDB_BENCH_SCALE_GROWTH ?? '1000')
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0 && n < full);
  const scales = [...growth, full];
  const keepDir = process.env.OCDB_BENCH_SCALE_KEEP;
  const dir = keepDir ?? mkdtempSync(join(tmpdir(), 'ocdb-bench-scale-'));
  mkdirSync(dir, { recursive: true });
  const pgUrl = process.env.OCDB_BENCH_PG_URL ?? process.env.OCDB_TEST_PG_URL;
  const perRun = total / full;
  process.stdout.write(`recording the template runs (~${fmt(perRun, 1)} checkpoints a run)…\n`);
  const families = await recordTemplates(perRun);
  const columns: Column[] = [];
  // every store seeded first, then every one measured: no seeding of ours runs beside a measure
  const stores: {
    engine: string;
    runs: number;
    location: string;
    settle?: () => void;
    drop: () => void;
    seeded?: Seeded;
  }[] = [];
  for (const runs of scales) {
    const location = join(dir, `runs-${runs}r-${Math.round(runs * perRun)}c.db`);
    stores.push({ engine: 'SQLite', runs, location, drop: () => undefined });
  }
  if (pgUrl) {
    for (const runs of scales) {
      const name = keepDir ? `ocdb_scale_${runs}r_${Math.round(runs * perRun)}c` : `ocdb_scale_${process.pid}_${runs}r`;
      stores.push({ engine: 'PostgreSQL', runs, ...pgDatabase(pgUrl, name, keepDir !== undefined) });
    }
  } else {
    console.log('PostgreSQL: not measured (set OCDB_BENCH_PG_URL=postgres://user:pw@host:port/db to add its column)');
  }
  try {
    for (const s of stores) {
      s.seeded = await prepare(s.location, `${s.engine} ${s.runs}`, families, s.runs);
      s.settle?.();
    }
    for (const s of stores) {
      const label = `${s.engine} ${s.runs}`;
      const f = await measure(s.location, label, families, s.runs, s.seeded as Seeded);
      columns.push({ engine: s.engine, runs: s.runs, f });
    }
  } finally {
    for (const s of stores) s.drop();
    if (!keepDir) rmSync(dir, { recursive: true, force: true });
  }
  report(columns, full);
}

function report(columns: readonly Column[], full: number): void {
  const at = (engine: string, runs: number) => columns.find((c) => c.engine === engine && c.runs === runs)?.f;
  const lite = at('SQLite', full);
  const pg = at('PostgreSQL', full);
  const line = (cells: string[]) => console.log(`| ${cells.join(' | ')} |`);
  console.log(`\nAt ${full} runs (load average ${loadAverage()}):`);
  line(['workload', 'SQLite', ...(pg ? ['PostgreSQL', 'PostgreSQL / SQLite'] : [])]);
  line(['---', '---', ...(pg ? ['---', '---'] : [])]);
  if (lite) {
    for (const [what, cell, value] of MEASURES) {
      const ratio = pg && Number.isFinite(value(pg) / value(lite)) ? fmt(value(pg) / value(lite), 2) : '';
      line([what, cell(lite), ...(pg ? [cell(pg), ratio] : [])]);
    }
    line(['seeding (set-up: s, checkpoints/s)', seeding(lite), ...(pg ? [seeding(pg), ''] : [])]);
    line(['integrity check after seeding', lite.integrity, ...(pg ? [pg.integrity, ''] : [])]);
  }
  console.log('\nCost growth (p50, ms; last column: largest store / smallest):');
  for (const engine of ['SQLite', 'PostgreSQL']) {
    const cols = columns.filter((c) => c.engine === engine);
    if (cols.length === 0) continue;
    line([engine, ...cols.map((c) => `${c.runs} runs`), 'growth']);
    line(['---', ...cols.map(() => '---'), '---']);
    for (const [what, , value] of MEASURES.slice(1, 8)) {
      const first = cols[0]?.f;
      const last = cols.at(-1)?.f;
      line([
        what.replace(/ p50 \/ p95/, ''),
        ...cols.map((c) => fmt(value(c.f) / 1000, 2)),
        first && last ? fmt(value(last) / value(first), 2) : '',
      ]);
    }
  }
}

function seeding(f: Figures): string {
  if (f.seededCheckpoints === 0) return 'kept store: nothing to seed';
  return `${fmt(f.seedS, 0)} s, ${fmt(f.seededCheckpoints / Math.max(1e-9, f.seedS), 0)}/s`;
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
}

/**
 * Shared-store benchmark: one workload on SQLite and — when OCDB_BENCH_PG_URL names a
 * PostgreSQL server (a fresh schema is made there and dropped after) — on PostgreSQL, printed side by side.
 * Everything goes through the documented front doors:
 *   - populate: OCDB_BENCH_SHARED_RUNS runs (default 1,000) holding OCDB_BENCH_SHARED_CHECKPOINTS checkpoints in
 *     all (default 10,000), recorded through the SDK (model call + tool call per step, ~1 KB messages);
 *     the scale is OCDB_BENCH_SHARED_RUNS=100000 OCDB_BENCH_SHARED_CHECKPOINTS=1000000 (hours);
 *   - tree page: `listRuns({ parentRunId: null, limit: 200 })`, what the Agent Runs view asks (p50 / p95 of 30);
 *   - a debugger step: a real `ocdb dap` process on the middle run of the store (next -> stopped -> stackTrace
 *     20 -> scopes -> variables of every scope), p50 / p95 of up to 40 steps (one run's checkpoints);
 *   - append under OCDB_BENCH_SHARED_WRITERS (default 8) writer processes at once, each recording
 *     OCDB_BENCH_SHARED_APPENDS checkpoints (default 200) through the SDK (sharedWriter.ts): latency of one
 *     checkpoint (a model call / 2), throughput, and the count in the store afterwards (nothing lost).
 * Figures only; nothing is asserted.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecorder } from '../../src/recorder';
import { openRunStore, type RunStore } from '../../src/store';
import { PgDriver } from '../../src/store/pgDriver';
import { OcdbDebugClient } from '../dap/support/dapClient';
import { testContext } from '../helpers/context';
import { assistantMessage, toolResult } from './record.bench';
import { steps as dapSteps } from './dap.bench';
import { envInt, fmt, summarize, us } from './stats';

const ROOT = join(__dirname, '..', '..');
const WRITER = join(__dirname, 'sharedWriter.ts');

interface Figures {
  runs: number;
  checkpoints: number;
  populateS: number;
  tree: ReturnType<typeof summarize>;
  step: ReturnType<typeof summarize>;
  writers: number;
  appendP50: number;
  appendP95: number;
  appendsPerS: number;
  written: number;
  expected: number;
}

/** Records `runs` runs of about `perRun` checkpoints through the SDK. */
async function populate(store: RunStore, runs: number, perRun: number): Promise<void> {
  let clock = Date.parse('2026-11-01T00:00:00Z');
  const recorder = openRecorder({ runStore: store, now: () => (clock += 7), heartbeatMs: 0, fork: false });
  const ctx = testContext();
  const steps = Math.max(1, Math.floor(perRun / 4));
  for (let i = 0; i < runs; i++) {
    const run = recorder.startRun({
      runId: `bench-${String(i).padStart(7, '0')}`,
      agentId: `agent-${i % 5}`,
      runtimeContext: ctx,
      systemPrompt: 'You are a research agent. Use the search tool, then answer.',
      messages: [{ role: 'user', content: `Task ${i}: survey the literature on replay debugging.` }],
    });
    const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { q: string; step: number }) =>
      toolResult(args.step),
    );
    for (let step = 0; step < steps; step++) {
      await run.modelCall({}, () =>
        Promise.resolve({
          message: assistantMessage(step),
          finishReason: 'tool_calls',
          usage: { inputTokens: 500 + step, outputTokens: 40 },
        }),
      );
      await search({ q: `query ${step}`, step }, { toolCallId: `call-${i}-${step}` });
    }
    run.end();
    if (i % 500 === 499) process.stdout.write(`  … ${i + 1} runs\n`);
  }
  recorder.close();
}

function treePage(store: RunStore): ReturnType<typeof summarize> {
  const samples: number[] = [];
  for (let k = 0; k < 30; k++) {
    const t = process.hrtime.bigint();
    store.listRuns({ parentRunId: null, limit: 200 });
    samples.push(us(t));
  }
  return summarize(samples);
}

/** Steps through `runId` from its first checkpoint: up to 40, never past its end. */
async function debuggerSteps(location: string, runId: string, count: number): Promise<ReturnType<typeof summarize>> {
  const dc = new OcdbDebugClient();
  dc.defaultTimeout = 600_000;
  await dc.start();
  try {
    await dc.launchAndStop({ runId, store: location, stopOnEntry: true });
    return summarize(await dapSteps(dc, Math.min(40, count - 1)));
  } finally {
    await dc.stop();
  }
}

/**
 * One sharedWriter.ts process per run id, each recording `appends` checkpoints, told to go at once once all are
 * ready; the time of each of their checkpoints (a model call is two) and the wall time from "go" to the last exit.
 * scale.bench.ts runs its writers with it too.
 */
export async function concurrentAppends(
  location: string,
  runIds: readonly string[],
  appends: number,
): Promise<{ perCheckpoint: number[]; wallUs: number }> {
  const children = runIds.map((runId) =>
    spawn(process.execPath, ['--import', 'tsx', WRITER, location, runId, String(appends)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const outputs = children.map((child, i) => {
    const runId = runIds[i] as string;
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      const check = () => (out.includes('ready\n') ? resolve() : undefined);
      child.stdout.on('data', check);
      child.once('exit', (code) => reject(new Error(`writer ${runId} exited ${code} before ready: ${err}`)));
    });
    const done = new Promise<string>((resolve, reject) =>
      child.once('exit', (code) =>
        code === 0 && out.trim().split('\n').at(-1)?.startsWith('{')
          ? resolve(out)
          : reject(new Error(`writer ${runId} exited ${code} without its figures: ${err || out}`)),
      ),
    );
    ready.catch(() => undefined);
    return { ready, done };
  });
  await Promise.all(outputs.map((o) => o.ready));
  const t0 = process.hrtime.bigint();
  for (const child of children) child.stdin.end('go\n');
  const texts = await Promise.all(outputs.map((o) => o.done));
  const wallUs = us(t0);
  const perCheckpoint = texts.flatMap((text) => {
    const { perCall } = JSON.parse(text.trim().split('\n').at(-1) ?? '{}') as { perCall: number[] };
    return perCall.map((call) => call / 2); // a model call is two checkpoints
  });
  return { perCheckpoint, wallUs };
}

async function measure(location: string, label: string): Promise<Figures> {
  const runs = envInt(process.env.OCDB_BENCH_SHARED_RUNS, 1000);
  const total = envInt(process.env.OCDB_BENCH_SHARED_CHECKPOINTS, 10_000);
  const writers = envInt(process.env.OCDB_BENCH_SHARED_WRITERS, 8);
  const appends = envInt(process.env.OCDB_BENCH_SHARED_APPENDS, 200);
  const perRun = Math.max(4, Math.floor(total / runs));
  process.stdout.write(`${label}: recording ${runs} runs of ~${perRun} checkpoints…\n`);
  const store = openRunStore(location, { create: true });
  try {
    const t0 = process.hrtime.bigint();
    await populate(store, runs, perRun);
    const populateS = us(t0) / 1e6;
    const listed = store.listRuns({ limit: 1 });
    let checkpoints = 0;
    for (let offset = 0; offset < listed.total; offset += 1000)
      for (const r of store.listRuns({ limit: 1000, offset }).runs) checkpoints += r.checkpointCount;
    const tree = treePage(store);
    const middle = `bench-${String(Math.floor(runs / 2)).padStart(7, '0')}`;
    process.stdout.write(`${label}: debugger steps on ${middle}…\n`);
    const step = await debuggerSteps(location, middle, store.getRun(middle).checkpointCount);
    process.stdout.write(`${label}: ${writers} writer processes × ${appends} checkpoints…\n`);
    const { perCheckpoint, wallUs } = await concurrentAppends(
      location,
      Array.from({ length: writers }, (_, w) => `writer-${w}`),
      appends,
    );
    let written = 0;
    for (let w = 0; w < writers; w++) written += store.getRun(`writer-${w}`).checkpointCount;
    const s = summarize(perCheckpoint);
    return {
      runs: listed.total,
      checkpoints,
      populateS,
      tree,
      step,
      writers,
      appendP50: s.p50,
      appendP95: s.p95,
      appendsPerS: perCheckpoint.length / (wallUs / 1e6),
      written,
      // each writer: two per model call, and agent_end
      expected: writers * (2 * Math.max(1, Math.floor(appends / 2)) + 1),
    };
  } finally {
    store.close();
  }
}

/** A fresh schema on the PostgreSQL server of `url` (dropped by the returned function). */
function pgSchema(url: string): { location: string; drop: () => void } {
  const schema = `bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new PgDriver({ url, location: 'the bench server' });
  admin.exec(`CREATE SCHEMA ${schema}`);
  const at = new URL(url);
  at.searchParams.set('options', `-c search_path=${schema}`);
  return {
    location: at.toString(),
    drop: () => {
      admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      admin.close();
    },
  };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-shared-'));
  const columns: { name: string; f: Figures }[] = [];
  try {
    columns.push({ name: 'SQLite', f: await measure(join(dir, 'runs.db'), 'SQLite') });
    const pgUrl = process.env.OCDB_BENCH_PG_URL;
    if (pgUrl) {
      const pg = pgSchema(pgUrl);
      try {
        columns.push({ name: 'PostgreSQL', f: await measure(pg.location, 'PostgreSQL') });
      } finally {
        pg.drop();
      }
    } else {
      console.log('PostgreSQL: not measured (set OCDB_BENCH_PG_URL=postgres://user:pw@host:port/db to add its column)');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const row = (what: string, cell: (f: Figures) => string) =>
    console.log(`| ${what} | ${columns.map((c) => cell(c.f)).join(' | ')} |`);
  console.log(`| workload | ${columns.map((c) => c.name).join(' | ')} |`);
  console.log(`| --- | ${columns.map(() => '---').join(' | ')} |`);
  row('runs / checkpoints in the store', (f) => `${f.runs} / ${f.checkpoints}`);
  row('recording them through the SDK (s)', (f) => fmt(f.populateS, 1));
  row('recording (checkpoints/s)', (f) => fmt(f.checkpoints / f.populateS, 0));
  row(
    'tree page p50 / p95 (ms, 200 top-level runs)',
    (f) => `${fmt(f.tree.p50 / 1000, 2)} / ${fmt(f.tree.p95 / 1000, 2)}`,
  );
  row('debugger step p50 / p95 (ms, ocdb dap)', (f) => `${fmt(f.step.p50 / 1000, 2)} / ${fmt(f.step.p95 / 1000, 2)}`);
  row(
    'append under concurrent writers p50 / p95 (ms per checkpoint)',
    (f) => `${fmt(f.appendP50 / 1000, 2)} / ${fmt(f.appendP95 / 1000, 2)} (${f.writers} processes)`,
  );
  row('append throughput, all writers (checkpoints/s)', (f) => fmt(f.appendsPerS, 0));
  row('checkpoints the writers left in the store / expected', (f) => `${f.written} / ${f.expected}`);
}

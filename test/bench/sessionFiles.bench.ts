/**
 * `npm run bench -- sessionFiles`: a large Claude Code session's files (largeSession.ts: made from the real fixture's
 * records — 2,000 tool calls, most of them Edits over 50 files, a shell step every 20, a Read check every 100, a
 * sub-agent), at OCDB_BENCH_SESSION_CALLS tool calls (default 1000,2000: what grows with the session shows):
 * - import (`importPath`, as `ocdb import` and opening the session in the tree do) against the floor, reading the
 *   file line by line and JSON.parse-ing each line;
 * - re-import after the file grew by 4 Edits (8 lines): it must cost the new lines, not the session — the ratio to the
 *   import, and its time at both sizes;
 * - the Files scope at the last checkpoint (what the Variables view reads: the stored files read back and the files
 *   at that checkpoint) against its peer, the same rebuilt from the run's tool calls (a store imported before);
 * - `ocdb files <run> --at [late]` and `--at [late] <path>` as a user runs them (dist/cli.js), against the floor of
 *   `ocdb --version`;
 * - restore: the plan at the last checkpoint and the files written into an empty folder;
 * - a Codex rollout of as many shell calls (largeRollout.ts, from the real Codex 0.60.1 rollout's records):
 *   re-import after it grew by 8 lines, before (its run read whole, as when the import kept no tail) and after
 *   (read from where its last import stopped).
 * OCDB_BENCH_SESSION_AGENTS picks the agents (default `claude,codex`; `codex` alone for the rollout).
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { importPath } from '../../src/importers';
import { rebuiltFileHistory, runFileHistory } from '../../src/replay/fileHistory';
import { restoreFiles, restorePlan } from '../../src/replay/fileRestore';
import { openRunStore } from '../../src/store';
import Database from 'better-sqlite3';
import { envInt } from './stats';
import { LARGE, SESSION_ID, records, writeSession } from './largeSession';
import { ROLLOUT_RUN, rolloutRecords, writeRollout } from './largeRollout';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const USAGE = join(__dirname, 'usageOnExit.cjs');
const RUN = `cc-${SESSION_ID}`;
const GROWN_LINES = 8;

const ms = (from: number) => performance.now() - from;
/** This process's CPU time since `from` (process.cpuUsage), in ms. */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};
const f0 = (n: number) => n.toFixed(0);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

/** The best of `n` runs of `fn` (ms): the machine is shared, the least disturbed run is the figure. */
function best(n: number, fn: () => void): number {
  let min = Infinity;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    min = Math.min(min, ms(t));
  }
  return min;
}

/** `ocdb …` as a user runs it, best of 3: its wall time and its CPU time (usageOnExit.cjs; a loaded machine's wall time is mostly waiting). */
function cli(args: string[]): { wall: number; cpu: number } {
  let cpu = Infinity;
  const wall = best(3, () => {
    const r = spawnSync(process.execPath, ['--require', USAGE, CLI, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ocdb ${args.join(' ')}: ${r.stderr}`);
    const usage = /OCDB_BENCH_USAGE (.*)/.exec(r.stderr)?.[1];
    cpu = Math.min(cpu, usage ? (JSON.parse(usage) as { cpuSeconds: number }).cpuSeconds * 1000 : NaN);
  });
  return { wall, cpu };
}

async function measure(calls: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-session-'));
  try {
    const { lines, subagent, edits } = records({ ...LARGE, toolCalls: calls });
    const file = writeSession(dir, lines, subagent);
    const bytes = readFileSync(file).length;
    process.stdout.write(
      `  ${calls} tool calls (${edits} Edits over ${LARGE.files} files), ${lines.length} lines, ${(bytes / (1 << 20)).toFixed(1)} MiB\n`,
    );
    const floor = best(3, () => {
      for (const l of readFileSync(file, 'utf8').split('\n')) if (l) JSON.parse(l);
    });
    const dbFile = join(dir, 'runs.db');
    let store = openRunStore(dbFile, { create: true });
    let t = performance.now();
    let c = process.cpuUsage();
    await importPath(store, file);
    const imported = ms(t);
    const importCpu = cpuMs(c);
    const cps = store.listCheckpoints(RUN).length;
    const snapshots = store.getRebuiltFiles(RUN)?.snapshots.length ?? 0;
    store.close();
    process.stdout.write(
      `  import            ${f0(imported)} ms (CPU ${f0(importCpu)} ms)   floor (read + parse) ${f0(floor)} ms   import / floor ${ratio(imported, floor)}   ${cps} checkpoints, ${snapshots} file snapshots stored\n`,
    );

    // the same session written short of its last 4 Edits, imported, then grown by them and imported again
    const grownDb = join(dir, 'grown.db');
    const partial = writeSession(join(dir), lines, subagent, lines.length - GROWN_LINES);
    store = openRunStore(grownDb, { create: true });
    await importPath(store, partial);
    appendFileSync(partial, lines.slice(-GROWN_LINES).join('\n') + '\n');
    t = performance.now();
    c = process.cpuUsage();
    const grown = await importPath(store, partial);
    const again = ms(t);
    const againCpu = cpuMs(c);
    if (grown.files[0]?.continued !== true)
      throw new Error(`the grown session was not continued: ${grown.files[0]?.reason}`);
    store.close();
    process.stdout.write(
      `  re-import (+${GROWN_LINES} lines)  ${f0(again)} ms (CPU ${f0(againCpu)} ms)   re-import / import ${ratio(againCpu, importCpu)} (CPU)\n`,
    );

    store = openRunStore(dbFile, { create: false });
    const last = cps - 1;
    let fileCount = 0;
    const scope = best(3, () => {
      fileCount = runFileHistory(store, RUN).history.filesAt(last).length;
    });
    const peer = best(3, () => void rebuiltFileHistory(store, RUN).filesAt(last));
    process.stdout.write(
      `  Files scope [${last}]  ${f0(scope)} ms (${fileCount} files)   peer (rebuilt from the calls) ${f0(peer)} ms   stored / rebuilt ${ratio(scope, peer)}\n`,
    );
    const history = runFileHistory(store, RUN).history;
    const target = join(dir, 'restored');
    let written = 0;
    const restore = best(1, () => {
      written = restoreFiles(restorePlan(history, last), target, []).written.length;
    });
    store.close();
    process.stdout.write(`  restore [${last}]     ${f0(restore)} ms (${written} files written)\n`);

    const version = cli(['--version']);
    const list = cli(['files', RUN, '--at', `[${last}]`, '--store', dbFile]);
    const one = cli(['files', RUN, '--at', `[${last}]`, 'src/module7.ts', '--store', dbFile]);
    process.stdout.write(
      `  ocdb files --at    ${f0(list.wall)} ms, CPU ${f0(list.cpu)} ms (one file: ${f0(one.wall)} ms, CPU ${f0(one.cpu)} ms)   floor (ocdb --version) ${f0(version.wall)} ms, CPU ${f0(version.cpu)} ms   CPU less the floor ${f0(list.cpu - version.cpu)} / ${f0(one.cpu - version.cpu)} ms\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The run's kept tail taken out of its metadata: the next import reads the file whole, as before the tail. */
function forgetTail(dbFile: string, runId: string): void {
  const db = new Database(dbFile);
  try {
    const row = db.prepare('SELECT metadata_json FROM runs WHERE run_id = ?').get(runId) as { metadata_json: string };
    const metadata = JSON.parse(row.metadata_json) as { source: Record<string, unknown> };
    delete metadata.source.tail;
    db.prepare('UPDATE runs SET metadata_json = ? WHERE run_id = ?').run(JSON.stringify(metadata), runId);
  } finally {
    db.close();
  }
}

/** A Codex rollout of `calls` shell calls, imported short of its last 8 lines and re-imported once they came. */
async function measureRollout(calls: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-rollout-'));
  try {
    const lines = rolloutRecords(calls);
    const bytes = Buffer.byteLength(lines.join('\n') + '\n');
    process.stdout.write(
      `  Codex rollout, ${calls} shell calls, ${lines.length} lines, ${(bytes / (1 << 20)).toFixed(1)} MiB\n`,
    );
    const figures: Record<string, { wall: number; cpu: number }> = {};
    for (const how of ['before', 'after'] as const) {
      const sub = join(dir, how);
      mkdirSync(sub);
      const file = writeRollout(sub, lines, lines.length - GROWN_LINES);
      const dbFile = join(sub, 'runs.db');
      let store = openRunStore(dbFile, { create: true });
      await importPath(store, file);
      store.close();
      if (how === 'before') forgetTail(dbFile, ROLLOUT_RUN);
      appendFileSync(file, lines.slice(-GROWN_LINES).join('\n') + '\n');
      store = openRunStore(dbFile, { create: false });
      const t = performance.now();
      const c = process.cpuUsage();
      const grown = await importPath(store, file);
      figures[how] = { wall: ms(t), cpu: cpuMs(c) };
      store.close();
      const f = grown.files[0];
      if (f?.continued !== true) throw new Error(`the grown rollout was not continued: ${f?.reason}`);
      if ((how === 'after') !== (f.readFrom !== undefined))
        throw new Error(`the ${how} re-import ${f.readFrom === undefined ? 'read the whole file' : 'read the tail'}`);
    }
    const { before, after } = figures as Record<'before' | 'after', { wall: number; cpu: number }>;
    process.stdout.write(
      `  re-import (+${GROWN_LINES} lines)  before (whole read) ${f0(before.wall)} ms (CPU ${f0(before.cpu)} ms)   after (from the kept tail) ${f0(after.wall)} ms (CPU ${f0(after.cpu)} ms)   after / before ${ratio(after.cpu, before.cpu)} (CPU)\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const sizes = (process.env.OCDB_BENCH_SESSION_CALLS ?? '1000,2000')
    .split(',')
    .map((s) => envInt(s.trim(), 0))
    .filter((n) => n > 0);
  const agents = (process.env.OCDB_BENCH_SESSION_AGENTS ?? 'claude,codex').split(',').map((a) => a.trim());
  process.stdout.write(`  load ${loadavg()[0]?.toFixed(1)}\n`);
  if (agents.includes('claude')) for (const calls of sizes) await measure(calls);
  if (agents.includes('codex')) for (const calls of sizes) await measureRollout(calls);
}

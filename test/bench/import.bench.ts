/**
 * Import benchmark: generated Claude Code transcripts (importTranscript.ts) of 5, 50
 * and 200 MiB (OCDB_BENCH_IMPORT_SIZES, MiB, comma-separated), each imported as a user imports one — `ocdb import
 * <file> --store <db>`, the built CLI (dist/cli.js, which run.ts builds first) in a process of its own, run as npm's
 * `ocdb` link runs it (the file itself, through its `#!` line) — beside the floor, reading the file line by line
 * (readline) and JSON.parse-ing each line in plain Node
 * (importFloor.mjs). Both are timed from the process's start to its exit, and their CPU time and peak resident
 * memory read at exit (usageOnExit.cjs is preloaded into the CLI). The ratios against the targets (speed ≥ 1/8 of
 * the floor's, RSS ≤ 2× the floor's) are of these figures; the speed's also of the work alone (the floor's own
 * clock against the import's time less `ocdb --version`'s), so neither start-up flatters a small file.
 *
 * Then the same import through `importPath` in a child whose heap is capped at 192 MiB (importWorker.ts) — less
 * than a 50 MiB file takes as strings plus its parsed tree, so finishing shows it streams — with its time, the
 * checkpoints and tool calls written, and the store's size against the transcript's; then the in-process floor of
 * the 50 MiB file (the figure earlier versions of this bench printed). Then the same for transcripts of
 * OCDB_BENCH_IMPORT_SCREENSHOT_SIZES (MiB, default 50) whose tool reads a screenshot every 25th round (a ~300 KB
 * base64 image in the result and again in its toolUseResult), as sessions that look at pages or pictures hold.
 *
 * Earlier versions ran the floor under the same TypeScript loader and heap cap as the capped import and read the
 * targets off those two: the loader alone added ~25 MiB to the floor's resident memory, and the cap kept the
 * import's heap smaller than a user's is, so the RSS ratio read 1.9 where a user's is 2.3 to 5.5.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { linkEnv } from '../helpers/linkEnv';
import { writeTranscript } from './importTranscript';
import { fmt, kb } from './stats';

const sizes = (env: string | undefined, dflt: string): number[] =>
  (env ?? dflt)
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isFinite(n) && n > 0);
const SIZES_MIB = sizes(process.env.OCDB_BENCH_IMPORT_SIZES, '5,50,200');
const SCREENSHOT_SIZES_MIB = sizes(process.env.OCDB_BENCH_IMPORT_SCREENSHOT_SIZES, '50');
const SCREENSHOT_EVERY = 25;
const HEAP_CAP_MIB = 192;
const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const SPEED_TARGET = 1 / 8;
const RSS_TARGET = 2;

interface ChildFigures {
  seconds: number;
  cpuSeconds: number;
  maxRssMiB: number;
}

interface ImportFigures extends ChildFigures {
  heapUsedMiB: number;
  checkpoints: number;
  toolCalls: number;
}

/** Runs a bench child (same flags for the floor and the import) and reads the JSON line it prints. */
function child<T>(script: string, args: string[]): T | { failed: string } {
  try {
    const out = execFileSync(
      process.execPath,
      [`--max-old-space-size=${HEAP_CAP_MIB}`, '--import', 'tsx', join(__dirname, script), ...args],
      { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return JSON.parse(out) as T;
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? '');
    const why = /heap out of memory/i.test(stderr)
      ? `ran out of heap (${HEAP_CAP_MIB} MiB)`
      : (stderr.trim().split('\n').at(-1) ?? String(e));
    return { failed: why };
  }
}

/**
 * Runs `args` as a user would: a script in plain Node (no loader, no flags), or `ocdb` (`cli`: the built CLI run as
 * npm's link runs it, the file itself through its `#!` line, with usageOnExit.cjs preloaded by
 * NODE_OPTIONS), timed from spawn to exit; CPU time and peak RSS as the process read them at exit (`usage`: from its
 * stdout, or from the line usageOnExit.cjs writes to stderr).
 */
function userProcess(
  args: string[],
  usage: 'stdout' | 'stderr',
  cli = false,
): (ChildFigures & { ownSeconds?: number }) | { failed: string } {
  const t0 = performance.now();
  const r = cli
    ? spawnSync(CLI, args, {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
        env: linkEnv({ NODE_OPTIONS: `--require ${JSON.stringify(join(__dirname, 'usageOnExit.cjs'))}` }),
      })
    : spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  const seconds = (performance.now() - t0) / 1000;
  const stderr = r.stderr ?? '';
  if (r.status !== 0) return { failed: stderr.trim().split('\n').at(-1) ?? `exit ${String(r.status)}` };
  const text = usage === 'stdout' ? r.stdout : (/^OCDB_BENCH_USAGE (.*)$/m.exec(stderr)?.[1] ?? '');
  try {
    const figures = JSON.parse(text) as { cpuSeconds: number; maxRssMiB: number; seconds?: number };
    return {
      seconds,
      cpuSeconds: figures.cpuSeconds,
      maxRssMiB: figures.maxRssMiB,
      ...(figures.seconds !== undefined ? { ownSeconds: figures.seconds } : {}),
    };
  } catch {
    return { failed: `no figures in its output: ${text.slice(0, 200)}` };
  }
}

/**
 * Seconds `ocdb` takes to start and exit doing nothing (`--version`), median of 3: what an import's time holds besides
 * the import.
 */
function cliStartup(): number {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = userProcess(['--version'], 'stderr', true);
    if ('failed' in r) throw new Error(`ocdb --version failed: ${r.failed}`);
    times.push(r.seconds);
  }
  return times.sort((a, b) => a - b)[1] as number;
}

/** Wall and CPU seconds of reading `file` line by line and JSON.parse-ing each line, in this process. */
async function inProcessFloor(file: string): Promise<{ seconds: number; cpuSeconds: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let n = 0;
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line !== '') n += (JSON.parse(line) as { type?: string }).type ? 1 : 0;
  }
  if (n === 0) throw new Error('no lines parsed');
  const cpu = process.cpuUsage(c0);
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function measure(dir: string, sizeMiB: number, startup: number, screenshotEvery?: number): Promise<string[]> {
  const file = join(dir, `session-${sizeMiB}${screenshotEvery ? '-shots' : ''}.jsonl`);
  const db = join(dir, `runs-${sizeMiB}.db`);
  const written = await writeTranscript(file, sizeMiB * 2 ** 20, { screenshotEvery });
  // On disk before either reads it, as a user's transcript is: not written back while the import runs
  const fd = openSync(file, 'r+');
  fsyncSync(fd);
  closeSync(fd);
  const mb = written.bytes / 2 ** 20;
  const what = screenshotEvery ? ` with a screenshot every ${screenshotEvery} rounds` : '';
  const lines = [
    `${fmt(sizeMiB, 0)} MiB transcript${what}: ${kb(written.bytes)}, ${written.lines} lines (load average ${load()})`,
  ];
  const floor = userProcess([join(__dirname, 'importFloor.mjs'), file], 'stdout');
  const user = userProcess(['import', file, '--store', db], 'stderr', true);
  for (const x of ['', '-wal', '-shm']) rmSync(db + x, { force: true });
  const r = child<ImportFigures>('importWorker.ts', [file, db]);
  if ('failed' in floor) {
    lines.push(`  floor failed: ${floor.failed}`);
    return lines;
  }
  lines.push(
    `  floor (readline + JSON.parse per line, plain node, start to exit): ${fmt(floor.seconds, 2)} s = ${fmt(mb / floor.seconds)} MB/s; ${fmt(floor.cpuSeconds, 2)} CPU s; peak RSS ${fmt(floor.maxRssMiB)} MiB`,
  );
  if ('failed' in user) {
    lines.push(`  ocdb import failed: ${user.failed}`);
  } else {
    lines.push(
      `  ocdb import (dist/cli.js through its #! line, start to exit): ${fmt(user.seconds, 2)} s = ${fmt(mb / user.seconds, 2)} MB/s; ${fmt(user.cpuSeconds, 2)} CPU s (${fmt(user.cpuSeconds / floor.cpuSeconds)}x the floor's CPU); peak RSS ${fmt(user.maxRssMiB)} MiB`,
      `  ratio import/floor speed, start to exit (target ≥ ${fmt(SPEED_TARGET, 3)}): ${fmt(floor.seconds / user.seconds, 3)}; CPU: ${fmt(floor.cpuSeconds / user.cpuSeconds, 3)}`,
      `  ratio import/floor speed, the work alone (the floor's own clock; the import less ocdb's ${fmt(startup, 2)} s start-up): ${fmt((floor.ownSeconds ?? floor.seconds) / (user.seconds - startup), 3)}`,
      `  ratio import/floor peak RSS (target ≤ ${RSS_TARGET}): ${fmt(user.maxRssMiB / floor.maxRssMiB, 2)}`,
    );
  }
  if ('failed' in r) {
    lines.push(`  importPath, heap capped at ${HEAP_CAP_MIB} MiB, failed: ${r.failed}`);
    return lines;
  }
  const storeBytes = statSync(db).size + (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);
  lines.push(
    `  importPath in a child, heap capped at ${HEAP_CAP_MIB} MiB (it streams): ${fmt(r.seconds, 2)} s = ${fmt(mb / r.seconds, 2)} MB/s (import alone); peak RSS ${fmt(r.maxRssMiB)} MiB`,
    `    ${r.checkpoints} checkpoints, ${r.toolCalls} tool calls written in one transaction; store ${kb(storeBytes)} = ${fmt(storeBytes / written.bytes, 2)}x the transcript (target ≤ 1)`,
  );
  rmSync(db, { force: true });
  rmSync(`${db}-wal`, { force: true });
  if (sizeMiB === 50 && !screenshotEvery) {
    const inProc = await inProcessFloor(file);
    lines.push(
      `  in-process floor (warm bench process, as this bench printed before): ${fmt(inProc.seconds, 2)} s wall = ${fmt(mb / inProc.seconds)} MB/s; import/floor ${fmt(inProc.seconds / r.seconds, 3)}`,
    );
  }
  rmSync(file, { force: true });
  return lines;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-import-'));
  try {
    const startup = cliStartup();
    for (const size of SIZES_MIB) process.stdout.write((await measure(dir, size, startup)).join('\n') + '\n');
    for (const size of SCREENSHOT_SIZES_MIB) {
      process.stdout.write((await measure(dir, size, startup, SCREENSHOT_EVERY)).join('\n') + '\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

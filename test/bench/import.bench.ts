/**
 * Import benchmark (issue 6, issue 11 item 6): generated Claude Code transcripts (importTranscript.ts) of 5, 50
 * and 200 MiB (OCDB_BENCH_IMPORT_SIZES, MiB, comma-separated), each imported by `importPath` in a child process
 * whose heap is capped at 192 MiB (importWorker.ts) — less than a 50 MiB file takes as strings plus its parsed
 * tree, so finishing shows it streams — beside the floor measured the same way in a child started with the same
 * flags (importFloor.ts: readline + JSON.parse per line, nothing kept). Prints, per size, MB/s and peak RSS of
 * both, the ratios against the targets (speed ≥ 1/8 of the floor's, RSS ≤ 2× the floor's), the checkpoints and
 * tool calls written, and the store's size against the transcript's; then the in-process floor of the 50 MiB file
 * (the figure earlier versions of this bench printed). Then the same for transcripts of
 * OCDB_BENCH_IMPORT_SCREENSHOT_SIZES (MiB, default 50) whose tool reads a screenshot every 25th round (a ~300 KB
 * base64 image in the result and again in its toolUseResult), as sessions that look at pages or pictures hold.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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

async function measure(dir: string, sizeMiB: number, screenshotEvery?: number): Promise<string[]> {
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
  const floor = child<ChildFigures>('importFloor.ts', [file]);
  const r = child<ImportFigures>('importWorker.ts', [file, db]);
  if ('failed' in floor) {
    lines.push(`  floor failed: ${floor.failed}`);
    return lines;
  }
  lines.push(
    `  floor (readline + JSON.parse per line, child): ${fmt(floor.seconds, 2)} s wall = ${fmt(mb / floor.seconds)} MB/s; ${fmt(floor.cpuSeconds, 2)} CPU s; peak RSS ${fmt(floor.maxRssMiB)} MiB`,
  );
  if ('failed' in r) {
    lines.push(`  ocdb import failed: ${r.failed}`);
    return lines;
  }
  const storeBytes = statSync(db).size + (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);
  lines.push(
    `  ocdb import (parse, map, write the store): ${fmt(r.seconds, 2)} s wall = ${fmt(mb / r.seconds, 2)} MB/s; ${fmt(r.cpuSeconds, 2)} CPU s (${fmt(r.cpuSeconds / floor.cpuSeconds)}x the floor's CPU); peak RSS ${fmt(r.maxRssMiB)} MiB (heap capped at ${HEAP_CAP_MIB} MiB)`,
    `    ${r.checkpoints} checkpoints, ${r.toolCalls} tool calls written in one transaction; store ${kb(storeBytes)} = ${fmt(storeBytes / written.bytes, 2)}x the transcript (target ≤ 1)`,
    `  ratio import/floor speed, wall (target ≥ ${fmt(SPEED_TARGET, 3)}): ${fmt(floor.seconds / r.seconds, 3)}; CPU: ${fmt(floor.cpuSeconds / r.cpuSeconds, 3)}`,
    `  ratio import/floor peak RSS (target ≤ ${RSS_TARGET}): ${fmt(r.maxRssMiB / floor.maxRssMiB, 2)}`,
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
    for (const size of SIZES_MIB) process.stdout.write((await measure(dir, size)).join('\n') + '\n');
    for (const size of SCREENSHOT_SIZES_MIB) {
      process.stdout.write((await measure(dir, size, SCREENSHOT_EVERY)).join('\n') + '\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

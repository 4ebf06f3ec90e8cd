/**
 * Import benchmark (issue 6): a generated 50 MB Claude Code transcript
 * (importTranscript.ts) imported by `importPath` in a child process whose
 * heap is capped at 192 MiB — less than the file would take as one string
 * (100 MiB of UTF-16) plus its parsed tree, so finishing shows it streams —
 * beside the floor: reading the same file line by line and JSON.parse-ing
 * each line. Prints MB/s of both, the import's checkpoints and tool calls,
 * and its peak resident memory.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { writeTranscript } from './importTranscript';
import { fmt, kb } from './stats';

const SIZE = 50 * 2 ** 20;
const HEAP_CAP_MIB = 192;

/** Wall and CPU seconds of reading `file` line by line and JSON.parse-ing each line. */
async function parseFloor(file: string): Promise<{ seconds: number; cpuSeconds: number }> {
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

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-import-'));
  try {
    const file = join(dir, 'session.jsonl');
    const written = await writeTranscript(file, SIZE);
    const mb = written.bytes / 2 ** 20;
    const floor = await parseFloor(file);
    const out = execFileSync(
      process.execPath,
      [
        `--max-old-space-size=${HEAP_CAP_MIB}`,
        '--import',
        'tsx',
        join(__dirname, 'importWorker.ts'),
        file,
        join(dir, 'runs.db'),
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    const r = JSON.parse(out) as {
      seconds: number;
      cpuSeconds: number;
      maxRssMiB: number;
      heapUsedMiB: number;
      checkpoints: number;
      toolCalls: number;
    };
    const db = join(dir, 'runs.db');
    const storeBytes = statSync(db).size + (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);
    process.stdout.write(
      [
        `transcript: ${kb(written.bytes)}, ${written.lines} lines`,
        `floor (readline + JSON.parse per line): ${fmt(floor.seconds, 2)} s wall = ${fmt(mb / floor.seconds)} MB/s; ${fmt(floor.cpuSeconds, 2)} CPU s = ${fmt(mb / floor.cpuSeconds)} MB per CPU s`,
        `ocdb import (parse, map, write the store): ${fmt(r.seconds, 2)} s wall = ${fmt(mb / r.seconds, 2)} MB/s; ${fmt(r.cpuSeconds, 2)} CPU s = ${fmt(mb / r.cpuSeconds, 2)} MB per CPU s (${fmt(r.cpuSeconds / floor.cpuSeconds)}x the floor's CPU)`,
        `  ${r.checkpoints} checkpoints, ${r.toolCalls} tool calls written in one transaction`,
        `peak memory of the import process: ${fmt(r.maxRssMiB)} MiB RSS (heap capped at ${HEAP_CAP_MIB} MiB; file ${fmt(mb)} MiB)`,
        `store after the import: ${kb(storeBytes)} = ${fmt(storeBytes / written.bytes, 2)}x the transcript (target ≤ 1)`,
        `ratio import/floor speed, wall (target ≥ 1/8 = 0.125): ${fmt(floor.seconds / r.seconds, 3)}`,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

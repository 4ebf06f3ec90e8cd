/**
 * Import benchmark (issue 6): a generated 50 MB Claude Code transcript
 * (importTranscript.ts) imported by `importPath` in a child process whose
 * heap is capped at 512 MiB, beside the floor — reading the same file line
 * by line and JSON.parse-ing each line. Prints MB/s of both, the import's
 * checkpoints and tool calls, and its peak resident memory.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { writeTranscript } from './importTranscript';
import { fmt, kb } from './stats';

const SIZE = 50 * 2 ** 20;
const HEAP_CAP_MIB = 512;

async function parseFloor(file: string): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line !== '') n += (JSON.parse(line) as { type?: string }).type ? 1 : 0;
  }
  if (n === 0) throw new Error('no lines parsed');
  return (performance.now() - t0) / 1000;
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
      maxRssMiB: number;
      heapUsedMiB: number;
      checkpoints: number;
      toolCalls: number;
    };
    process.stdout.write(
      [
        `transcript: ${kb(written.bytes)}, ${written.lines} lines`,
        `floor (readline + JSON.parse per line): ${fmt(floor, 2)} s = ${fmt(mb / floor)} MB/s`,
        `ocdb import (parse, map, write the store): ${fmt(r.seconds, 2)} s = ${fmt(mb / r.seconds)} MB/s (${fmt(r.seconds / floor)}x the floor)`,
        `  ${r.checkpoints} checkpoints, ${r.toolCalls} tool calls written in one transaction`,
        `peak memory of the import process: ${fmt(r.maxRssMiB)} MiB RSS (heap capped at ${HEAP_CAP_MIB} MiB; file ${fmt(mb)} MiB)`,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

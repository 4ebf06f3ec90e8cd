/**
 * Child process of import.bench.ts: imports one file into a fresh store and
 * prints `{ seconds, cpuSeconds, maxRssMiB, heapUsedMiB, runs, checkpoints, toolCalls }`
 * as JSON, so the parent can cap the heap (--max-old-space-size) and read the
 * peak resident memory of the import alone.
 */
import { importPath } from '../../src/importers';
import { openRunStore } from '../../src/store';

async function main(): Promise<void> {
  const [file, db] = process.argv.slice(2) as [string, string];
  const store = openRunStore(db, { create: true });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const summary = await importPath(store, file);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const f = summary.files[0];
  if (f?.outcome !== 'imported') throw new Error(`import failed: ${f?.reason}`);
  store.close();
  process.stdout.write(
    JSON.stringify({
      seconds,
      cpuSeconds,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
      heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20,
      runs: f.runs.length,
      checkpoints: f.runs.reduce((a, r) => a + r.checkpointCount, 0),
      toolCalls: f.runs.reduce((a, r) => a + r.toolCallCount, 0),
    }) + '\n',
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});

/**
 * `npm run bench`: runs every test/bench/*.bench.ts (each exports `run()`
 * printing its figures), or only those named on the command line, after building dist/ (esbuild.mjs).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
    .sort();
  // The benches that run `ocdb` as a user does (dist/cli.js: dap, import, scale) measure this checkout's code
  execFileSync(process.execPath, [join(__dirname, '..', '..', 'esbuild.mjs')], {
    cwd: join(__dirname, '..', '..'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (const file of files) {
    process.stdout.write(`\n=== ${file.replace(/\.bench\.ts$/, '')} ===\n`);
    const mod = (await import(join(__dirname, file))) as { run?: () => Promise<void> };
    if (typeof mod.run !== 'function') throw new Error(`${file} exports no run()`);
    await mod.run();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});

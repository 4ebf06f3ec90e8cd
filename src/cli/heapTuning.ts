/**
 * `ocdb import` — a command that streams a whole file through one process — keeps V8's heap within a quarter of
 * what is live after each full collection (`--heap-growing-percent=25`), where V8 let it grow to about four times
 * that: collection is so cheap in an import (under 1 % of its time) that V8 saw no reason to collect sooner. Set when
 * the process starts (this module is main.ts's first import). Peak RSS of a 200 MiB Claude Code transcript's import
 * 364 → 229 MiB, of a 50 MiB one ~240 → ~178 MiB, 3–10 % slower (`npm run bench -- import`).
 *
 * And it stops V8 growing the young generation once it is past 4 MiB a semi-space (`--semi-space-growth-factor=1`
 * from then on), where V8 grows it to 16: the first collection reported finds it at 8. A cap set when the process
 * starts (`--max-semi-space-size`) would need flags on the bundle's `#!` line, `#!/usr/bin/env -S node …`, which
 * BusyBox's env (Alpine Linux, the node:alpine images) and the BSDs' refuse: `ocdb` would not start there at all.
 * Measured interleaved on one machine, 50 MiB transcript: peak RSS 178 → 133 MiB, 2.45 → 2.78 s; 200 MiB: 228 →
 * 182 MiB, 9.35 → 10.8 s (more objects outlive a smaller young generation, are promoted, and are marked again by the
 * full collections the 25 % makes frequent). Freezing it at its first 1 MiB (growth factor 1 from the start) peaked
 * at ~122 MiB but took 27 % longer.
 *
 * Only when this file is the process's CLI (`dist/cli.js`): `runCli` called by a test or an extension host shares
 * its heap.
 */
import { basename } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

const HEAP_TUNED_COMMANDS = new Set(['import']);

// the built CLI run by node (through the `ocdb` link too: the main module's path is the file's own)
const main = require.main?.filename;
if (main !== undefined && basename(main) === 'cli.js' && HEAP_TUNED_COMMANDS.has(process.argv[2] ?? '')) {
  setFlagsFromString('--heap-growing-percent=25');
  stopYoungGrowthPast(4 * 1024 * 1024);
}

/** Stops V8 growing the young generation at the first collection that finds it at `bytes` a semi-space or more. */
function stopYoungGrowthPast(bytes: number): void {
  const collections = new PerformanceObserver(() => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (young === undefined || young.space_size < bytes) return;
    setFlagsFromString('--semi-space-growth-factor=1');
    collections.disconnect();
  });
  collections.observe({ entryTypes: ['gc'] });
}

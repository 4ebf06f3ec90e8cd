/**
 * `ocdb import` — a command that streams a whole file through one process — keeps V8's heap within a quarter of
 * what is live after each full collection (`--heap-growing-percent=25`), where V8 let it grow to about four times
 * that: collection is so cheap in an import (under 1 % of its time) that V8 saw no reason to collect sooner. Set when
 * the process starts (this module is main.ts's first import). Peak RSS of a 200 MiB Claude Code transcript's import
 * 364 → 229 MiB, of a 50 MiB one ~240 → ~178 MiB, 3–10 % slower (issue 11, item 6).
 *
 * The young generation's cap is not here: V8 reads `--max-semi-space-size` only as the process starts, so it is on
 * the bundle's `#!` line (esbuild.mjs), which npm's `ocdb` link (and its Windows shim) runs — every command gets it.
 * 4 MiB a semi-space instead of the 16 V8 grows it to. Measured interleaved on one machine, without → with:
 *   5 MiB transcript   peak RSS 126 → 101 MiB, 0.52 s either way;
 *   50 MiB             173 → 134 MiB, 2.66 → 2.95 s (+11 %; CPU 3.28 → 3.72 s);
 *   200 MiB            228 → 186 MiB, 9.35 → 10.8 s (+16 %; CPU 11.2 → 13.9 s).
 * The time is not the scavenges' pauses alone (50 MiB: 171 → 240 ms): more objects outlive a small young generation,
 * so more are promoted and marked again by the full collections this file's 25 % lets happen sooner. Without this
 * file's growing percent the cap costs nothing (2.45 s at 50 MiB) but the heap grows back (210 MiB); with 50 % a
 * 50 MiB import takes 2.69 s at 139 MiB, a 200 MiB one 199 MiB — over twice the floor's. 2 MiB a semi-space saved ~8
 * MiB more for more time again.
 * `node dist/cli.js` (a clone run without the link) gets the growing percent here but not the cap.
 *
 * Only when this file is the process's CLI (`dist/cli.js`): `runCli` called by a test or an extension host shares
 * its heap.
 */
import { basename } from 'node:path';
import { setFlagsFromString } from 'node:v8';

const HEAP_TUNED_COMMANDS = new Set(['import']);

// the built CLI run by node (through the `ocdb` link too: the main module's path is the file's own)
const main = require.main?.filename;
if (main !== undefined && basename(main) === 'cli.js' && HEAP_TUNED_COMMANDS.has(process.argv[2] ?? '')) {
  setFlagsFromString('--heap-growing-percent=25');
}

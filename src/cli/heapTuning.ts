/**
 * `ocdb import` — a command that streams a whole file through one process — keeps V8's heap within a quarter of
 * what is live after each full collection (`--heap-growing-percent=25`), where V8 let it grow to about four times
 * that: collection is so cheap in an import (under 1 % of its time) that V8 saw no reason to collect sooner. Set when
 * the process starts (this module is main.ts's first import). Peak RSS of a 200 MiB Claude Code transcript's import
 * 364 → 229 MiB, of a 50 MiB one ~240 → ~178 MiB, 3–10 % slower (issue 11, item 6).
 *
 * The young generation's cap is not here: V8 reads `--max-semi-space-size` only as the process starts, so it is on
 * the bundle's `#!` line (esbuild.mjs), which npm's `ocdb` link (and its Windows shim) runs — every command gets it.
 * 4 MiB a semi-space instead of the 16 V8 grows it to: peak RSS of a 50 MiB import ~178 → ~137 MiB, of a 5 MiB one
 * ~130 → ~105, of a 200 MiB one ~225 → ~187. It costs more scavenges (main-thread GC pauses of a 50 MiB import
 * 450 → 563 ms, of a 200 MiB one 1.5 → 2.6 s: 1–3 % of their time). 2 MiB saved ~8 MiB more but cost 6 % at
 * 200 MiB; letting the young generation never grow (`--semi-space-growth-factor=1`, settable here) cost 20 %.
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

/**
 * `ocdb import` — a command that streams a whole file through one process — keeps V8's heap within a quarter of
 * what is live after each full collection (`--heap-growing-percent=25`), where V8 let it grow to about four times
 * that: collection is so cheap in an import (under 1 % of its time) that V8 saw no reason to collect sooner. Set when
 * the process starts (this module is main.ts's first import). Peak RSS of a 200 MiB Claude Code transcript's import
 * 364 → 229 MiB, of a 50 MiB one ~240 → ~178 MiB, 3–10 % slower (issue 11, item 6).
 *
 * Not the young generation's growth too (`--semi-space-growth-factor=1`, which would keep it at 1 MiB a semi-space
 * instead of 16): a 50 MiB import then peaked at ~124 MiB, but took 20 % longer. Only when this file is the
 * process's CLI (`dist/cli.js` run by node): `runCli` called by a test or an extension host shares its heap.
 */
import { basename } from 'node:path';
import { setFlagsFromString } from 'node:v8';

const HEAP_TUNED_COMMANDS = new Set(['import']);

// the built CLI run by node (through the `ocdb` link too: the main module's path is the file's own)
const main = require.main?.filename;
if (main !== undefined && basename(main) === 'cli.js' && HEAP_TUNED_COMMANDS.has(process.argv[2] ?? '')) {
  setFlagsFromString('--heap-growing-percent=25');
}

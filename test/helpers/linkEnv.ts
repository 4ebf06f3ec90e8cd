/** Running the built `ocdb` as npm's link does: the file itself, through its `#!/usr/bin/env node` line. */
import { delimiter, dirname } from 'node:path';

/**
 * The environment in which `dist/cli.js` run as a program starts under this Node: `env` finds `node` on PATH, as a
 * shell does, so this one goes first.
 */
export function linkEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, ...extra };
}

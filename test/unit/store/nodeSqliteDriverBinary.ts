/**
 * A Node 22 binary for the node:sqlite driver tests: the npm package `node@22` (a real Node build from the npm
 * registry) installed on first use into .cache/node22 — not as a devDependency, because its `node` bin would then
 * shadow Node 20 in every npm script. OCDB_NODE22 points at another binary instead. Throws when none can be had.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const NODE22_VERSION = '22.23.3';
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const CACHE = path.join(REPO_ROOT, '.cache', 'node22');
const BIN = path.join(CACHE, 'node_modules', 'node', 'bin', 'node');

function versionOf(bin: string): string | undefined {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Path of a Node 22 executable, installing `node@22` into .cache/node22 when missing. */
export function node22Binary(): string {
  const override = process.env.OCDB_NODE22;
  if (override) {
    if (!versionOf(override)?.startsWith('v22.')) throw new Error(`OCDB_NODE22=${override} is not a Node 22 binary`);
    return override;
  }
  if (versionOf(BIN) === `v${NODE22_VERSION}`) return BIN;
  fs.mkdirSync(CACHE, { recursive: true });
  const pkg = path.join(CACHE, 'package.json');
  if (!fs.existsSync(pkg)) fs.writeFileSync(pkg, '{ "name": "ocdb-node22-cache", "private": true }\n');
  const r = spawnSync(
    'flock',
    [
      path.join(CACHE, '.install.lock'),
      'npm',
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `node@${NODE22_VERSION}`,
    ],
    { cwd: CACHE, encoding: 'utf8' },
  );
  if (r.status !== 0 || versionOf(BIN) !== `v${NODE22_VERSION}`) {
    throw new Error(
      `could not install node@${NODE22_VERSION} into ${CACHE} (exit ${r.status}):\n${r.stdout}${r.stderr}`,
    );
  }
  return BIN;
}

/**
 * Node runtimes other than the one running the tests, fetched from the npm registry on first use: the package
 * `node-<platform>-<arch>` (what the `node` package installs) holds a real Node build with its headers. Installed into
 * .cache/node-<version>/ — not as a devDependency, whose `node` bin would shadow this Node in every npm script.
 * The VS Code harness runs code-server on the Node a VS Code release ships, and the driver tests run the store under
 * those Nodes. Must not depend on src/.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CACHE = path.join(REPO_ROOT, '.cache');

/**
 * The Nodes the supported VS Code releases ship: 22.17.0 in 1.103 (the oldest release this extension supports,
 * engines.vscode), 22.22.1 in the last 1.12x releases on Node 22, 24.21.0 in a current one (1.139).
 */
export const NODE_OF_OLDEST_VSCODE = '22.17.0';
export const NODE_22_LATEST = '22.22.1';
export const NODE_OF_CURRENT_VSCODE = '24.21.0';
export const EXTENSION_HOST_NODES = [NODE_OF_OLDEST_VSCODE, NODE_22_LATEST, NODE_OF_CURRENT_VSCODE] as const;

/**
 * The folder of an installed Node (bin/node, include/node): what npm_config_nodedir names for native builds;
 * undefined for this Node, whose headers npm already knows.
 */
export function nodeDir(version: string): string | undefined {
  if (version === process.versions.node) return undefined;
  return path.join(CACHE, `node-${version}`, 'node_modules', `node-${process.platform}-${process.arch}`);
}

function versionOf(bin: string): string | undefined {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * Path of the Node `version` executable: this one when it is that version, else installed on first use (a
 * concurrent caller waits on a lock).
 */
export function ensureNode(version: string): string {
  if (version === process.versions.node) return process.execPath;
  const bin = path.join(nodeDir(version) ?? '', 'bin', 'node');
  if (versionOf(bin) === `v${version}`) return bin;
  const dir = path.join(CACHE, `node-${version}`);
  fs.mkdirSync(dir, { recursive: true });
  const pkg = path.join(dir, 'package.json');
  if (!fs.existsSync(pkg)) fs.writeFileSync(pkg, '{ "name": "ocdb-node-cache", "private": true }\n');
  const started = Date.now();
  process.stderr.write(`[node] installing Node ${version} into ${dir} (first use)\n`);
  const r = spawnSync(
    'flock',
    [
      path.join(dir, '.install.lock'),
      'npm',
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `node-${process.platform}-${process.arch}@${version}`,
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  if (r.status !== 0 || versionOf(bin) !== `v${version}`) {
    throw new Error(`could not install Node ${version} into ${dir} (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
  process.stderr.write(`[node] Node ${version} installed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return bin;
}

/**
 * Installs code-server (VS Code 1.100.3's workbench and server, see shared VSCODE-OFFLINE.md) into a cache folder on
 * first use and finds the system tools the VS Code tests need (Debian's chromium, ripgrep, libkrb5-dev). Idempotent:
 * when the pinned version is already installed this costs one stat. Must not depend on src/ or the extension.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const CODE_SERVER_VERSION = '4.100.3';
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Where code-server is installed; OCDB_CODE_SERVER_DIR overrides (e.g. a CI cache). */
export const CODE_SERVER_DIR = process.env.OCDB_CODE_SERVER_DIR ?? path.join(REPO_ROOT, '.cache', 'code-server');
export const CHROMIUM = process.env.OCDB_CHROMIUM ?? '/usr/bin/chromium';

/** @vscode/ripgrep's postinstall looks here before downloading from GitHub (unreachable here). */
const RIPGREP_CACHE = path.join(
  os.tmpdir(),
  'vscode-ripgrep-cache-1.15.11',
  'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz',
);
const DEBIAN_PACKAGES: { pkg: string; present: () => boolean }[] = [
  { pkg: 'libkrb5-dev', present: () => fs.existsSync('/usr/include/gssapi/gssapi.h') },
  { pkg: 'ripgrep', present: () => fs.existsSync('/usr/bin/rg') },
  { pkg: 'chromium', present: () => fs.existsSync(CHROMIUM) },
  { pkg: 'unzip', present: () => fs.existsSync('/usr/bin/unzip') },
  // the shared-store suite (suite/sharedStore.vtest.ts) runs on a throwaway PostgreSQL (test/support/pgCluster.sh)
  { pkg: 'postgresql', present: () => fs.existsSync('/usr/lib/postgresql') },
];

const log = (msg: string): void => void process.stderr.write(`[code-server] ${msg}\n`);

function binPath(dir: string): string {
  return path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}
function marker(dir: string): string {
  return path.join(dir, `.installed-${CODE_SERVER_VERSION}`);
}

/** Installs missing Debian packages when running as root; otherwise says what to install. */
export function ensureSystemPackages(): void {
  const missing = DEBIAN_PACKAGES.filter((p) => !p.present()).map((p) => p.pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `missing Debian packages: ${missing.join(' ')} — install them with: sudo apt-get install -y ${missing.join(' ')}`,
    );
  }
  log(`apt-get install ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args: string[]): void => {
    const r = spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${r.status})`);
  };
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', ...missing]);
}

/** Packs /usr/bin/rg as the archive @vscode/ripgrep's postinstall would otherwise download. */
function ensureRipgrepCache(): void {
  if (fs.existsSync(RIPGREP_CACHE)) return;
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-'));
  fs.copyFileSync('/usr/bin/rg', path.join(staging, 'rg'));
  fs.chmodSync(path.join(staging, 'rg'), 0o755);
  fs.mkdirSync(path.dirname(RIPGREP_CACHE), { recursive: true });
  const tmp = `${RIPGREP_CACHE}.${process.pid}`;
  execFileSync('tar', ['czf', tmp, '-C', staging, 'rg']);
  fs.renameSync(tmp, RIPGREP_CACHE);
  fs.rmSync(staging, { recursive: true, force: true });
}

/**
 * Returns the path of code-server's entry script (run it with Node 20), installing it on first use.
 * A concurrent second caller waits on a lock file rather than installing twice.
 */
export function ensureCodeServer(dir = CODE_SERVER_DIR): string {
  if (fs.existsSync(marker(dir)) && fs.existsSync(binPath(dir))) return binPath(dir);
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== 20) {
    throw new Error(`code-server@${CODE_SERVER_VERSION} installs only under Node 20 (this is Node ${process.version})`);
  }
  ensureSystemPackages();
  ensureRipgrepCache();
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, '.install.lock');
  // flock serialises two test runs installing at once; the second finds the marker and returns.
  const script = `test -f '${marker(dir)}' && exit 0; npm install --unsafe-perm --no-audit --no-fund --loglevel=error code-server@${CODE_SERVER_VERSION} && touch '${marker(dir)}'`;
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'ocdb-code-server-cache', private: true }, null, 2) + '\n',
    );
  }
  const started = Date.now();
  log(`installing code-server@${CODE_SERVER_VERSION} into ${dir} (first use, ~2 minutes)`);
  const env = {
    ...process.env,
    npm_config_yes: 'true',
    // Node 20 first on PATH: code-server's postinstall refuses other majors.
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  const r = spawnSync('flock', [lock, 'sh', '-c', script], { cwd: dir, stdio: 'inherit', env });
  if (r.status !== 0 || !fs.existsSync(binPath(dir))) {
    throw new Error(`installing code-server@${CODE_SERVER_VERSION} into ${dir} failed (exit ${r.status})`);
  }
  log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return binPath(dir);
}

if (require.main === module) {
  const started = Date.now();
  const entry = ensureCodeServer();
  console.log(`${entry} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

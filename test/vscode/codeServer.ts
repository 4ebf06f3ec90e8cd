/**
 * Installs code-server — the VS Code workbench and server of one release, see shared VSCODE-OFFLINE.md — into a
 * cache folder on first use, under the Node that release of desktop VS Code ships (test/support/nodeRuntime.ts),
 * and finds the system tools the VS Code tests need (Debian's chromium, ripgrep, libkrb5-dev). Idempotent: when a
 * release is installed this costs one stat. Must not depend on src/ or the extension.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureNode, nodeDir, NODE_OF_CURRENT_VSCODE, NODE_OF_OLDEST_VSCODE, REPO_ROOT } from '../support/nodeRuntime';

export { REPO_ROOT };

/** A VS Code release the tests run in: code-server's build of it, on the Node its desktop build ships. */
export interface VsCodeRelease {
  readonly label: 'current' | 'oldest' | 'legacy';
  /** code-server's npm version */
  readonly codeServer: string;
  /** the VS Code release it is (`code-server --version`) */
  readonly vscode: string;
  /** the Node of that release's extension host */
  readonly node: string;
  /**
   * What lets the workbench URL's `payload` load an extension under development and its tests: a built VS Code
   * honours it only with the smoke-test driver enabled from 1.10x on, which code-server passes through
   * `--vscode-option` (4.139); 1.100 honoured it as it was.
   */
  readonly developmentArgs: readonly string[];
}

/** Every phase runs here: the newest VS Code the npm registry's code-server has. */
export const CURRENT_RELEASE: VsCodeRelease = {
  label: 'current',
  codeServer: '4.139.1',
  vscode: '1.139.1',
  node: NODE_OF_CURRENT_VSCODE,
  developmentArgs: ['--vscode-option', 'enable-smoke-test-driver'],
};
/**
 * The harness before this extension moved to node:sqlite: VS Code 1.100 on this Node (20), where the store opens
 * with better-sqlite3. Only the first-use bench runs it, to compare.
 */
export const LEGACY_RELEASE: VsCodeRelease = {
  label: 'legacy',
  codeServer: '4.100.3',
  vscode: '1.100.3',
  node: process.versions.node,
  developmentArgs: [],
};
/** The oldest release engines.vscode admits (1.103: Node 22.17, node:sqlite whole); the packaged phase runs here too. */
export const OLDEST_RELEASE: VsCodeRelease = {
  label: 'oldest',
  codeServer: '4.103.2',
  vscode: '1.103.2',
  node: NODE_OF_OLDEST_VSCODE,
  developmentArgs: [], // only the installed .vsix runs here, no extension under development
};

/** Where code-server releases are installed; OCDB_CODE_SERVER_DIR overrides (e.g. a CI cache). */
export const CODE_SERVER_DIR = process.env.OCDB_CODE_SERVER_DIR ?? path.join(REPO_ROOT, '.cache');
export const CHROMIUM = process.env.OCDB_CHROMIUM ?? '/usr/bin/chromium';

/**
 * @vscode/ripgrep's postinstall looks here before downloading from GitHub (unreachable here): one archive per
 * version of the package a code-server release depends on (1.100: 1.15.11, 1.103: 1.15.14; 1.139 ships its own).
 */
const RIPGREP_CACHES = [
  ['1.15.11', 'v13.0.0-10'],
  ['1.15.14', 'v13.0.0-13'],
].map(([pkg, rg]) =>
  path.join(os.tmpdir(), `vscode-ripgrep-cache-${pkg}`, `ripgrep-${rg}-x86_64-unknown-linux-musl.tar.gz`),
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

function installDir(release: VsCodeRelease): string {
  return path.join(CODE_SERVER_DIR, `code-server-${release.codeServer}`);
}
function binPath(dir: string): string {
  return path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}
function marker(dir: string, release: VsCodeRelease): string {
  return path.join(dir, `.installed-${release.codeServer}-node-${release.node}`);
}

/**
 * What a first start will install and how long it takes, said before it starts (a first `npm start` otherwise sits
 * silent through apt-get and npm for minutes). Undefined when everything is there.
 */
export function firstUseNotice(state: {
  missingPackages: readonly string[];
  codeServer: boolean;
  root: boolean;
}): string | undefined {
  const steps: string[] = [];
  if (state.missingPackages.length > 0) {
    steps.push(
      state.root
        ? `the Debian packages ${state.missingPackages.join(' ')} with apt-get (about 2–5 minutes)`
        : `nothing from Debian: it stops and prints the apt-get line for the packages ${state.missingPackages.join(' ')}`,
    );
  }
  if (!state.codeServer) steps.push('Node and code-server from the npm registry into .cache/ (about 4–5 minutes)');
  return steps.length > 0
    ? `First start: this installs ${steps.join(', then ')}. Later starts take seconds.`
    : undefined;
}

/** The first-use notice for `release` on this machine (firstUseNotice). */
export function firstUseNoticeHere(release: VsCodeRelease = CURRENT_RELEASE): string | undefined {
  const dir = installDir(release);
  return firstUseNotice({
    missingPackages: DEBIAN_PACKAGES.filter((p) => !p.present()).map((p) => p.pkg),
    codeServer: fs.existsSync(marker(dir, release)) && fs.existsSync(binPath(dir)),
    root: process.getuid?.() === 0,
  });
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
  log(`apt-get install ${missing.join(' ')} (first use, about 2–5 minutes)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args: string[]): void => {
    const r = spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${r.status})`);
  };
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', ...missing]);
}

/** Packs /usr/bin/rg as the archives @vscode/ripgrep's postinstall would otherwise download. */
function ensureRipgrepCache(): void {
  for (const archive of RIPGREP_CACHES) {
    if (fs.existsSync(archive)) continue;
    const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-'));
    fs.copyFileSync('/usr/bin/rg', path.join(staging, 'rg'));
    fs.chmodSync(path.join(staging, 'rg'), 0o755);
    fs.mkdirSync(path.dirname(archive), { recursive: true });
    const tmp = `${archive}.${process.pid}`;
    execFileSync('tar', ['czf', tmp, '-C', staging, 'rg']);
    fs.renameSync(tmp, archive);
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** How to start one release: its entry script and the Node that runs it (and so its extension host). */
export interface InstalledCodeServer {
  readonly release: VsCodeRelease;
  readonly entry: string;
  readonly node: string;
}

/**
 * Installs `release` on first use (its Node first, then code-server built against that Node's headers) and returns
 * how to start it. A concurrent second caller waits on a lock file rather than installing twice.
 */
export function ensureCodeServer(release: VsCodeRelease = CURRENT_RELEASE): InstalledCodeServer {
  const node = ensureNode(release.node);
  const dir = installDir(release);
  if (fs.existsSync(marker(dir, release)) && fs.existsSync(binPath(dir))) return { release, entry: binPath(dir), node };
  ensureSystemPackages();
  ensureRipgrepCache();
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, '.install.lock');
  // flock serialises two test runs installing at once; the second finds the marker and returns.
  const script = `test -f '${marker(dir, release)}' && exit 0; npm install --unsafe-perm --no-audit --no-fund --loglevel=error code-server@${release.codeServer} && touch '${marker(dir, release)}'`;
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'ocdb-code-server-cache', private: true }, null, 2) + '\n',
    );
  }
  const started = Date.now();
  log(
    `installing code-server@${release.codeServer} (VS Code ${release.vscode}) on Node ${release.node} into ${dir} (first use, ~4 minutes)`,
  );
  // Under `npm test` the outer npm (on the machine's Node) exports npm_config_user_agent = "npm/… node/v20…" and
  // npm_node_execpath; the inner npm would take them as its own config, and code-server's postinstall reads its Node
  // major from that user agent. So every npm_* variable of the outer npm is left out.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const env = {
    ...inherited,
    npm_config_yes: 'true',
    // that Node first on PATH (code-server's postinstall checks its major) and its headers for the native modules:
    // the machine's npm config may name another Node's (nodedir), and modules built for it would not load
    PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`,
    ...(nodeDir(release.node) ? { npm_config_nodedir: nodeDir(release.node) } : {}),
  };
  const r = spawnSync('flock', [lock, 'sh', '-c', script], { cwd: dir, stdio: 'inherit', env });
  if (r.status !== 0 || !fs.existsSync(binPath(dir))) {
    throw new Error(`installing code-server@${release.codeServer} into ${dir} failed (exit ${r.status})`);
  }
  log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { release, entry: binPath(dir), node };
}

if (require.main === module) {
  const started = Date.now();
  const installed = [CURRENT_RELEASE, OLDEST_RELEASE].map((r) => ensureCodeServer(r).entry);
  console.log(`${installed.join('\n')} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

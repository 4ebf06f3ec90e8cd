/**
 * Starts code-server on 127.0.0.1 with a free port and its own user-data and extensions folders (workspace trust,
 * telemetry, update checks, welcome pages off), waits until it answers, and stops it (its whole process group) at
 * the end. Also builds the workbench URLs: a plain folder, or the `payload` form that loads an extension under
 * development and runs extension tests inside the extension host. Must not depend on src/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CURRENT_RELEASE, ensureCodeServer, type VsCodeRelease } from './codeServer';

export interface CodeServerOptions {
  /** Extra environment for the server and so for the extension host (e.g. OCDB_VTEST_RESULTS). */
  env?: Record<string, string>;
  /** Use this extensions folder (e.g. one a .vsix was installed into); default a fresh empty one. */
  extensionsDir?: string;
  /** Where user-data, extensions and the server log go; default a fresh temp folder. */
  dir?: string;
  /** Bind to this port instead of a free one. */
  port?: number;
  /** Echo the server's output to stderr. */
  verbose?: boolean;
  /** The VS Code release to run (default the current one), on the Node its desktop build ships. */
  release?: VsCodeRelease;
}

export interface CodeServer {
  readonly port: number;
  readonly origin: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly logFile: string;
  /** The workbench on `folder`, optionally with an extension under development and an extension-tests module. */
  url(folder: string, dev?: { extensionDevelopmentPath: string; extensionTestsPath?: string }): string;
  stop(): Promise<void>;
}

/** Settings a fresh user-data folder starts with: no trust prompt, no welcome page, nothing phoning home. */
export const USER_SETTINGS = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'window.commandCenter': false,
  'chat.commandCenter.enabled': false,
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(origin: string, child: ChildProcess, logFile: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode} before answering; see ${logFile}`);
    }
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer on ${origin} within ${timeoutMs} ms; see ${logFile}`);
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const { entry, node } = ensureCodeServer(options.release ?? CURRENT_RELEASE);
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-code-server-'));
  const userDataDir = path.join(dir, 'user-data');
  const extensionsDir = options.extensionsDir ?? path.join(dir, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const settings = JSON.stringify(USER_SETTINGS, null, 2);
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), settings);
  fs.writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), settings);
  const port = options.port ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const logFile = path.join(dir, 'code-server.log');
  const log = fs.openSync(logFile, 'a');
  const args = [
    entry,
    '--config',
    path.join(dir, 'config.yaml'), // not ~/.config/code-server: nothing written outside `dir`
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
  ];
  const child = spawn(node, args, {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.verbose ? 'inherit' : log, options.verbose ? 'inherit' : log],
    detached: true, // its own process group, so stop() also ends the extension host and pty host it forks
  });
  fs.closeSync(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error('code-server did not start');
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilUp(origin, child, logFile);
  } catch (e) {
    await stop();
    throw e;
  }
  const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${path.resolve(p)}`;
  return {
    port,
    origin,
    userDataDir,
    extensionsDir,
    logFile,
    url(folder, dev) {
      let url = `${origin}/?folder=${encodeURIComponent(path.resolve(folder))}`;
      if (dev) {
        const payload: [string, string][] = [['extensionDevelopmentPath', remote(dev.extensionDevelopmentPath)]];
        if (dev.extensionTestsPath) payload.push(['extensionTestsPath', remote(dev.extensionTestsPath)]);
        url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
      }
      return url;
    },
    stop,
  };
}

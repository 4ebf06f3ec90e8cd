/**
 * `npm start`: builds, writes the demo runs into .cache/demo-workspace/.ocdb/runs.db and opens VS Code on that folder
 * with the extension under development — desktop `code --extensionDevelopmentPath` when `code` is on PATH, else
 * code-server (installed on first use) on 127.0.0.1, printing the URL and serving until Ctrl+C.
 * Options: `--code-server` (even when `code` exists), `--port N` (default $PORT, else 8080 when free, else any free
 * port), `--check` (open the URL in headless Chromium, save test-results/screenshots/start.png showing the demo runs,
 * then stop — a self-test).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { launchBrowser, openPage } from './browser';
import { buildExtension } from './buildTests';
import { CURRENT_RELEASE, firstUseNoticeHere, REPO_ROOT } from './codeServer';
import { freePort, startCodeServer } from './codeServerSession';
import { CLI } from './demoWorkspace';
import { waitForRuns, waitForWorkbench, widenSideBar } from './ui/workbench';

const DEMO_WORKSPACE = path.join(REPO_ROOT, '.cache', 'demo-workspace');
const SERVER_DIR = path.join(REPO_ROOT, '.cache', 'code-server-data');
const SCREENSHOT = path.join(REPO_ROOT, 'test-results', 'screenshots', 'start.png');

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function onPath(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Writes (or refreshes) the demo runs; runs the user recorded or forked there stay. */
function writeDemo(): string {
  const store = path.join(DEMO_WORKSPACE, '.ocdb', 'runs.db');
  fs.mkdirSync(path.dirname(store), { recursive: true });
  const r = spawnSync(process.execPath, [CLI, 'demo', '--store', store], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`ocdb demo --store ${store} failed (exit ${r.status})`);
  return store;
}

async function main(): Promise<void> {
  buildExtension();
  const store = writeDemo();
  const check = process.argv.includes('--check');
  if (onPath('code') && !process.argv.includes('--code-server') && !check) {
    spawn('code', [`--extensionDevelopmentPath=${REPO_ROOT}`, DEMO_WORKSPACE], {
      stdio: 'ignore',
      detached: true,
    }).unref();
    console.log(`Opened VS Code on ${DEMO_WORKSPACE} (demo store ${store}) with the extension under development.`);
    return;
  }
  const wanted = Number(option('--port') ?? process.env.PORT) || undefined;
  const port = wanted ?? ((await portIsFree(8080)) ? 8080 : await freePort());
  const notice = firstUseNoticeHere();
  if (notice) console.log(notice);
  const server = await startCodeServer({ dir: SERVER_DIR, port, linkExtension: REPO_ROOT });
  const url = server.url(DEMO_WORKSPACE);
  if (check) {
    const browser = await launchBrowser();
    try {
      const page = await openPage(browser, url, () => {});
      await waitForWorkbench(page);
      await waitForRuns(page, ['demo-support-refund', 'demo-research-rag', 'demo-coding-fix']);
      await widenSideBar(page);
      fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT });
      console.log(`start --check: the demo runs are listed at ${url}\nscreenshot: ${SCREENSHOT}`);
    } finally {
      await browser.close();
      await server.stop();
    }
    return;
  }
  console.log(
    `\nAgent Time Travel is running in code-server (VS Code ${CURRENT_RELEASE.vscode}) on the demo workspace:\n\n  ${url}\n`,
  );
  console.log(`Open it in a browser; the Agent Runs view is in the activity bar. Ctrl+C stops the server.`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await new Promise(() => {}); // serve until interrupted
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});

/**
 * Phase 3 of `npm run test:vscode`: `npm run package`'s .vsix — checked for what it carries (better_sqlite3.node in,
 * sources/tests/other node_modules out) — installed into a fresh extensions folder with
 * `code-server --install-extension`, then opened like a user would (no development path): the extension activates
 * and the Agent Runs view lists the demo runs. Then the same .vsix under Node 22, standing in for desktop VS Code
 * (whose Electron ABI cannot load the better-sqlite3 built for Node 20): the store opens with node:sqlite, the runs
 * are listed and one replays.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { openPage } from './browser';
import { buildExtension } from './buildTests';
import { ensureCodeServer } from './codeServer';
import { startCodeServer } from './codeServerSession';
import { writeDemoWorkspace } from './demoWorkspace';
import { printOutcome, type PhaseOutcome, type TestOutcome } from './outcome';
import { packageVsix, vsixContents } from './packageVsix';
import { SCREENSHOTS } from './uiPhase';
import { clickInlineAction, debugToolbarButton, row, waitForRuns, waitForWorkbench } from './ui/workbench';
import { node22Binary } from '../unit/store/nodeSqliteDriverBinary';

/** Lines of the extension's log (the "Agent Time Travel" output channel) that code-server wrote under `dir`. */
function extensionLogLines(dir: string, pattern: RegExp): string[] {
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('Agent Time Travel.log'))
        found.push(
          ...fs
            .readFileSync(p, 'utf8')
            .split('\n')
            .filter((l) => pattern.test(l)),
        );
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return found;
}

async function step(outcome: PhaseOutcome, name: string, fn: () => Promise<void>): Promise<boolean> {
  const started = Date.now();
  let o: TestOutcome;
  try {
    await fn();
    o = { name, ok: true, durationMs: Date.now() - started };
  } catch (e) {
    o = {
      name,
      ok: false,
      error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      durationMs: Date.now() - started,
    };
  }
  outcome.results.push(o);
  printOutcome(outcome.phase, o);
  return o.ok;
}

export async function runVsixPhase(browser: Browser, workDir: string): Promise<PhaseOutcome> {
  const outcome: PhaseOutcome = { phase: 'vsix', results: [] };
  let vsix = '';
  const extensionsDir = path.join(workDir, 'vsix-extensions');
  const packed = await step(outcome, 'npm run package builds a .vsix with exactly the runtime files', async () => {
    vsix = packageVsix();
    buildExtension(); // back to the development build (source maps) the other phases and F5 use
    const { entries, missing, unexpected } = vsixContents(vsix);
    if (missing.length || unexpected.length) {
      throw new Error(`missing: ${missing.join(', ') || '-'}; unexpected: ${unexpected.join(', ') || '-'}`);
    }
    process.stdout.write(
      `     ${vsix}: ${(fs.statSync(vsix).size / 1024 / 1024).toFixed(2)} MB, ${entries.length} files\n`,
    );
  });
  if (!packed) return outcome;
  const installed = await step(outcome, 'code-server --install-extension installs the .vsix', async () => {
    const r = spawnSync(
      process.execPath,
      [ensureCodeServer(), '--extensions-dir', extensionsDir, '--install-extension', vsix],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stdout}${r.stderr}`);
    const dirs = fs.readdirSync(extensionsDir).filter((d) => d.startsWith('agent-time-travel.'));
    if (dirs.length !== 1)
      throw new Error(`expected one installed extension folder, found: ${dirs.join(', ') || 'none'}`);
  });
  if (!installed) return outcome;
  const ws = path.join(workDir, 'vsix-workspace');
  writeDemoWorkspace(ws);
  const server = await startCodeServer({ dir: path.join(workDir, 'vsix-server'), extensionsDir });
  try {
    await step(outcome, 'the installed extension activates and lists the demo runs', async () => {
      const page = await openPage(browser, server.url(ws), () => {});
      try {
        await waitForWorkbench(page);
        await waitForRuns(page, ['demo-support-refund', 'demo-coding-fix', 'demo-research-rag']);
        fs.mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SCREENSHOTS, 'vsix-runs-tree.png') });
      } finally {
        await page.context().close();
      }
    });
  } finally {
    await server.stop();
  }
  await step(
    outcome,
    'under Node 22, where the packaged better-sqlite3 cannot load, the extension opens its store with node:sqlite and replays',
    async () => {
      const node22 = node22Binary();
      const extDir = path.join(
        extensionsDir,
        fs.readdirSync(extensionsDir).find((d) => d.startsWith('agent-time-travel.')) ?? '',
      );
      // the premise: the binary the .vsix ships does not load in this runtime (as in desktop VS Code's Electron)
      const probe = spawnSync(
        node22,
        ['-e', `new (require(${JSON.stringify(path.join(extDir, 'node_modules', 'better-sqlite3'))}))(':memory:')`],
        { encoding: 'utf8' },
      );
      if (probe.status === 0) throw new Error('the packaged better-sqlite3 loads under Node 22: nothing falls back');
      const ws22 = path.join(workDir, 'vsix-workspace-node22');
      writeDemoWorkspace(ws22);
      const dir = path.join(workDir, 'vsix-server-node22');
      const server22 = await startCodeServer({ dir, extensionsDir, node: node22 });
      try {
        const page = await openPage(browser, server22.url(ws22), () => {});
        try {
          await waitForWorkbench(page);
          const pane = await waitForRuns(page, ['demo-support-refund', 'demo-coding-fix', 'demo-research-rag']);
          await clickInlineAction(row(pane, 'demo-support-refund').first(), 'Replay Run');
          await debugToolbarButton(page, 'Step Over').waitFor({ timeout: 30_000 });
          await page
            .locator('.statusbar-item', { hasText: /\[0\] step 0 · before_prompt_build/ })
            .first()
            .waitFor();
          await page.screenshot({ path: path.join(SCREENSHOTS, 'vsix-node-sqlite.png') });
        } finally {
          await page.context().close();
        }
        const opened = extensionLogLines(dir, /opened run store/);
        if (!opened.some((l) => l.includes('(node:sqlite)'))) {
          throw new Error(`the store was not opened with node:sqlite; log: ${opened.join(' | ') || 'no such line'}`);
        }
      } finally {
        await server22.stop();
      }
    },
  );
  return outcome;
}

/**
 * Phase 3 of `npm run test:vscode`: `npm run package`'s .vsix — checked for what it carries (the bundles, media and
 * docs; no node_modules, no native module, under the size budget) — installed with `code-server --install-extension`
 * into the current VS Code and into the oldest release engines.vscode admits, each on the Node its desktop build
 * ships, then used like a user would (no development path): the extension activates, the store opens with
 * node:sqlite, the Agent Runs view lists the demo runs, one replays and a fork of it is made.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { openPage } from './browser';
import { buildExtension } from './buildTests';
import { CURRENT_RELEASE, ensureCodeServer, OLDEST_RELEASE, type VsCodeRelease } from './codeServer';
import { startCodeServer } from './codeServerSession';
import { writeDemoWorkspace } from './demoWorkspace';
import { printOutcome, type PhaseOutcome, type TestOutcome } from './outcome';
import { packageVsix, vsixContents } from './packageVsix';
import { SCREENSHOTS } from './uiPhase';
import {
  chooseOption,
  clickInlineAction,
  debugToolbarButton,
  row,
  waitForRuns,
  waitForWorkbench,
  webviewContent,
  widenSideBar,
} from './ui/workbench';

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
  const packed = await step(outcome, 'npm run package builds a .vsix with exactly the runtime files', async () => {
    vsix = packageVsix();
    buildExtension(); // back to the development build (source maps) the other phases and F5 use
    const { entries, missing, unexpected, overBudget } = vsixContents(vsix);
    if (missing.length || unexpected.length || overBudget) {
      throw new Error(
        `missing: ${missing.join(', ') || '-'}; unexpected: ${unexpected.join(', ') || '-'}${overBudget ? `; ${overBudget}` : ''}`,
      );
    }
    process.stdout.write(
      `     ${vsix}: ${(fs.statSync(vsix).size / 1024 / 1024).toFixed(2)} MB, ${entries.length} files\n`,
    );
  });
  if (!packed) return outcome;
  for (const release of [CURRENT_RELEASE, OLDEST_RELEASE]) await useInstalled(outcome, browser, workDir, vsix, release);
  return outcome;
}

/** Installs the .vsix into `release` and opens, lists, replays and forks the demo store there. */
async function useInstalled(
  outcome: PhaseOutcome,
  browser: Browser,
  workDir: string,
  vsix: string,
  release: VsCodeRelease,
): Promise<void> {
  const where = `VS Code ${release.vscode} (Node ${release.node})`;
  const extensionsDir = path.join(workDir, `vsix-extensions-${release.label}`);
  const installed = await step(outcome, `code-server --install-extension installs the .vsix in ${where}`, async () => {
    const { entry, node } = ensureCodeServer(release);
    const r = spawnSync(node, [entry, '--extensions-dir', extensionsDir, '--install-extension', vsix], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stdout}${r.stderr}`);
    const dirs = fs.readdirSync(extensionsDir).filter((d) => d.startsWith('agent-time-travel.'));
    if (dirs.length !== 1)
      throw new Error(`expected one installed extension folder, found: ${dirs.join(', ') || 'none'}`);
  });
  if (!installed) return;
  const ws = path.join(workDir, `vsix-workspace-${release.label}`);
  writeDemoWorkspace(ws);
  const dir = path.join(workDir, `vsix-server-${release.label}`);
  const server = await startCodeServer({ dir, extensionsDir, release });
  try {
    await step(
      outcome,
      `in ${where} the installed extension opens its store with node:sqlite, lists, replays and forks the demo`,
      async () => {
        const page = await openPage(browser, server.url(ws), () => {});
        try {
          await waitForWorkbench(page);
          const pane = await waitForRuns(page, ['demo-support-refund', 'demo-coding-fix', 'demo-research-rag']);
          fs.mkdirSync(SCREENSHOTS, { recursive: true });
          await page.screenshot({ path: path.join(SCREENSHOTS, `vsix-runs-tree-${release.label}.png`) });
          await clickInlineAction(row(pane, 'demo-support-refund').first(), 'Replay Run');
          await debugToolbarButton(page, 'Step Over').waitFor({ timeout: 30_000 });
          await page
            .locator('.statusbar-item', { hasText: /\[0\] step 0 · before_prompt_build/ })
            .first()
            .waitFor();
          await debugToolbarButton(page, 'Step Over').click();
          await page
            .locator('.statusbar-item', { hasText: /\[1\] step 0 · before_model_call/ })
            .first()
            .waitFor();
          // fork at the paused checkpoint with every tool answered from the recording: nothing runs again
          await widenSideBar(page, 300);
          const editor = webviewContent(page);
          await editor.locator('[data-position]', { hasText: /^\[1\] step 0 · before_model_call/ }).waitFor({
            timeout: 30_000,
          });
          await editor.locator('vscode-textfield[data-field="user.roleId"] input').fill('auditor');
          await chooseOption(editor.locator('vscode-single-select[data-policy="*"]'), 'reuse_result');
          await editor.locator('vscode-button#fork:not([disabled])').click({ timeout: 15_000 });
          const status = editor.locator('.status[role="status"]', { hasText: /Created fork|error|reject/i });
          await status.waitFor({ timeout: 30_000 });
          const text = (await status.textContent()) ?? '';
          const created = /Created fork (\S+) of demo-support-refund/.exec(text);
          if (!created) throw new Error(`the fork was not created: ${text}`);
          await row(pane, created[1] ?? '')
            .first()
            .waitFor({ timeout: 30_000 });
          await page.screenshot({ path: path.join(SCREENSHOTS, `vsix-fork-${release.label}.png`) });
        } finally {
          await page.context().close();
        }
        const opened = extensionLogLines(dir, /opened run store/);
        if (!opened.some((l) => l.includes('(node:sqlite)'))) {
          throw new Error(`the store was not opened with node:sqlite; log: ${opened.join(' | ') || 'no such line'}`);
        }
      },
    );
  } finally {
    await server.stop();
  }
}

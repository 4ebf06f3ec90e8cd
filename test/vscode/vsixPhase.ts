/**
 * Phase 3 of `npm run test:vscode`: `npm run package`'s .vsix — checked for what it carries (better_sqlite3.node in,
 * sources/tests/other node_modules out) — installed into a fresh extensions folder with
 * `code-server --install-extension`, then opened like a user would (no development path): the extension activates
 * and the Agent Runs view lists the demo runs.
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
import { waitForRuns, waitForWorkbench } from './ui/workbench';

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
  return outcome;
}

/**
 * `npm run bench -- firstUse`: what a user waits for the first time, in a real VS Code driven by headless Chromium —
 * the workbench opened until the Agent Runs view lists the demo, Replay Run until the replay pauses, the same on a
 * 10,000-checkpoint run and one step there, and a captured fork from the Context & Fork view until it is created.
 * Measured in the current VS Code (code-server 4.139 on Node 24: the store on node:sqlite), the oldest supported
 * release (1.103 on Node 22.17) and, beside them, the harness before the move (1.100 on Node 20: better-sqlite3).
 * `OCDB_BENCH_RELEASES=current,legacy` picks releases; each is installed into .cache on first use. VS Code 1.100
 * cannot load this build (engines.vscode ^1.103): `OCDB_BENCH_LEGACY_EXTENSION=<a checkout of an older release,
 * built>` names the extension it runs there; without it the legacy column is left out.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, openPage } from '../vscode/browser';
import { CURRENT_RELEASE, LEGACY_RELEASE, OLDEST_RELEASE, REPO_ROOT, type VsCodeRelease } from '../vscode/codeServer';
import { startCodeServer } from '../vscode/codeServerSession';
import { writeDemoWorkspace } from '../vscode/demoWorkspace';
import {
  chooseOption,
  clickInlineAction,
  debugToolbarButton,
  openAgentRuns,
  row,
  waitForRuns,
  waitForWorkbench,
  webviewContent,
  widenSideBar,
} from '../vscode/ui/workbench';
import { recordLongRun } from './longRun';

const LONG = 10_000;
const RELEASES = [CURRENT_RELEASE, OLDEST_RELEASE, LEGACY_RELEASE];

const F10_SAMPLES = 5;

async function timed(what: string, fn: () => Promise<void>, into: Map<string, number>): Promise<void> {
  const t = performance.now();
  await fn();
  into.set(what, performance.now() - t);
}

async function pausedAt(page: Page, position: RegExp): Promise<void> {
  await page.locator('.statusbar-item', { hasText: position }).first().waitFor({ timeout: 120_000 });
}

async function measure(release: VsCodeRelease, dir: string): Promise<Map<string, number>> {
  const ws = path.join(dir, `ws-${release.label}`);
  writeDemoWorkspace(ws);
  recordLongRun(path.join(ws, '.ocdb', 'runs.db'), LONG, 'long-run-10k');
  const server = await startCodeServer({
    dir: path.join(dir, `server-${release.label}`),
    release,
    linkExtension: release === LEGACY_RELEASE ? (process.env.OCDB_BENCH_LEGACY_EXTENSION ?? REPO_ROOT) : REPO_ROOT,
  });
  const browser = await launchBrowser();
  const figures = new Map<string, number>();
  try {
    const page = await openPage(browser, server.url(ws), () => {});
    let pane = page.locator('body');
    await timed(
      'open → demo runs listed',
      async () => {
        await waitForWorkbench(page, 120_000);
        pane = await waitForRuns(page, ['demo-support-refund', 'long-run-10k'], 120_000);
      },
      figures,
    );
    await timed(
      'Replay Run (demo) → paused',
      async () => {
        await clickInlineAction(row(pane, 'demo-support-refund').first(), 'Replay Run');
        await pausedAt(page, /\[0\] step 0 · before_prompt_build/);
      },
      figures,
    );
    await debugToolbarButton(page, 'Stop').click();
    await debugToolbarButton(page, 'Step Over').waitFor({ state: 'hidden', timeout: 30_000 });
    // the replay revealed its checkpoint: the tree is folded again so the long run's row is in view
    await openAgentRuns(page);
    await pane.hover();
    await pane.locator('.action-label[aria-label^="Collapse All"]').first().click();
    await timed(
      `Replay Run (${LONG.toLocaleString('en')} cp) → paused`,
      async () => {
        await clickInlineAction(row(pane, 'long-run-10k').first(), 'Replay Run');
        await pausedAt(page, /\[0\] step 0 · before_model_call/);
      },
      figures,
    );
    // F10 five times (one sample on a loaded machine is noise): the first and the median are printed
    const f10: number[] = [];
    for (let k = 1; k <= F10_SAMPLES; k++) {
      const t = performance.now();
      await debugToolbarButton(page, 'Step Over').click();
      await pausedAt(page, new RegExp(`\\[${k}\\] step \\d+ · `));
      f10.push(performance.now() - t);
    }
    figures.set(`F10 on the ${LONG.toLocaleString('en')}-cp run (first)`, f10[0] ?? NaN);
    figures.set(
      `F10 on the ${LONG.toLocaleString('en')}-cp run (median of ${F10_SAMPLES})`,
      [...f10].sort((a, b) => a - b)[Math.floor(F10_SAMPLES / 2)] ?? NaN,
    );
    await widenSideBar(page, 300);
    const editor = webviewContent(page);
    await editor.locator('[data-position]', { hasText: new RegExp(`^\\[${F10_SAMPLES}\\] `) }).waitFor({
      timeout: 60_000,
    });
    await chooseOption(editor.locator('vscode-single-select[data-policy="*"]'), 'reuse_result');
    await timed(
      `Fork (captured) at [${F10_SAMPLES}] of the ${LONG.toLocaleString('en')}-cp run → created`,
      async () => {
        await editor.locator('vscode-button#fork:not([disabled])').click({ timeout: 60_000 });
        await editor.locator('.status[role="status"]', { hasText: /Created fork/ }).waitFor({ timeout: 120_000 });
      },
      figures,
    );
  } finally {
    await browser.close();
    await server.stop();
  }
  return figures;
}

export async function run(): Promise<void> {
  const wanted = (process.env.OCDB_BENCH_RELEASES ?? '').split(',').filter(Boolean);
  const releases = (wanted.length ? RELEASES.filter((r) => wanted.includes(r.label)) : RELEASES).filter(
    (r) => r !== LEGACY_RELEASE || process.env.OCDB_BENCH_LEGACY_EXTENSION,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-bench-first-use-'));
  const columns: { release: VsCodeRelease; figures: Map<string, number> }[] = [];
  try {
    for (const release of releases) {
      const figures = await measure(release, dir).catch((e: unknown) => {
        process.stdout.write(
          `VS Code ${release.vscode}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`,
        );
        return new Map<string, number>();
      });
      process.stdout.write(`VS Code ${release.vscode}: ${JSON.stringify(Object.fromEntries(figures))}\n`);
      columns.push({ release, figures });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const head = columns.map((c) => `VS Code ${c.release.vscode}, Node ${c.release.node}`.padStart(30));
  process.stdout.write(`${'ms'.padEnd(52)}${head.join('')}\n`);
  for (const what of new Set(columns.flatMap((c) => [...c.figures.keys()]))) {
    const cells = columns.map((c) => (c.figures.get(what)?.toFixed(0) ?? '-').padStart(30));
    process.stdout.write(`${what.padEnd(52)}${cells.join('')}\n`);
  }
}

/**
 * Phase 2 of `npm run test:vscode`: the UI flows of ui/*.ui.ts, driven with Playwright against the workbench a user
 * sees (code-server + the extension under development + a fresh demo workspace, or an empty one when the file
 * exports `workspace = 'empty'`), one page per file, screenshots
 * into test-results/screenshots/ (emptied first so every image is from this run).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { openPage } from './browser';
import { REPO_ROOT } from './codeServer';
import { startCodeServer } from './codeServerSession';
import { writeDemoWorkspace } from './demoWorkspace';
import { printOutcome, type PhaseOutcome, type TestOutcome } from './outcome';
import type { UiSetup, UiTest, UiWorkspace } from './ui/uiTest';
import { waitForWorkbench } from './ui/workbench';

export const SCREENSHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');
const UI_DIR = path.join(__dirname, 'ui');
const STEP_TIMEOUT_MS = Number(process.env.OCDB_UI_TIMEOUT_MS) || 90_000;

function describe(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runUiPhase(browser: Browser, workDir: string): Promise<PhaseOutcome> {
  const phase = 'ui';
  const outcome: PhaseOutcome = { phase, results: [] };
  const report = (o: TestOutcome) => {
    outcome.results.push(o);
    printOutcome(phase, o);
  };
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const f of fs.readdirSync(SCREENSHOTS)) if (f.endsWith('.png')) fs.rmSync(path.join(SCREENSHOTS, f));
  const grep = process.env.OCDB_VTEST_GREP;
  const files = fs
    .readdirSync(UI_DIR)
    .filter((n) => n.endsWith('.ui.ts'))
    .sort();
  if (files.length === 0) throw new Error(`no *.ui.ts files in ${UI_DIR}`);
  const server = await startCodeServer({ dir: path.join(workDir, 'ui-server'), linkExtension: REPO_ROOT });
  try {
    for (const file of files) {
      const mod = (await import(path.join(UI_DIR, file))) as {
        tests?: UiTest[];
        workspace?: UiWorkspace;
        setup?: UiSetup;
      };
      const tests = (mod.tests ?? []).filter((t) => !grep || `${file} ${t.name}`.includes(grep));
      if (tests.length === 0) continue;
      const ws = path.join(workDir, `ui-workspace-${file.replace(/\.ui\.ts$/, '')}`);
      let store = path.join(ws, '.ocdb', 'runs.db');
      if (mod.workspace === 'empty') fs.mkdirSync(ws, { recursive: true });
      else store = writeDemoWorkspace(ws);
      if (mod.setup) {
        const started = Date.now();
        try {
          await mod.setup({ workspace: ws, store });
          process.stdout.write(`     ${file}: workspace set up in ${Date.now() - started} ms\n`);
        } catch (e) {
          for (const test of tests)
            report({ name: `${file} › ${test.name}`, ok: false, error: `setup failed: ${describe(e)}`, durationMs: 0 });
          continue;
        }
      }
      const logs: string[] = [];
      const page = await openPage(browser, server.url(ws), (l) => logs.push(l));
      const ctx = {
        page,
        workspace: ws,
        store,
        userDataDir: path.join(workDir, 'ui-server', 'user-data'),
        async screenshot(name: string) {
          const file = path.join(SCREENSHOTS, `${name}.png`);
          await page.screenshot({ path: file });
          return file;
        },
      };
      let failedStep: string | undefined;
      try {
        await waitForWorkbench(page);
        for (const test of tests) {
          const name = `${file} › ${test.name}`;
          const started = Date.now();
          if (failedStep) {
            report({ name, ok: false, error: `not run: the earlier step "${failedStep}" failed`, durationMs: 0 });
            continue;
          }
          try {
            await withTimeout(test.run(ctx), STEP_TIMEOUT_MS);
            report({ name, ok: true, durationMs: Date.now() - started });
          } catch (e) {
            failedStep = test.name;
            await page.screenshot({ path: path.join(workDir, `failed-${file}-${outcome.results.length}.png`) });
            report({ name, ok: false, error: describe(e), durationMs: Date.now() - started });
          }
        }
      } finally {
        await page.context().close();
      }
      if (failedStep) {
        process.stdout.write(`     failure screenshots in ${workDir}; code-server log: ${server.logFile}\n`);
        for (const l of logs.slice(-10)) process.stdout.write(`     ${l.split('\n')[0]?.slice(0, 300)}\n`);
      }
    }
  } finally {
    await server.stop();
  }
  return outcome;
}

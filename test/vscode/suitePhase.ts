/**
 * Phase 1 of `npm run test:vscode`: loads the extension under development into code-server together with the
 * compiled suite (out/test/vscode/suite/index.js) through the workbench's `payload` URL, so the tests run inside the
 * real extension host; reads their results from the JSON file index.ts writes, and fails on a timeout.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { openPage } from './browser';
import { REPO_ROOT } from './codeServer';
import { startCodeServer } from './codeServerSession';
import { SUITE_OUT } from './buildTests';
import { writeDemoWorkspace } from './demoWorkspace';
import { printOutcome, type PhaseOutcome } from './outcome';
import type { VTestReport } from './suite/vtest';

const SUITE_TIMEOUT_MS = Number(process.env.OCDB_VTEST_SUITE_TIMEOUT_MS) || 5 * 60_000;
/** The extension host writes an empty report as soon as it has loaded index.js; without one it never started. */
/** How long the extension host may take to load the suite (OCDB_VTEST_START_MS: longer on a loaded machine). */
const START_TIMEOUT_MS = Number(process.env.OCDB_VTEST_START_MS) || 90_000;

function readReport(file: string): VTestReport | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as VTestReport;
  } catch {
    return undefined; // not written yet
  }
}

export async function runSuitePhase(browser: Browser, workDir: string): Promise<PhaseOutcome> {
  const phase = 'extension host';
  const ws = path.join(workDir, 'suite-workspace');
  writeDemoWorkspace(ws);
  const resultsFile = path.join(workDir, 'suite-results.json');
  const server = await startCodeServer({
    extensionTests: true,
    dir: path.join(workDir, 'suite-server'),
    env: { OCDB_VTEST_RESULTS: resultsFile },
  });
  const logs: string[] = [];
  const outcome: PhaseOutcome = { phase, results: [] };
  try {
    const url = server.url(ws, {
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: path.join(SUITE_OUT, 'index'),
    });
    const page = await openPage(browser, url, (l) => logs.push(l));
    const started = Date.now();
    const deadline = started + SUITE_TIMEOUT_MS;
    let report: VTestReport | undefined;
    let printed = 0;
    for (;;) {
      report = readReport(resultsFile);
      for (const r of report?.results.slice(printed) ?? []) {
        const o = { name: `${r.file} › ${r.name}`, ok: r.ok, error: r.error, durationMs: r.durationMs };
        outcome.results.push(o);
        printOutcome(phase, o);
      }
      printed = report?.results.length ?? 0;
      if (report?.done) break;
      if (!report && Date.now() > started + START_TIMEOUT_MS) {
        const o = {
          name: 'suite started',
          ok: false,
          error: `the extension host did not load ${path.join(SUITE_OUT, 'index.js')} within ${START_TIMEOUT_MS} ms; server log: ${server.logFile}`,
          durationMs: START_TIMEOUT_MS,
        };
        outcome.results.push(o);
        printOutcome(phase, o);
        break;
      }
      if (Date.now() > deadline) {
        const o = {
          name: 'suite finished',
          ok: false,
          error: `timed out after ${SUITE_TIMEOUT_MS} ms (${printed} test(s) reported); server log: ${server.logFile}`,
          durationMs: SUITE_TIMEOUT_MS,
        };
        outcome.results.push(o);
        printOutcome(phase, o);
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    if (report?.fatal) {
      const o = { name: 'suite loaded', ok: false, error: report.fatal, durationMs: 0 };
      outcome.results.push(o);
      printOutcome(phase, o);
    }
    await page.context().close();
  } finally {
    await server.stop();
  }
  if (outcome.results.some((r) => !r.ok)) {
    process.stdout.write(`     code-server log: ${server.logFile}\n`);
    for (const l of logs.slice(-20)) process.stdout.write(`     ${l.split('\n')[0]?.slice(0, 300)}\n`);
  }
  return outcome;
}

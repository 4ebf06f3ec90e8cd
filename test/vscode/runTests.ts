/**
 * `npm run test:vscode`: the extension inside a real, current VS Code (code-server 4.139 on Node 24, as desktop
 * VS Code 1.139 ships it, + headless Chromium; installed into .cache on first use). Builds, then runs the phases in
 * order — the extension-host suite (suite/*.vtest.ts), the UI flows (ui/*.ui.ts, screenshots in
 * test-results/screenshots/), and the packaged .vsix installed into the current release and into the oldest one
 * engines.vscode admits (1.103 on Node 22.17) — and prints `N passed, N failed`; exits non-zero on any failure.
 * `--phase suite,ui,vsix` runs a subset; OCDB_VTEST_GREP narrows the tests by name.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchBrowser } from './browser';
import { buildExtension, buildSuite } from './buildTests';
import { CURRENT_RELEASE, ensureCodeServer, ensureSystemPackages, OLDEST_RELEASE, REPO_ROOT } from './codeServer';
import { printOutcome, type PhaseOutcome } from './outcome';
import { runSuitePhase } from './suitePhase';
import { runUiPhase, SCREENSHOTS } from './uiPhase';
import { runVsixPhase } from './vsixPhase';

const PHASES = ['suite', 'ui', 'vsix'] as const;
type Phase = (typeof PHASES)[number];

function selectedPhases(argv: string[]): Phase[] {
  const i = argv.indexOf('--phase');
  if (i < 0) return [...PHASES];
  const wanted = (argv[i + 1] ?? '').split(',').filter(Boolean);
  const unknown = wanted.filter((p) => !(PHASES as readonly string[]).includes(p));
  if (unknown.length > 0 || wanted.length === 0) {
    throw new Error(`--phase takes a comma-separated subset of ${PHASES.join(',')} (got ${argv[i + 1] ?? 'nothing'})`);
  }
  return wanted as Phase[];
}

async function main(): Promise<number> {
  const started = Date.now();
  const phases = selectedPhases(process.argv.slice(2));
  const installStarted = Date.now();
  ensureSystemPackages(); // chromium, ripgrep, libkrb5-dev, unzip: apt-get when root, else a clear error
  ensureCodeServer(CURRENT_RELEASE);
  if (phases.includes('vsix')) ensureCodeServer(OLDEST_RELEASE);
  const installMs = Date.now() - installStarted;
  buildExtension();
  const vtests = phases.includes('suite') ? await buildSuite() : [];
  process.stdout.write(
    `built${vtests.length ? `; suite files: ${vtests.join(', ')}` : ''}; code-server ready in ${installMs} ms\n`,
  );
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-vscode-test-'));
  const outcomes: PhaseOutcome[] = [];
  const stopPg = phases.includes('suite') ? ensurePgServer() : () => undefined;
  const browser = await launchBrowser();
  try {
    for (const phase of phases) {
      const phaseStarted = Date.now();
      try {
        if (phase === 'suite') outcomes.push(await runSuitePhase(browser, workDir));
        else if (phase === 'ui') outcomes.push(await runUiPhase(browser, workDir));
        else outcomes.push(await runVsixPhase(browser, workDir));
      } catch (e) {
        const o = {
          name: 'phase ran',
          ok: false,
          error: e instanceof Error ? (e.stack ?? e.message) : String(e),
          durationMs: Date.now() - phaseStarted,
        };
        printOutcome(phase, o);
        outcomes.push({ phase, results: [o] });
      }
    }
  } finally {
    await browser.close();
    stopPg();
  }
  const all = outcomes.flatMap((o) => o.results);
  const passed = all.filter((r) => r.ok).length;
  const failed = all.length - passed;
  if (fs.existsSync(SCREENSHOTS)) {
    const shots = fs.readdirSync(SCREENSHOTS).filter((f) => f.endsWith('.png'));
    process.stdout.write(
      `\nscreenshots: ${path.relative(process.cwd(), SCREENSHOTS)}/ (${shots.length}: ${shots.join(', ')})\n`,
    );
  }
  if (failed === 0) fs.rmSync(workDir, { recursive: true, force: true });
  else process.stdout.write(`\nwork folder (logs, failure screenshots): ${workDir}\n`);
  process.stdout.write(`${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  return failed > 0 || all.length === 0 ? 1 : 0;
}

/**
 * The PostgreSQL server of the shared-store suite: OCDB_TEST_PG_URL when given, else a throwaway cluster started
 * with test/support/pgCluster.sh (stopped and removed by the function returned). Without the server binaries the
 * suite's test fails saying so; nothing is skipped.
 */
function ensurePgServer(): () => void {
  if (process.env.OCDB_TEST_PG_URL) return () => undefined;
  const script = path.join(REPO_ROOT, 'test', 'support', 'pgCluster.sh');
  const r = spawnSync('bash', [script, 'start'], { encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`no PostgreSQL for the shared-store suite: ${r.stderr}\n`);
    return () => undefined;
  }
  const url = /OCDB_TEST_PG_URL='([^']+)'/.exec(r.stdout)?.[1];
  const dir = /OCDB_TEST_PG_DIR='([^']+)'/.exec(r.stdout)?.[1];
  if (url) process.env.OCDB_TEST_PG_URL = url;
  return () => {
    if (dir) spawnSync('bash', [script, 'stop', dir], { stdio: 'inherit' });
    delete process.env.OCDB_TEST_PG_URL;
  };
}

/**
 * Two runs in one checkout would rebuild dist/ and out/ under each other's extension host and clear each other's
 * screenshots: the run re-executes itself under `flock` on a per-checkout lock file, so a second run waits.
 */
function underLock(): boolean {
  if (process.env.OCDB_VSCODE_TEST_LOCKED === '1') return false;
  const lock = path.join(
    os.tmpdir(),
    `ocdb-test-vscode-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`,
  );
  if (spawnSync('flock', ['-n', lock, 'true']).status !== 0) {
    process.stderr.write(`waiting for another test:vscode run in ${REPO_ROOT} (lock ${lock})\n`);
  }
  const r = spawnSync('flock', [lock, process.execPath, ...process.execArgv, __filename, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, OCDB_VSCODE_TEST_LOCKED: '1' },
  });
  process.exit(r.status ?? 1);
}

if (!underLock())
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n0 passed, 1 failed\n`);
      process.exit(1);
    },
  );

/**
 * The extension-tests entry (`extensionTestsPath`) loaded by the VS Code extension host: finds every compiled
 * `*.vtest.js` beside it, runs their `tests` in order with a per-test timeout, writes a JSON report to
 * $OCDB_VTEST_RESULTS (rewritten after each test so a hang still shows progress) and rejects when anything failed —
 * which is also what @vscode/test-electron expects of `run()`. Depends only on Node and the vtest contract.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { VTest, VTestReport, VTestResult } from './vtest';

const DEFAULT_TIMEOUT_MS = 60_000;

function describe(e: unknown): string {
  if (e instanceof Error) return e.stack ?? `${e.name}: ${e.message}`;
  return String(e);
}

function isVTest(t: unknown): t is VTest {
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof (t as VTest).name === 'string' &&
    typeof (t as VTest).run === 'function'
  );
}

async function withTimeout(test: VTest, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([test.run(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

class Reporter {
  readonly report: VTestReport = { done: false, results: [] };
  constructor(private readonly file: string | undefined) {}
  add(r: VTestResult): void {
    this.report.results.push(r);
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.file} › ${r.name} (${r.durationMs} ms)${r.ok ? '' : `\n${r.error}`}`);
    this.flush();
  }
  fatal(message: string): void {
    this.report.fatal = this.report.fatal ? `${this.report.fatal}\n${message}` : message;
    console.error(message);
  }
  flush(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.report, null, 2));
    fs.renameSync(tmp, this.file);
  }
}

/** Loads the test files: every `*.vtest.js` in this folder (OCDB_VTEST_FILES, comma-separated, narrows it). */
function loadTestFiles(dir: string, reporter: Reporter): { file: string; tests: VTest[] }[] {
  const only = process.env.OCDB_VTEST_FILES?.split(',').filter(Boolean);
  const names = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.vtest.js'))
    .filter((n) => !only || only.some((o) => n.startsWith(o)))
    .sort();
  if (names.length === 0) reporter.fatal(`no *.vtest.js files in ${dir}`);
  const files: { file: string; tests: VTest[] }[] = [];
  for (const name of names) {
    const file = name.replace(/\.js$/, '.ts');
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- test files are found at run time
      const mod = require(path.join(dir, name)) as { tests?: unknown };
      if (!Array.isArray(mod.tests) || !mod.tests.every(isVTest)) {
        reporter.fatal(`${file}: must export \`tests: { name: string; run(): Promise<void> }[]\``);
        continue;
      }
      files.push({ file, tests: mod.tests });
    } catch (e) {
      reporter.fatal(`${file}: failed to load: ${describe(e)}`);
    }
  }
  return files;
}

/** Runs the suite; resolves when every test passed, rejects otherwise. */
export async function run(): Promise<void> {
  const reporter = new Reporter(process.env.OCDB_VTEST_RESULTS);
  reporter.flush(); // an empty report tells the driving script the extension host has loaded the suite
  const grep = process.env.OCDB_VTEST_GREP;
  const defaultTimeout = Number(process.env.OCDB_VTEST_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS;
  try {
    for (const { file, tests } of loadTestFiles(__dirname, reporter)) {
      for (const test of tests) {
        if (grep && !`${file} ${test.name}`.includes(grep)) continue;
        const started = Date.now();
        try {
          await withTimeout(test, test.timeoutMs ?? defaultTimeout);
          reporter.add({ file, name: test.name, ok: true, durationMs: Date.now() - started });
        } catch (e) {
          reporter.add({ file, name: test.name, ok: false, error: describe(e), durationMs: Date.now() - started });
        }
      }
    }
  } catch (e) {
    reporter.fatal(`suite crashed: ${describe(e)}`);
  }
  reporter.report.done = true;
  reporter.flush();
  const failed = reporter.report.results.filter((r) => !r.ok).length;
  if (failed > 0 || reporter.report.fatal) {
    throw new Error(`${failed} test(s) failed${reporter.report.fatal ? `; ${reporter.report.fatal}` : ''}`);
  }
}

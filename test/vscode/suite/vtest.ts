/**
 * The contract between the VS Code test harness (index.ts) and the test files: every `suite/*.vtest.ts` exports
 * `tests: VTest[]`, run in order inside the extension host with the full `vscode` API. Also small helpers the test
 * files share. Imports `vscode` as a value only in the test files, never here.
 */

/** One test run inside the extension host. It fails by throwing (node:assert is fine). */
export interface VTest {
  name: string;
  run(): Promise<void>;
  /** Per-test timeout; default OCDB_VTEST_TIMEOUT_MS or 60 s. */
  timeoutMs?: number;
}

/** One line of the results file the driving script reads. */
export interface VTestResult {
  file: string;
  name: string;
  ok: boolean;
  error?: string;
  durationMs: number;
}

/** The results file: rewritten after each test, `done` once the whole suite has settled. */
export interface VTestReport {
  done: boolean;
  results: VTestResult[];
  /** A failure outside any test (a file that did not load, no test files found). */
  fatal?: string;
}

/** Polls `probe` until it returns a value other than undefined/false, or throws after `timeoutMs` saying `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

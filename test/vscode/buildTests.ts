/**
 * Builds what the VS Code tests load: the shipped bundles (`node esbuild.mjs`) and the extension-host suite —
 * test/vscode/suite/index.ts plus every *.vtest.ts, each bundled to out/test/vscode/suite/<name>.js with `vscode`
 * left external (index.js finds the *.vtest.js files at run time, as it would after `tsc`).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { REPO_ROOT } from './codeServer';

export const SUITE_SRC = path.join(REPO_ROOT, 'test', 'vscode', 'suite');
export const SUITE_OUT = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite');

/** `node esbuild.mjs [args]` in the repo: dist/extension.js, dist/cli.js, dist/webview.js ... */
export function buildExtension(args: string[] = []): void {
  const r = spawnSync(process.execPath, ['esbuild.mjs', ...args], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`node esbuild.mjs ${args.join(' ')} failed (exit ${r.status})`);
}

/** Bundles the suite; returns the test file names it compiled. */
export async function buildSuite(): Promise<string[]> {
  const vtests = fs
    .readdirSync(SUITE_SRC)
    .filter((n) => n.endsWith('.vtest.ts'))
    .sort();
  fs.rmSync(SUITE_OUT, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: ['index.ts', ...vtests].map((n) => path.join(SUITE_SRC, n)),
    outdir: SUITE_OUT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    external: ['vscode', 'better-sqlite3', 'node:sqlite'],
    logLevel: 'warning',
  });
  return vtests;
}

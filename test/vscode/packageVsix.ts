/**
 * `npm run package`: a production build (`node esbuild.mjs --production`) packed by @vscode/vsce into
 * out/<name>-<version>.vsix. .vscodeignore keeps it to dist/, media/ and the docs: no node_modules and no native
 * module — the extension host's store is node:sqlite (src/store/openDriver.ts), so one package serves every
 * platform. `vsixContents` checks exactly that, and the size budget. vsce rewrites README.md's relative links and
 * images against package.json's `repository`, as the Marketplace page shows them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildExtension } from './buildTests';
import { REPO_ROOT } from './codeServer';

const VSCE = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');

/** What must be in the .vsix, and the only prefixes allowed besides the vsix manifest files. */
export const REQUIRED_ENTRIES = [
  'extension/package.json',
  'extension/dist/extension.js',
  'extension/dist/cli.js', // `ocdb mcp`, which the extension registers for agent mode
  'extension/dist/pgWorker.js',
  'extension/dist/webview.js',
  'extension/dist/timeline.js',
  'extension/dist/cohort.js',
  'extension/dist/codicons/codicon.css',
  'extension/dist/codicons/codicon.ttf',
];
/** The .vsix's budget: what it weighs today (1.4 MB) with room for a few screenshots, not for a stray folder. */
export const VSIX_BUDGET_BYTES = 3 * 1024 * 1024;
const ALLOWED = [
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
  /^extension\/(package\.json|readme\.md|changelog\.md|LICENSE\.txt)$/,
  /^extension\/dist\/[^/]+\.(js|css)$/,
  /^extension\/dist\/codicons\/codicon\.(css|ttf)$/,
  /^extension\/media\/(?!.*\.node$)/,
];

export function vsixPath(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return path.join(REPO_ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
}

/** Builds and packs the extension; returns the .vsix path. */
export function packageVsix(): string {
  buildExtension(['--production']);
  const out = vsixPath();
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.rmSync(out, { force: true });
  const r = spawnSync(process.execPath, [VSCE, 'package', '--out', out], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (r.status !== 0 || !fs.existsSync(out)) throw new Error(`vsce package failed (exit ${r.status}):\n${r.stdout}`);
  return out;
}

/**
 * The entries of a .vsix (a zip), checked: what is missing, what should not be there (a native `.node` module or
 * anything outside the allowed folders), and whether it is over the size budget.
 */
export function vsixContents(file: string): {
  entries: string[];
  missing: string[];
  unexpected: string[];
  overBudget?: string;
} {
  const entries = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
  const size = fs.statSync(file).size;
  return {
    entries,
    missing: REQUIRED_ENTRIES.filter((e) => !entries.includes(e)),
    unexpected: entries.filter((e) => e.endsWith('.node') || !ALLOWED.some((re) => re.test(e))),
    overBudget:
      size > VSIX_BUDGET_BYTES
        ? `${(size / 1024 / 1024).toFixed(2)} MB, over the ${VSIX_BUDGET_BYTES / 1024 / 1024} MB budget`
        : undefined,
  };
}

if (require.main === module) {
  const file = packageVsix();
  const { entries, missing, unexpected, overBudget } = vsixContents(file);
  const size = fs.statSync(file).size;
  const top = new Map<string, number>();
  for (const e of entries) {
    const key = e
      .split('/')
      .slice(0, e.startsWith('extension/node_modules/') ? 3 : 2)
      .join('/');
    top.set(key, (top.get(key) ?? 0) + 1);
  }
  console.log(`${path.relative(process.cwd(), file)}: ${(size / 1024 / 1024).toFixed(2)} MB, ${entries.length} files`);
  for (const [k, n] of [...top].sort()) console.log(`  ${k}${n > 1 ? ` (${n} files)` : ''}`);
  if (missing.length || unexpected.length || overBudget) {
    console.error(
      `missing: ${missing.join(', ') || '-'}\nunexpected: ${unexpected.join(', ') || '-'}${overBudget ? `\n${overBudget}` : ''}`,
    );
    process.exit(1);
  }
}

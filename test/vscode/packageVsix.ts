/**
 * `npm run package`: a production build (`node esbuild.mjs --production`) packed by @vscode/vsce into
 * out/<name>-<version>.vsix. .vscodeignore keeps it to dist/, media/, the docs and better-sqlite3's runtime (its
 * native binary included — the one module esbuild leaves external); `vsixContents` checks exactly that. Relative
 * links in README.md stay as written (no repository URL to rewrite them against), so a README screenshot packs.
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
  'extension/dist/pgWorker.js',
  'extension/dist/webview.js',
  'extension/dist/codicons/codicon.css',
  'extension/dist/codicons/codicon.ttf',
  'extension/node_modules/better-sqlite3/build/Release/better_sqlite3.node',
  'extension/node_modules/better-sqlite3/lib/index.js',
  'extension/node_modules/bindings/bindings.js',
  'extension/node_modules/file-uri-to-path/index.js',
];
const ALLOWED = [
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
  /^extension\/(package\.json|readme\.md|changelog\.md|LICENSE\.txt)$/,
  /^extension\/dist\/[^/]+\.(js|css)$/,
  /^extension\/dist\/codicons\/codicon\.(css|ttf)$/,
  /^extension\/media\//,
  /^extension\/node_modules\/(better-sqlite3|bindings|file-uri-to-path)\//,
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
  const r = spawnSync(
    process.execPath,
    [VSCE, 'package', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    },
  );
  if (r.status !== 0 || !fs.existsSync(out)) throw new Error(`vsce package failed (exit ${r.status}):\n${r.stdout}`);
  return out;
}

/** The entries of a .vsix (a zip), checked: what is missing and what should not be there. */
export function vsixContents(file: string): { entries: string[]; missing: string[]; unexpected: string[] } {
  const entries = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
  return {
    entries,
    missing: REQUIRED_ENTRIES.filter((e) => !entries.includes(e)),
    unexpected: entries.filter((e) => !ALLOWED.some((re) => re.test(e))),
  };
}

if (require.main === module) {
  const file = packageVsix();
  const { entries, missing, unexpected } = vsixContents(file);
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
  if (missing.length || unexpected.length) {
    console.error(`missing: ${missing.join(', ') || '-'}\nunexpected: ${unexpected.join(', ') || '-'}`);
    process.exit(1);
  }
}

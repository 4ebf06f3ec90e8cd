// Builds the shipped bundles: the VS Code extension, the `ocdb` CLI, the
// recorder SDK library, the PostgreSQL store's worker thread and the webview page. `node esbuild.mjs --watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { chmodSync, cpSync, existsSync, mkdirSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/** Node bundles: native and VS Code modules stay external. */
const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  // pg-native: pg's optional libpq binding, never used (pg's pure-JS client runs in dist/pgWorker.js)
  external: ['vscode', 'better-sqlite3', 'node:sqlite', 'pg-native'],
  logLevel: 'warning',
};

const builds = [
  { ...node, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist' },
  {
    ...node,
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir: 'dist',
    // Run as `ocdb` (npm's link, or its Windows shim, which reads this line): young generation capped at 4 MiB a
    // semi-space, where V8 grows it to 16 — ~40 MiB less peak memory in an import for ~1–3 % more time collecting
    // (src/cli/heapTuning.ts has the figures). V8 reads it only as the process starts, so it cannot be set later.
    banner: { js: '#!/usr/bin/env -S node --max-semi-space-size=4' },
  },
  { ...node, entryPoints: { recorder: 'src/recorder/index.ts' }, outdir: 'dist' },
  // the PostgreSQL store's connection thread, started by src/store/pgDriver.ts from beside the bundle that opens it
  { ...node, entryPoints: { pgWorker: 'src/store/pgWorker.ts' }, outdir: 'dist' },
];
if (existsSync('src/webview/main.ts')) {
  builds.push({
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: !production,
    minify: production,
    entryPoints: { webview: 'src/webview/main.ts' },
    outdir: 'dist',
    logLevel: 'warning',
  });
}

// The webview's icon font: copied into dist/ so the webview's localResourceRoots can stay limited to the bundle.
if (existsSync('node_modules/@vscode/codicons/dist/codicon.css')) {
  mkdirSync('dist/codicons', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf'])
    cpSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/codicons/${f}`);
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('esbuild: watching');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  // Runnable as `ocdb` straight from a clone (dist/cli.js, through its #! line), as npm makes a package's bin
  chmodSync('dist/cli.js', 0o755);
}

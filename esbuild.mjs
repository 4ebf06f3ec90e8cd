// Builds the shipped bundles: the VS Code extension, the `ocdb` CLI, the
// recorder SDK library, the PostgreSQL store's worker thread and the webview page. `node esbuild.mjs --watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

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
    // Plain `env node`, no flags: a flag needs `env -S`, which BusyBox's env (Alpine, the node:alpine images) and the
    // BSDs' refuse — `ocdb` would not start there. The import's young generation is capped at run time instead
    // (src/cli/heapTuning.ts).
    banner: { js: '#!/usr/bin/env node' },
  },
  { ...node, entryPoints: { recorder: 'src/recorder/index.ts' }, outdir: 'dist' },
  // the PostgreSQL store's connection thread, started by src/store/pgDriver.ts from beside the bundle that opens it
  { ...node, entryPoints: { pgWorker: 'src/store/pgWorker.ts' }, outdir: 'dist' },
  // the team store's thread (every wait on a shared PostgreSQL), started by src/team/teamClient.ts
  { ...node, entryPoints: { teamWorker: 'src/team/teamWorker.ts' }, outdir: 'dist' },
];
if (existsSync('src/webview/main.ts')) {
  builds.push({
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: !production,
    minify: production,
    entryPoints: { webview: 'src/webview/main.ts', cohort: 'src/webview/cohortMain.ts' },
    outdir: 'dist',
    logLevel: 'warning',
  });
}

// The Timeline page: one bundle for the VS Code panel and the file `ocdb view` writes (inlined there, so minified
// and without a source map); its stylesheet travels in it as text.
if (existsSync('src/webview/timelineMain.ts')) {
  builds.push({
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    minify: true,
    loader: { '.css': 'text' },
    entryPoints: { timeline: 'src/webview/timelineMain.ts' },
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

/**
 * Writes the comments' non-ASCII characters (—, →, … in doc comments, which esbuild keeps) as \uXXXX text, so the
 * bundle is ASCII: V8 then keeps its source as one byte a character, not two — ~2 MiB less memory in every process
 * that loads it. Only comments can hold them: esbuild's output escapes every other non-ASCII character (its default
 * `charset`). One UTF-16 unit for six, on comment text only: no code moves on its line, so the source map holds.
 */
function asciiComments(file) {
  const text = readFileSync(file, 'utf8');
  // eslint-disable-next-line no-control-regex -- the complement of ASCII
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(file, ascii);
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('esbuild: watching');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  for (const b of builds) if (b.platform === 'node') asciiComments(`dist/${Object.keys(b.entryPoints)[0]}.js`);
  // Runnable as `ocdb` straight from a clone (dist/cli.js, through its #! line), as npm makes a package's bin
  chmodSync('dist/cli.js', 0o755);
}

/**
 * Makes a workspace folder holding the demo run store at `.ocdb/runs.db`, written by the built CLI
 * (`node dist/cli.js demo`), i.e. the same store a user gets from `ocdb demo`. Run after `node esbuild.mjs`.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './codeServer';

export const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

/** Creates (or refreshes) `dir` with a fresh demo store; returns the store path. */
export function writeDemoWorkspace(dir: string): string {
  const store = path.join(dir, '.ocdb', 'runs.db');
  fs.mkdirSync(path.dirname(store), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(store + suffix, { force: true });
  const r = spawnSync(process.execPath, [CLI, 'demo', '--store', store], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`ocdb demo --store ${store} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
  return store;
}

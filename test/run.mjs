// Runs the node:test files of one layer (`unit`, `dap`, ...) — Node 20's
// `--test` takes no globs, so this finds the *.test.ts files itself.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const layers = process.argv.slice(2);
if (layers.length === 0) {
  console.error('usage: node test/run.mjs <layer> [<layer> ...]   (folders under test/)');
  process.exit(2);
}
function find(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return find(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}
const files = layers.flatMap((l) => find(join('test', l))).sort();
if (files.length === 0) {
  console.error(`no test files under ${layers.map((l) => `test/${l}`).join(', ')}`);
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);

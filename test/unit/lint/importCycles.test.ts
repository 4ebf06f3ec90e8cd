/**
 * No import cycle between the files of src/, type-only imports included: a cycle makes the order modules load in
 * decide what a module sees (a class undefined at its first use), and a type-only one is where a value import later
 * turns it into that bug — and it ties files together that should change alone (a reader and the file that runs it).
 * The import graph is dpdm's, read with TypeScript as the build reads it; dynamic imports (each `ocdb` command's
 * module) count too.
 */
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { parseCircular, parseDependencyTree } from 'dpdm';

const ROOT = resolve(__dirname, '../../..');

test('no import cycle between the files of src/', async () => {
  const tree = await parseDependencyTree('src/**/*.ts', {
    context: ROOT,
    cwd: ROOT,
    tsconfig: join(ROOT, 'tsconfig.json'),
    transform: false, // keep `import type`: a type-only edge still closes a cycle
    skipDynamicImports: false,
  });
  assert.ok(Object.keys(tree).length > 100, 'the graph covers src/');
  const cycles = parseCircular(tree).map((files) => [...files, files[0]].join(' -> '));
  assert.deepEqual(cycles, [], 'break each cycle: move what both ends share into a file of its own');
});

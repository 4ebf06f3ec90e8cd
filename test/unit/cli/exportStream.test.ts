/**
 * `ocdb export` streams: the text is exactly the pretty-printed DebugRun, and
 * memory does not grow with the run — a 600-checkpoint run whose export is
 * ~70 MB (each checkpoint repeats the conversation) exports under a 40 MB heap
 * that building the whole DebugRun in memory runs out of.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { writeRunExport } from '../../../src/store';
import { tmpDir, tmpStore } from '../../helpers/tmp';
import { recordLongRun } from '../../bench/longRun';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli.js');

test('the streamed export is the same text as JSON.stringify(exportRun) for every demo run', () => {
  const store = tmpStore();
  for (const runId of writeDemoStore(store)) {
    const chunks: string[] = [];
    writeRunExport(store, runId, (c) => chunks.push(c));
    assert.equal(chunks.join('\n'), JSON.stringify(store.exportRun(runId), null, 2), runId);
  }
});

test('a long run exports with a heap far smaller than its export', async () => {
  const dir = tmpDir();
  const db = path.join(dir, 'long.db');
  recordLongRun(db, 600);
  const out = path.join(dir, 'long.json');
  const r = spawnSync(
    process.execPath,
    ['--max-old-space-size=40', CLI, 'export', 'long-run', '--store', db, '--out', out],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 0, r.stderr.slice(0, 2000));
  const size = fs.statSync(out).size;
  assert.ok(size > 60 * 2 ** 20, `the export is ${size} bytes`);
  const text = fs.readFileSync(out, 'utf8');
  assert.match(text.slice(0, 200), /^\{\n {2}"runId": "long-run",/);
  assert.ok(
    text.endsWith('\n    }\n  ],\n  "toolLedger": [],\n  "artifactRefs": [],\n  "metadata": {}\n}\n'),
    text.slice(-300),
  );
  assert.equal(text.match(/\n {6}"boundary": /g)?.length, 600, 'all 600 checkpoints');
  // through a pipe (as `ocdb export … | jq`): ocdb waits for its reader instead of buffering the export
  const child = spawn(process.execPath, ['--max-old-space-size=40', CLI, 'export', 'long-run', '--store', db], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let piped = 0;
  let err = '';
  child.stdout.on('data', (c: Buffer) => (piped += c.length));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  assert.equal(code, 0, err.slice(0, 2000));
  assert.equal(piped, size, 'stdout and --out write the same bytes');
});

/**
 * The examples of media/docs/runtimes.md for the systems this tool plugs into run as a new user would run them (against the built
 * `agent-time-travel/recorder`), and leave the runs the page says: the ToolJournal's cancelled receipt shows as
 * CANCELLED; the ACP stream's tool call has its result and its approval.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');

/** Runs the ```js block after `<!-- marker -->` with OCDB_STORE=`store`. */
function runExample(marker: string, store: string): void {
  const doc = readFileSync(join(ROOT, 'media/docs/runtimes.md'), 'utf8');
  const match = new RegExp(`<!-- ${marker} -->\\s*\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(doc);
  assert.ok(match, `media/docs/runtimes.md has a \`\`\`js block after <!-- ${marker} -->`);
  // Inside the package folder, `agent-time-travel/recorder` resolves to this package (self-reference via exports);
  // dist/ is this checkout's own build (a .cache symlink may point into another checkout).
  const dir = join(ROOT, 'dist', '.examples');
  const file = join(dir, `readme-${marker}-${process.pid}.js`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, match[1] as string);
  try {
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8', env: { ...process.env, OCDB_STORE: store } });
    assert.equal(r.status, 0, r.stderr);
  } finally {
    rmSync(file, { force: true });
  }
}

test("the runtimes page's ToolJournal example: ocdb show has the result and the cancelled receipt", () => {
  const store = join(tmpDir(), 'journal.db');
  runExample('tooljournal-example', store);
  const db = openRunStore(store);
  const [run] = db.listRuns().runs;
  db.close();
  assert.ok(run);
  const show = spawnSync(process.execPath, [CLI, 'show', run.runId, '--store', store], { encoding: 'utf8' });
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, /read-status/);
  assert.match(show.stdout, /deploy\.prod .*CANCELLED/);
});

test("the runtimes page's ACP stream example: the run has the tool call, its result and the approval", () => {
  const store = join(tmpDir(), 'acp.db');
  runExample('acp-stream-example', store);
  const db = openRunStore(store);
  try {
    const [summary] = db.listRuns().runs;
    assert.ok(summary);
    const run = db.exportRun(summary.runId);
    assert.equal(run.status, 'completed');
    assert.deepEqual(
      run.toolLedger.map((t) => [t.toolName, t.replayPolicy, t.result]),
      [['mcp__sandbox__bash', 'manual_confirm', { exitCode: 0 }]],
    );
    const events = run.checkpoints.at(-1)?.runtimeContext.events as { type: string; decision?: unknown }[];
    assert.equal(events.find((e) => e.type === 'approval')?.decision, 'allow');
  } finally {
    db.close();
  }
});

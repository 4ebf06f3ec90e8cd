/**
 * The node:sqlite driver under a real Node 22 (the runtime of desktop VS Code 1.101+'s extension host, where the
 * better-sqlite3 binary built for Node 20 cannot load): the demo recorded through it reads back identical to the
 * same demo recorded through better-sqlite3, passes integrity_check, and the file opens with better-sqlite3 again.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore, type SqliteRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';
import { node22Binary } from './nodeSqliteDriverBinary';

const CHILD = join(__dirname, 'nodeSqliteDriverChild.ts');

interface ChildReport {
  node: string;
  driver: string;
  integrity: string;
  written: string[];
  runs: { runId: string; status: string; crashed: boolean; checkpoints: number }[];
  exports: Record<string, unknown>;
  firstToolCall?: { boundary: string; toolCallId?: string };
}

function recordUnderNode22(store: string, how: 'forced' | 'fallback'): ChildReport {
  const env = { ...process.env };
  delete env.OCDB_SQLITE_DRIVER;
  const r = spawnSync(node22Binary(), ['--no-warnings', '--import', 'tsx', CHILD, store, how], {
    encoding: 'utf8',
    env,
  });
  assert.equal(r.status, 0, `child failed:\n${r.stderr}`);
  return JSON.parse(r.stdout) as ChildReport;
}

/** The same demo recorded in this process (Node 20, better-sqlite3): the reference. */
function referenceExports(): Record<string, unknown> {
  const store = openRunStore(join(tmpDir(), 'reference.db'), { driver: 'better-sqlite3' });
  try {
    return Object.fromEntries(writeDemoStore(store).map((id) => [id, store.exportRun(id)]));
  } finally {
    store.close();
  }
}

/** Drops what legitimately differs between two recordings: wall-clock times and the crashed run's dead pid. */
function stable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (k, v: unknown) =>
      /At$|^pid$|ownerPid/.test(k) && typeof v !== 'object' ? '<volatile>' : v,
    ),
  );
}

test('under Node 22 the store records and reads the whole demo through node:sqlite, identical to better-sqlite3', () => {
  const file = join(tmpDir(), 'runs.db');
  const report = recordUnderNode22(file, 'forced');
  assert.match(report.node, /^v22\./);
  assert.equal(report.driver, 'node:sqlite');
  assert.equal(report.integrity, 'ok');
  assert.equal(report.written.length, 7);
  const byId = new Map(report.runs.map((r) => [r.runId, r]));
  assert.equal(
    byId.get('demo-research-crashed')?.crashed,
    true,
    'a run left running by a dead process shows as crashed',
  );
  assert.equal(byId.get('demo-coding-cancelled')?.status, 'cancelled');
  assert.ok((byId.get('demo-support-refund')?.checkpoints ?? 0) > 40);
  assert.equal(report.firstToolCall?.boundary, 'before_tool_call');
  assert.deepEqual(stable(report.exports), stable(referenceExports()));

  // The file node:sqlite wrote opens with better-sqlite3 (Node 20) and holds the same runs.
  let store: SqliteRunStore | undefined;
  try {
    store = openRunStore(file, { create: false, driver: 'better-sqlite3' });
    assert.equal(store.integrityCheck(), 'ok');
    assert.deepEqual(
      store
        .listRuns({ limit: 100 })
        .runs.map((r) => r.runId)
        .sort(),
      [...report.written].sort(),
    );
    assert.deepEqual(stable(store.exportRun('demo-support-refund')), stable(report.exports['demo-support-refund']));
  } finally {
    store?.close();
  }
});

test('under Node 22 a store opened without a driver falls back to node:sqlite (the Node 20 better-sqlite3 binary cannot load)', () => {
  const report = recordUnderNode22(join(tmpDir(), 'runs.db'), 'fallback');
  assert.match(report.node, /^v22\./);
  assert.equal(report.driver, 'node:sqlite');
  assert.equal(report.integrity, 'ok');
  assert.equal(report.runs.length, 7);
});

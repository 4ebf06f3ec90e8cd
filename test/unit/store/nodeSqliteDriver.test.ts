/**
 * The store under the Nodes of the supported VS Code releases' extension hosts (22.17 in 1.103, the oldest; 22.22;
 * 24 in a current one), fetched from the npm registry: there the store opens with node:sqlite by itself, prints no
 * ExperimentalWarning, records the whole demo identical to better-sqlite3 (this process, Node 20), passes
 * integrity_check, and the file opens with better-sqlite3 again.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { defaultSqliteDriver } from '../../../src/store/openDriver';
import { tmpDir } from '../../helpers/tmp';
import { ensureNode, EXTENSION_HOST_NODES } from '../../support/nodeRuntime';

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

/** Records the demo under Node `version` with the driver it picks by itself; what it printed on stderr too. */
function recordUnder(version: string, store: string): ChildReport & { stderr: string } {
  const env = { ...process.env };
  delete env.OCDB_SQLITE_DRIVER;
  delete env.NODE_OPTIONS;
  const r = spawnSync(ensureNode(version), ['--import', 'tsx', CHILD, store, 'default'], { encoding: 'utf8', env });
  assert.equal(r.status, 0, `child failed:\n${r.stderr}`);
  return { ...(JSON.parse(r.stdout) as ChildReport), stderr: r.stderr };
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

let reference: Record<string, unknown> | undefined;

for (const version of EXTENSION_HOST_NODES) {
  test(`under Node ${version} the store picks node:sqlite by itself, warns nothing, and records the demo as better-sqlite3 does`, () => {
    const file = join(tmpDir(), 'runs.db');
    const report = recordUnder(version, file);
    assert.equal(report.node, `v${version}`);
    assert.equal(report.driver, 'node:sqlite');
    assert.doesNotMatch(report.stderr, /ExperimentalWarning|SQLite is an experimental/);
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
    reference ??= referenceExports();
    assert.deepEqual(stable(report.exports), stable(reference));

    // The file node:sqlite wrote opens with better-sqlite3 (Node 20) and holds the same runs.
    let store: SqlRunStore | undefined;
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
}

test('on Node 20, which has no node:sqlite, the store opens with better-sqlite3', () => {
  assert.match(process.version, /^v20\./);
  assert.equal(defaultSqliteDriver(), 'better-sqlite3');
  const forced = process.env.OCDB_SQLITE_DRIVER;
  delete process.env.OCDB_SQLITE_DRIVER;
  const store = openRunStore(join(tmpDir(), 'runs.db'));
  try {
    assert.equal(store.driverName, 'better-sqlite3');
  } finally {
    store.close();
    if (forced !== undefined) process.env.OCDB_SQLITE_DRIVER = forced;
  }
});

/**
 * Schema 6 (binary content hashes, checkpoints keyed by run and index) migrates stores in place with their data:
 * `test/fixtures/stores/schema5.db` was written by the code of schema 5 (the seven demo runs — forks, artifacts,
 * a crashed and a cancelled run — a run whose large tool results are shared blobs, and a run deleted afterwards, so
 * list node ids have a gap), and `schema5.exports.sha256.json` holds the SHA-256 of each run's export made then.
 * Opened by this code (SQLite), and copied row for row into a PostgreSQL database at its schema 2 and opened
 * there, every run exports exactly as it did; the migrated store goes on recording and collecting garbage.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openRecorder } from '../../../src/recorder';
import { openRunStore, type RunStore } from '../../../src/store';
import { MIGRATIONS } from '../../../src/store/migrations';
import { PG_URL, pgSchemaUrl } from '../../helpers/engines';
import { testContext } from '../../helpers/context';
import { loadSqliteFixtureIntoPg } from '../../helpers/pgFixtureStore';
import { tmpDir } from '../../helpers/tmp';

const FIXTURES = join(__dirname, '../../fixtures/stores');
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'schema5.exports.sha256.json'), 'utf8')) as Record<
  string,
  string
>;

const sha = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/** Every run of the store exports as it did at schema 5 (and no run is missing or added). */
function assertExportsUnchanged(store: RunStore): void {
  const ids = store.listRuns({ limit: 1000 }).runs.map((r) => r.runId);
  assert.deepEqual([...ids].sort(), Object.keys(EXPECTED).sort());
  for (const id of ids) assert.equal(sha(store.exportRun(id)), EXPECTED[id], `run ${id} exports as before`);
}

async function recordMore(location: string, runId: string): Promise<void> {
  const recorder = openRecorder({ store: location, heartbeatMs: 0 });
  const run = recorder.startRun({ runId, agentId: 'after', runtimeContext: testContext(), systemPrompt: 'Be brief.' });
  const fetchPage = run.tool('fetch', { sideEffectLevel: 'read_only' }, () => ({
    page: `shared-result ${'lorem ipsum dolor sit amet '.repeat(60)}`, // the same large result as the old run's
  }));
  await run.modelCall({}, () => Promise.resolve({ message: { role: 'assistant', content: 'fetching' } }));
  await fetchPage({}, { toolCallId: 'n1' });
  run.end();
  recorder.close();
}

test('a SQLite store of schema 5 migrates in place: every run exports as before, and it goes on recording', async () => {
  const file = join(tmpDir(), 'schema5.db');
  copyFileSync(join(FIXTURES, 'schema5.db'), file);
  const before = new Database(file, { readonly: true });
  const sequence = Number(
    (before.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'list_nodes'").get() as { seq: number }).seq,
  );
  const maxNode = Number((before.prepare('SELECT MAX(id) AS m FROM list_nodes').get() as { m: number }).m);
  before.close();
  assert.ok(sequence > maxNode, 'the fixture has list node ids given out and collected since');

  const store = openRunStore(file, { create: false });
  try {
    assertExportsUnchanged(store);
    assert.equal(store.integrityCheck(), 'ok');
  } finally {
    store.close();
  }
  const db = new Database(file, { readonly: true });
  assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  const types = db.prepare('SELECT typeof(hash) AS t, length(hash) AS n FROM blobs GROUP BY 1, 2').all();
  assert.deepEqual(types, [{ t: 'blob', n: 16 }], 'every blob is keyed by the 16 bytes of its hash');
  assert.equal(
    Number((db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'list_nodes'").get() as { seq: number }).seq),
    sequence,
    'list node ids given out before are never given again',
  );
  assert.equal(
    (db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE tbl_name = 'checkpoints'").get() as { n: number }).n,
    2,
    'checkpoints: one b-tree keyed by run and index, one index of checkpoint ids',
  );
  db.close();

  await recordMore(file, 'after-migration');
  const again = openRunStore(file, { create: false });
  try {
    const added = again.exportRun('after-migration');
    assert.match(JSON.stringify(added.toolLedger), /shared-result lorem/);
    again.deleteRun('after-migration');
    again.deleteRun('demo-coding-cancelled');
    const { ['demo-coding-cancelled']: _gone, ...rest } = EXPECTED;
    for (const [id, hash] of Object.entries(rest)) assert.equal(sha(again.exportRun(id)), hash, `run ${id}`);
    assert.equal(again.integrityCheck(), 'ok');
  } finally {
    again.close();
  }
});

test(
  'a PostgreSQL store of schema 2 (the same rows) migrates in place: every run exports as before',
  { skip: !PG_URL },
  async () => {
    const location = pgSchemaUrl();
    loadSqliteFixtureIntoPg(location, join(FIXTURES, 'schema5.db'), 2);
    const store = openRunStore(location, { create: false });
    try {
      assertExportsUnchanged(store);
      assert.equal(store.integrityCheck(), 'ok');
    } finally {
      store.close();
    }
    await recordMore(location, 'after-migration');
    const again = openRunStore(location, { create: false });
    try {
      assert.match(JSON.stringify(again.exportRun('after-migration').toolLedger), /shared-result lorem/);
      again.deleteRun('after-migration');
      assertExportsUnchanged(again);
      assert.equal(again.integrityCheck(), 'ok');
    } finally {
      again.close();
    }
  },
);

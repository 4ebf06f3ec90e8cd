/**
 * Schema 7 (checkpoint heads by reference, UUID checkpoint ids as 16 bytes, boundaries and usages
 * compact) migrates stores in place with their data. `test/fixtures/stores/schema6.db` was written by the code of
 * schema 6 (commit 90d3883): `schema5.db` opened there (the demo runs, forks, artifacts, shared blobs, a gap in list
 * node ids), then a ReAct run recorded through the SDK (UUID ids; usages plain, with an extra field, fractional and
 * captured; a system prompt and a context that change half-way) and a loaded run whose checkpoint ids are not UUIDs
 * (an uppercase UUID, 16 ASCII bytes, 16 characters of more bytes, a UUID with a non-hex letter, 32 hex digits).
 * `schema6.exports.sha256.json` holds the SHA-256 of each run's export made then. Opened by this code on SQLite, and
 * copied row for row into a PostgreSQL database at its schema 3 and opened there, every run exports exactly as it
 * did, every checkpoint is found by its id, and the store goes on recording and collecting garbage.
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
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'schema6.exports.sha256.json'), 'utf8')) as Record<
  string,
  string
>;
const ODD_IDS = [
  'cp-0',
  'ABCDEF01-2345-4678-9ABC-DEF012345678',
  'sixteen-bytes-id',
  'ünïcödé-sixteen!',
  'abcdef01-2345-4678-9abc-def01234567g',
  '0123456789abcdef0123456789abcdef',
];

const sha = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/** Every run of the store exports as it did at schema 6, and each of its checkpoints is found by its id. */
function assertExportsUnchanged(store: RunStore, expected: Record<string, string> = EXPECTED): void {
  const ids = store.listRuns({ limit: 1000 }).runs.map((r) => r.runId);
  assert.deepEqual([...ids].sort(), Object.keys(expected).sort());
  for (const id of ids) {
    const exported = store.exportRun(id);
    assert.equal(sha(exported), expected[id], `run ${id} exports as before`);
    exported.checkpoints.forEach((cp, i) => {
      assert.deepEqual(store.getCheckpoint(cp.checkpointId), cp, `checkpoint ${cp.checkpointId} found by its id`);
      const summary = store.getCheckpointSummary(cp.checkpointId);
      assert.deepEqual([summary.runId, summary.index, summary.boundary], [id, i, cp.boundary]);
      assert.deepEqual(summary.usage, cp.usage);
      assert.equal(summary.promptVersion, cp.promptVersion);
    });
  }
  const odd = store.exportRun('loaded-ids').checkpoints.map((c) => c.checkpointId);
  assert.deepEqual(odd, ODD_IDS, 'ids that are not UUIDs read back as they were written');
}

async function recordMore(location: string, runId: string): Promise<void> {
  const recorder = openRecorder({ store: location, heartbeatMs: 0 });
  const run = recorder.startRun({ runId, agentId: 'after', runtimeContext: testContext(), systemPrompt: 'Be brief.' });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { step: number }) => ({
    hits: [{ id: `doc-${args.step}`, snippet: `${'lorem ipsum dolor sit amet '.repeat(30)} ${args.step}` }],
  }));
  await run.modelCall({}, () =>
    Promise.resolve({
      message: { role: 'assistant', content: 'searching' },
      usage: { inputTokens: 12, outputTokens: 3 },
    }),
  );
  await search({ step: 1 }, { toolCallId: 'n1' }); // the same result as react-uuids' call-1: one blob
  run.end();
  recorder.close();
}

test('a SQLite store of schema 6 migrates in place: every run exports as before, ids found, and it goes on', async () => {
  const file = join(tmpDir(), 'schema6.db');
  copyFileSync(join(FIXTURES, 'schema6.db'), file);
  const store = openRunStore(file, { create: false });
  try {
    assertExportsUnchanged(store);
    assert.equal(store.integrityCheck(), 'ok');
  } finally {
    store.close();
  }
  const db = new Database(file, { readonly: true });
  assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  const kinds = db
    .prepare(
      `SELECT typeof(c.checkpoint_id) AS t, length(c.checkpoint_id) AS n, COUNT(*) AS k
         FROM checkpoints c JOIN runs r ON r.run_key = c.run_key
        WHERE r.run_id IN ('react-uuids', 'loaded-ids') GROUP BY 1, 2 ORDER BY 1, 2`,
    )
    .all() as { t: string; n: number; k: number }[];
  assert.deepEqual(
    kinds.map((k) => [k.t, k.n]),
    [
      ['blob', 16],
      ['text', 4],
      ['text', 16],
      ['text', 32],
      ['text', 36],
    ],
    'UUIDs are their 16 bytes; other ids (an uppercase UUID, 16 characters, 32 hex digits) their text',
  );
  const heads = (db.prepare('SELECT COUNT(*) AS n FROM checkpoint_heads').get() as { n: number }).n;
  const checkpoints = (db.prepare('SELECT COUNT(*) AS n FROM checkpoints').get() as { n: number }).n;
  assert.ok(heads < checkpoints / 4, `${heads} heads for ${checkpoints} checkpoints`);
  db.close();

  await recordMore(file, 'after-migration');
  const again = openRunStore(file, { create: false });
  try {
    const added = again.exportRun('after-migration');
    assert.equal(added.checkpoints[1]?.usage?.inputTokens, 12);
    assert.equal(added.checkpoints.at(-1)?.systemPrompt, 'Be brief.');
    again.deleteRun('after-migration');
    again.deleteRun('demo-coding-cancelled');
    const { ['demo-coding-cancelled']: _gone, ...rest } = EXPECTED;
    assertExportsUnchanged(again, rest);
    assert.equal(again.integrityCheck(), 'ok');
  } finally {
    again.close();
  }
  const after = new Database(file, { readonly: true });
  const orphans = after
    .prepare('SELECT COUNT(*) AS n FROM checkpoint_heads WHERE head_id NOT IN (SELECT head_id FROM checkpoints)')
    .get() as { n: number };
  assert.equal(orphans.n, 0, 'the heads of deleted runs are collected');
  after.close();
});

test(
  'a PostgreSQL store of schema 3 (the same rows) migrates in place: every run exports as before, ids found',
  { skip: !PG_URL },
  async () => {
    const location = pgSchemaUrl();
    loadSqliteFixtureIntoPg(location, join(FIXTURES, 'schema6.db'), 3);
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
      assert.equal(again.exportRun('after-migration').checkpoints[1]?.usage?.inputTokens, 12);
      again.deleteRun('after-migration');
      assertExportsUnchanged(again);
      assert.equal(again.integrityCheck(), 'ok');
    } finally {
      again.close();
    }
  },
);

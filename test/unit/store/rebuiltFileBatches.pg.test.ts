/**
 * An import's rebuilt files on PostgreSQL: hundreds of file versions and their texts go in a few requests (multi-row
 * statements, texts looked up in a few reads: rowBatches.ts), the rows read back are the ones a SQLite file holds,
 * and a constraint that fails in the middle batch of rows rolls the whole import back (no run, no row, no blob).
 * The session is the bench's (test/bench/largeSession.ts: the real fixture's records cloned).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { importPath } from '../../../src/importers';
import { openRunStore, type RunStore } from '../../../src/store';
import { MAX_ROWS } from '../../../src/store/rowBatches';
import { LARGE, SESSION_ID, records, writeSession } from '../../bench/largeSession';
import { pgAdminQuery, pgSchemaUrl, schemaOf } from '../../helpers/engines';
import { driverRequests } from '../../helpers/pgRequests';

const RUN = `cc-${SESSION_ID}`;
const dir = mkdtempSync(join(tmpdir(), 'ocdb-rebuilt-batches-'));
let file: string;
let sqliteFiles: ReturnType<RunStore['getRebuiltFiles']>;

before(async () => {
  const { lines, subagent } = records({ ...LARGE, toolCalls: 600 });
  file = writeSession(dir, lines, subagent);
  const local = openRunStore(join(dir, 'runs.db'), { create: true });
  try {
    await importPath(local, file);
    sqliteFiles = local.getRebuiltFiles(RUN);
  } finally {
    local.close();
  }
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** Requests the store's putRebuiltFiles sent during `work` (wrapped on the instance). */
async function filesRequests(store: RunStore, work: () => Promise<unknown>): Promise<number[]> {
  const seen: number[] = [];
  const put = store.putRebuiltFiles.bind(store);
  store.putRebuiltFiles = (runId, files) => {
    seen.push(driverRequests(() => put(runId, files)).requests);
  };
  await work();
  return seen;
}

const count = (schema: string, table: string) =>
  Number(pgAdminQuery(`SELECT count(*) AS n FROM ${schema}.${table}`)[0]?.n);

test('an import of hundreds of file versions stores them in a few requests, as a SQLite file holds them', async () => {
  const snapshots = sqliteFiles?.snapshots.length ?? 0;
  assert.ok(snapshots > 2 * MAX_ROWS, `the session rebuilds ${snapshots} file versions: several batches`);
  const store = openRunStore(pgSchemaUrl(), { create: true });
  try {
    const sent = await filesRequests(store, () => importPath(store, file));
    // the session's run and its sub-agent's; a statement and, for a long text, a look-up each sent 70 requests and
    // more for this session (the look-ups sampled once they kept finding nothing)
    assert.equal(sent.length, 2);
    assert.ok(
      sent.every((n) => n <= 4),
      `the rebuilt files cost ${sent.join(' + ')} requests`,
    );
    assert.deepEqual(store.getRebuiltFiles(RUN), sqliteFiles);
    const history = store.getRebuiltFiles(RUN);
    const last = history?.snapshots.at(-1);
    assert.ok(last?.contentHash, 'the last version has a text');
    assert.ok(store.getFileVersionText(last.contentHash).includes('export const'), 'its text reads back');
  } finally {
    store.close();
  }
});

test('a constraint failing in the middle batch of rows leaves nothing of the import: no run, no row, no blob', async () => {
  const url = pgSchemaUrl();
  const schema = schemaOf(url);
  const store = openRunStore(url, { create: true });
  try {
    const blobs = count(schema, 'blobs');
    // a fault in the second of the batches of rows (seq 0 is the marker, each batch MAX_ROWS rows)
    pgAdminQuery(
      `ALTER TABLE ${schema}.file_versions ADD CONSTRAINT fault CHECK (kind = 0 OR seq <> ${MAX_ROWS + 10})`,
    );
    const failed = await importPath(store, file);
    assert.equal(failed.files[0]?.outcome, 'failed');
    assert.match(failed.files[0]?.reason ?? '', /fault|check constraint/i);
    assert.equal(store.hasRun(RUN), false, 'the run was rolled back with its files');
    assert.equal(count(schema, 'runs'), 0);
    assert.equal(count(schema, 'file_versions'), 0);
    assert.equal(count(schema, 'checkpoints'), 0);
    assert.equal(count(schema, 'blobs'), blobs, 'no text of the import stayed');
    // the fault gone, the same import goes through whole on the same connection
    pgAdminQuery(`ALTER TABLE ${schema}.file_versions DROP CONSTRAINT fault`);
    const again = await importPath(store, file);
    assert.equal(again.files[0]?.outcome, 'imported');
    assert.deepEqual(store.getRebuiltFiles(RUN), sqliteFiles);
  } finally {
    store.close();
  }
});

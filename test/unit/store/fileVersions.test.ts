/**
 * File versions in the store, on either engine (OCDB_TEST_ENGINE): each version of a file a row naming its
 * checkpoint and path, its text a blob stored once by content — a text two files, two versions or two runs share
 * is one blob; a version equal to its file's newest in the run is not written again; a deleted file is a version
 * without text; deleting a run takes its versions with it and the texts only it held.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openRunStore, type RunStore } from '../../../src/store';
import { pgAdminQuery, schemaOf, tmpLocation } from '../../helpers/engines';

/** How many blobs the store holds (every content it keeps, once each). */
function blobCount(location: string): number {
  if (location.startsWith('postgres'))
    return Number(pgAdminQuery(`SELECT COUNT(*) AS n FROM "${schemaOf(location)}".blobs`)[0]?.n);
  const db = new Database(location, { readonly: true });
  try {
    return Number((db.prepare('SELECT COUNT(*) AS n FROM blobs').get() as { n: number }).n);
  } finally {
    db.close();
  }
}

const V1 = 'export const answer = 41;\n'.repeat(20);
const V2 = 'export const answer = 42;\n'.repeat(20);

function newRun(store: RunStore, runId: string): void {
  store.createRun({ runId, sessionId: 's', agentId: 'files', startedAt: 1 });
}

test('file versions: each text stored once by content, each version once, deleted files and deleted runs', () => {
  const location = tmpLocation();
  const store = openRunStore(location);
  try {
    newRun(store, 'a');
    const before = blobCount(location);
    const written = store.addFileVersions('a', [
      { checkpointIndex: 1, path: 'src/answer.ts', content: V1 },
      { checkpointIndex: 3, path: 'src/answer.ts', content: V2 },
      // the same text in another file: a version of its own, no new blob
      { checkpointIndex: 3, path: 'src/copy.ts', content: V1 },
      // unchanged since its last version: not written again
      { checkpointIndex: 5, path: 'src/answer.ts', content: V2 },
      { checkpointIndex: 7, path: 'src/copy.ts', content: null },
    ]);
    assert.equal(written.length, 4);
    // a later call does not repeat a version either: its file's newest is looked up in the store
    assert.deepEqual(store.addFileVersions('a', [{ checkpointIndex: 9, path: 'src/answer.ts', content: V2 }]), []);
    const versions = store.listFileVersions('a');
    assert.deepEqual(
      versions.map((v) => [v.checkpointIndex, v.path, v.contentHash === undefined ? 'deleted' : 'text']),
      [
        [1, 'src/answer.ts', 'text'],
        [3, 'src/answer.ts', 'text'],
        [3, 'src/copy.ts', 'text'],
        [7, 'src/copy.ts', 'deleted'],
      ],
    );
    assert.equal(new Set(versions.map((v) => v.contentHash).filter(Boolean)).size, 2);
    assert.equal(blobCount(location) - before, 2, 'two texts, two blobs');
    assert.equal(store.getFileVersionText(versions[1]?.contentHash as string), V2);

    // another run holding a text the store has: a row, no blob
    newRun(store, 'b');
    const beforeB = blobCount(location);
    store.addFileVersions('b', [{ checkpointIndex: 0, path: 'src/answer.ts', content: V2 }]);
    assert.equal(blobCount(location), beforeB);
    assert.equal(store.listFileVersions('b').length, 1);

    // a run deleted: its versions go, and the text only it held; the shared one stays readable
    const beforeDelete = blobCount(location);
    store.deleteRun('a');
    assert.deepEqual(store.listFileVersions('a'), []);
    assert.equal(store.getFileVersionText(store.listFileVersions('b')[0]?.contentHash as string), V2);
    assert.ok(blobCount(location) < beforeDelete, 'the text only the deleted run held is collected');
  } finally {
    store.close();
  }
});

import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { MIGRATIONS } from '../../../src/store/migrations';
import { testContext } from '../../helpers/context';
import { storedBlobs } from '../../helpers/blobs';
import { tmpDir } from '../../helpers/tmp';

const FIXTURES = join(__dirname, '../../fixtures/stores');

/** Every blob's text as stored (plain TEXT, or a compressed BLOB). */
const blobTexts = (file: string): string[] => storedBlobs(file).map((b) => b.text);

async function recordWithResult(file: string, runId: string, marker: string): Promise<void> {
  const recorder = openRecorder({ store: file, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId,
    agentId: 'once',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'go' }],
  });
  const fetchPage = run.tool('fetch', { sideEffectLevel: 'read_only' }, () => ({
    page: `${marker} ${'lorem ipsum dolor sit amet '.repeat(60)}`,
  }));
  await run.modelCall({}, () =>
    Promise.resolve({
      message: {
        role: 'assistant',
        content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'fetch', args: { url: 'https://example.org' } }],
      },
    }),
  );
  await fetchPage({}, { toolCallId: 'c1' });
  await run.modelCall({}, () => Promise.resolve({ message: { role: 'assistant', content: 'done' } }));
  run.end();
  recorder.close();
}

test('a tool result in the conversation, the ledger and the call is one blob, and reads back whole', async () => {
  const file = join(tmpDir(), 'runs.db');
  await recordWithResult(file, 'r1', 'MARKER-ONCE');
  const holding = blobTexts(file).filter((t) => t.includes('MARKER-ONCE'));
  assert.equal(holding.length, 1, 'the result text is stored in exactly one blob');
  const store = openRunStore(file, { create: false });
  try {
    const run = store.exportRun('r1');
    const last = run.checkpoints.at(-1);
    const toolMessage = last?.messages.find((m) => m.role === 'tool');
    assert.match(JSON.stringify(toolMessage?.content), /MARKER-ONCE/);
    assert.deepEqual(last?.toolLedgerSnapshot[0]?.result, toolMessage?.content);
    assert.deepEqual(run.toolLedger[0]?.result, toolMessage?.content);
  } finally {
    store.close();
  }
});

test('deleting one of two runs that share a result keeps the other whole', async () => {
  const file = join(tmpDir(), 'runs.db');
  await recordWithResult(file, 'a', 'SHARED');
  await recordWithResult(file, 'b', 'SHARED');
  const store = openRunStore(file, { create: false });
  try {
    const before = JSON.stringify(store.exportRun('b'));
    store.deleteRun('a');
    assert.equal(JSON.stringify(store.exportRun('b')), before);
    store.deleteRun('b');
    store.checkpointWal();
  } finally {
    store.close();
  }
  assert.deepEqual(
    blobTexts(file).filter((t) => t.includes('SHARED')),
    [],
    'no blob of the deleted runs is left behind',
  );
});

test('a store of schema 3 (written before content was stored once) opens, migrates and reads back the same', async () => {
  const file = join(tmpDir(), 'old.db');
  copyFileSync(join(FIXTURES, 'schema3.db'), file);
  const expected = readFileSync(join(FIXTURES, 'schema3.export.json'), 'utf8');
  const store = openRunStore(file, { create: false });
  try {
    assert.equal(JSON.stringify(store.exportRun('old-run'), null, 1) + '\n', expected);
    assert.equal(
      store.listRuns({ parentRunId: null }).total,
      1,
      'the count of top-level runs starts from the old rows',
    );
  } finally {
    store.close();
  }
  const db = new Database(file, { readonly: true });
  assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  db.close();
  // New runs written into the migrated store share its old (plain) blobs and read back whole.
  await recordWithResult(file, 'new-run', 'NEW');
  const again = openRunStore(file, { create: false });
  try {
    assert.equal(JSON.stringify(again.exportRun('old-run'), null, 1) + '\n', expected);
    assert.match(JSON.stringify(again.exportRun('new-run').toolLedger), /NEW/);
    again.deleteRun('new-run');
    assert.equal(JSON.stringify(again.exportRun('old-run'), null, 1) + '\n', expected);
    assert.equal(again.integrityCheck(), 'ok');
  } finally {
    again.close();
  }
});

test('the page of top-level runs is read from an index, newest first, without sorting every root run', () => {
  const file = join(tmpDir(), 'runs.db');
  const store = openRunStore(file);
  for (let i = 0; i < 30; i++) {
    store.createRun({ runId: `r${i}`, sessionId: 's', agentId: 'a', startedAt: 1000 + (i % 10) });
    if (i % 3 === 0) {
      store.createRun({ runId: `f${i}`, sessionId: 's', agentId: 'a', startedAt: 2000, parentRunId: `r${i}` });
    }
  }
  const page = store.listRuns({ parentRunId: null, limit: 5 });
  assert.equal(page.total, 30);
  // newest first, ties broken by the later insert first (rowid DESC)
  assert.deepEqual(
    page.runs.map((r) => r.runId),
    ['r29', 'r19', 'r9', 'r28', 'r18'],
  );
  assert.equal(store.listRuns({ parentRunId: null, agentId: 'a', limit: 100 }).total, 30);
  // the count of top-level runs follows inserts, deletes and replacing loads
  store.deleteRun('r3');
  store.deleteRun('f3');
  assert.equal(store.listRuns({ parentRunId: null }).total, 29);
  const fork = store.exportRun('f6');
  store.loadRun({ ...fork, parentRunId: undefined }, { replace: true });
  assert.equal(store.listRuns({ parentRunId: null }).total, 30);
  assert.equal(store.listRuns({ parentRunId: null }).total, store.listRuns({ parentRunId: null, agentId: 'a' }).total);
  store.close();
  // The query listRuns runs for the tree page (INDEXED BY fails loudly should the index ever go missing).
  const db = new Database(file, { readonly: true });
  const plan = db
    .prepare(
      'EXPLAIN QUERY PLAN SELECT * FROM runs INDEXED BY runs_roots_by_start WHERE parent_run_id IS NULL ORDER BY started_at DESC, rowid DESC LIMIT 200 OFFSET 0',
    )
    .all()
    .map((r) => String((r as { detail: unknown }).detail))
    .join('\n');
  db.close();
  assert.match(plan, /runs_roots_by_start/);
  assert.doesNotMatch(plan, /TEMP B-TREE/);
});

test('a finished ledger record stores only what it adds to its open record, and reads back whole', async () => {
  const file = join(tmpDir(), 'runs.db');
  const recorder = openRecorder({ store: file, heartbeatMs: 0 });
  const run = recorder.startRun({ runId: 'delta', agentId: 'once', runtimeContext: testContext() });
  const note = `ARGS-MARK ${'consectetur adipiscing '.repeat(12)}`;
  const write = run.tool('write', { sideEffectLevel: 'write' }, () => ({ ok: true, page: 'RESULT-MARK '.repeat(60) }));
  await run.modelCall({}, () =>
    Promise.resolve({
      message: {
        role: 'assistant',
        content: [{ type: 'tool_call', toolCallId: 'w1', toolName: 'write', args: { note } }],
      },
    }),
  );
  await write({ note }, { toolCallId: 'w1' });
  run.end();
  recorder.close();
  // the arguments: in the assistant message, the call's args blob and the open record — not the finished one too
  assert.equal(blobTexts(file).filter((t) => t.includes('ARGS-MARK')).length, 3);
  assert.equal(blobTexts(file).filter((t) => t.includes('RESULT-MARK')).length, 1);
  const store = openRunStore(file, { create: false });
  try {
    const exported = store.exportRun('delta');
    const finished = exported.checkpoints.at(-1)?.toolLedgerSnapshot[0];
    assert.deepEqual(finished?.args, { note });
    assert.match(JSON.stringify(finished?.result), /RESULT-MARK/);
    assert.equal(typeof finished?.endedAt, 'number');
    assert.deepEqual(Object.keys(finished ?? {}), Object.keys(exported.toolLedger[0] ?? {}));
    assert.deepEqual(finished, exported.toolLedger[0]);
    const facts = store.listToolCallFacts('delta')[0];
    assert.equal(facts?.toolName, 'write');
  } finally {
    store.close();
  }
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openRecorder } from '../../../src/recorder';
import { RunView } from '../../../src/replay/runView';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpDir } from '../../helpers/tmp';

/** A run of three search calls, recorded through the SDK; the second call's result blob then made unreadable. */
async function runWithOneBadResult(): Promise<string> {
  const file = join(tmpDir(), 'runs.db');
  const recorder = openRecorder({ store: file, heartbeatMs: 0 });
  const run = recorder.startRun({ runId: 'r', agentId: 'a', runtimeContext: testContext() });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (a: { q: string }) => ({
    hits: [`${a.q} ${'x'.repeat(400)}`],
  }));
  for (const q of ['one', 'two', 'three']) await search({ q }, { toolCallId: `call-${q}` });
  run.end();
  recorder.close();
  const db = new Database(file);
  const changed = db
    .prepare(
      "UPDATE blobs SET data = X'ff00ff00' WHERE hash = (SELECT result_ref FROM tool_calls WHERE tool_call_id = 'call-two')",
    )
    .run().changes;
  db.close();
  assert.equal(changed, 1, 'the result blob of call-two');
  return file;
}

test("a RunView reads a call's arguments and result only when that call is asked for", async () => {
  const store = openRunStore(await runWithOneBadResult(), { create: false });
  try {
    // no record is read to open the view, list its tool names or find a call by id or by name
    const view = new RunView(store, 'r');
    assert.deepEqual([...view.toolNames()], ['search']);
    assert.equal(view.ledger.length, 3);
    assert.deepEqual(view.toolCall('call-one')?.result, { hits: [`one ${'x'.repeat(400)}`] });
    assert.deepEqual(view.lastCallOf('search')?.args, { q: 'three' });
    assert.equal(view.toolCall('no-such-call'), undefined);
    // the one unreadable record fails when it is read, and names itself
    assert.throws(
      () => view.toolCall('call-two'),
      /^StoreCorrupt: Tool call call-two of run r: Blob [0-9a-f]+ of the store cannot be read/,
    );
    assert.throws(() => store.listToolCalls('r'));
  } finally {
    store.close();
  }
});

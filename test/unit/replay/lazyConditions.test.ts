import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { writeDemoStore } from '../../../src/demo';
import { BreakpointSet, type CheckpointAccess } from '../../../src/replay/breakpoints';
import { RunView } from '../../../src/replay/runView';
import { openRecorder } from '../../../src/recorder';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpDir, tmpStore } from '../../helpers/tmp';

const CONDITIONS = [
  'args != null',
  "toolName == 'search_kb'",
  'result != null',
  'error != null',
  'stepIndex > `2`',
  "boundary == 'after_model_call'",
  'length(messages) > `3`',
  "messages[-1].role == 'tool'",
  'runtimeContext.user.roleId != null',
  'length(toolLedger) > `1`',
];

/** Every stop of a forward continue from the start with one conditional breakpoint on every tool call. */
function stops(access: CheckpointAccess, toolNames: ReadonlySet<string>, condition: string): string[] {
  const bps = new BreakpointSet();
  bps.setFunctionBreakpoints([{ name: '*', condition }], toolNames);
  const out: string[] = [];
  for (let i = 0; i < access.summaries.length; i++) {
    const r = bps.check(access, i);
    if (r.stop) out.push(`${i}:${r.stop.reason}`);
  }
  return out;
}

/** The same run read through whole checkpoints (what the debugger did before checkpoint views). */
function wholeAccess(store: SqlRunStore, view: RunView): CheckpointAccess {
  const ledger = store.listToolCalls(view.runId);
  return {
    runId: view.runId,
    summaries: view.summaries,
    toolCall: (id) => ledger.find((t) => t.toolCallId === id),
    load: (i) => store.getCheckpoint(view.summaries[i]?.checkpointId ?? ''),
  };
}

test('conditions evaluated over checkpoint views stop where they stopped over whole checkpoints', () => {
  const store = tmpStore();
  for (const runId of writeDemoStore(store)) {
    const view = new RunView(store, runId);
    for (const condition of CONDITIONS) {
      assert.deepEqual(
        stops(view, view.toolNames(), condition),
        stops(wholeAccess(store, view), view.toolNames(), condition),
        `${runId}: ${condition}`,
      );
    }
  }
});

test('a condition over args and the checkpoint fields reads no message; one over messages reads them', async () => {
  const file = join(tmpDir(), 'runs.db');
  const recorder = openRecorder({ store: file, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId: 'r',
    agentId: 'c',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'first' }],
  });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (a: { limit: number }) => ({ n: a.limit }));
  for (let i = 0; i < 4; i++) {
    await run.modelCall({}, () =>
      Promise.resolve({
        message: {
          role: 'assistant',
          content: [{ type: 'tool_call', toolCallId: `c${i}`, toolName: 'search', args: { limit: i * 100 } }],
        },
      }),
    );
    await search({ limit: i * 100 }, { toolCallId: `c${i}` });
  }
  run.end();
  recorder.close();
  // Damage the first message on disk: anything that reads it fails loudly.
  const db = new Database(file);
  for (const r of db.prepare('SELECT item FROM list_nodes WHERE parent = 0').all()) {
    db.prepare('UPDATE blobs SET data = ? WHERE hash = ?').run('{"role":"oracle"}', (r as { item: string }).item);
  }
  db.close();
  const store = openRunStore(file, { create: false });
  try {
    const view = new RunView(store, 'r');
    const hits = stops(view, view.toolNames(), 'args.limit > `100`');
    assert.equal(hits.length, 2, 'the calls with limit 200 and 300');
    // A condition naming messages reads them: the damaged one errs (a condition that errs does not stop).
    assert.deepEqual(stops(view, view.toolNames(), "messages[0].role == 'user'"), []);
    assert.throws(() => view.load(3).messages[0], /messages\[0\]\.role/);
  } finally {
    store.close();
  }
});

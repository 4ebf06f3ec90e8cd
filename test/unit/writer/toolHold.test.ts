/**
 * The time a live debugger held a tool call before it ran is stored with the call, apart from its own time, on
 * either engine (OCDB_TEST_ENGINE): the finished record and the record read back,
 * the Timeline's marks, a run exported and loaded into another store; a call nothing held has no hold.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolOwnMs } from '../../../src/model';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const same = (a: unknown, b: unknown, what: string) => assert.equal(JSON.stringify(a), JSON.stringify(b), what);

test('a held call keeps its hold apart from its own time, through the store, its marks and an export', () => {
  const store = tmpStore();
  let clock = 1_700_000_000_000;
  const writer = RunWriter.create(
    store,
    { runId: 'held-run', agentId: 'agent', state: { runtimeContext: testContext() } },
    { now: () => clock },
  );
  writer.beginTool({ toolCallId: 'held', toolName: 'lookup', args: { id: 1 }, sideEffectLevel: 'read_only' });
  clock += 27_800; // held at the stop before the tool ran
  writer.held('held', 27_790);
  clock += 12; // the tool itself
  const held = writer.finishTool('held', 'success', { ok: true }).record;
  assert.equal(held.heldMs, 27_790);
  assert.equal(toolOwnMs(held), 22);
  same(held, store.getToolCall('held-run', 'held'), 'the record the writer returned is the stored one');

  writer.beginTool({ toolCallId: 'free', toolName: 'lookup', args: { id: 2 }, sideEffectLevel: 'read_only' });
  clock += 7;
  const free = writer.finishTool('free', 'success', { ok: true }).record;
  assert.equal(free.heldMs, undefined, 'nothing held it');
  assert.equal(toolOwnMs(free), 7);

  writer.beginTool({ toolCallId: 'edited', toolName: 'lookup', args: { id: 3 }, sideEffectLevel: 'read_only' });
  writer.held('edited', 500);
  writer.held('edited', 400); // a stop noted twice (HTTP answers a settled stop to each wait): the longest counts
  clock += 503;
  const edited = writer.finishTool('edited', 'success', null).record;
  same(edited, store.getToolCall('held-run', 'edited'), 'read back');
  assert.equal(toolOwnMs(edited), 3);

  const marks = store.listToolCallMarks('held-run');
  assert.deepEqual(
    marks.map((m) => [m.toolCallId, m.heldMs]),
    [
      ['held', 27_790],
      ['free', undefined],
      ['edited', 500],
    ],
  );
  writer.end({ status: 'completed' });

  const exported = store.exportRun('held-run');
  const other = tmpStore();
  other.loadRun(exported);
  assert.deepEqual(
    other.listToolCalls('held-run').map((t) => t.heldMs),
    [27_790, undefined, 500],
    'an exported run keeps its holds',
  );
  other.close();
  store.close();
});

/**
 * A finished tool call's record as the writer returns it is the record the store reads back — whether the store
 * made it from the open record the writer held (the usual way: no read back) or read the row again (the row was
 * changed behind the writer). Checked as JSON text, so the keys' order is the store's too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const same = (a: unknown, b: unknown, what: string) => assert.equal(JSON.stringify(a), JSON.stringify(b), what);

test('a finished call reads back as the writer returned it: success, error, cancelled, edited and mocked', () => {
  const store = tmpStore();
  let clock = 1_700_000_000_000;
  const writer = RunWriter.create(
    store,
    { runId: 'finish-run', agentId: 'agent', state: { runtimeContext: testContext(), systemPrompt: 'sys' } },
    { now: () => (clock += 5) },
  );
  const begin = (id: string, args: unknown) =>
    writer.beginTool({ toolCallId: id, toolName: 'search', args, sideEffectLevel: 'read_only' });

  begin('ok', { q: 'a' });
  const ok = writer.finishTool('ok', 'success', { hits: ['x'.repeat(400)], took: 3 }).record;
  same(ok, store.getToolCall('finish-run', 'ok'), 'success');
  assert.equal(ok.endedAt, store.getToolCall('finish-run', 'ok').endedAt);

  begin('text', { q: 'b' });
  const text = writer.finishTool('text', 'success', `a long text result ${'y'.repeat(500)}`).record;
  same(text, store.getToolCall('finish-run', 'text'), 'a string result');

  begin('none', { q: 'c' });
  same(writer.finishTool('none', 'success', undefined).record, store.getToolCall('finish-run', 'none'), 'no result');

  begin('bad', { q: 'd' });
  const bad = writer.finishTool('bad', 'error', new Error('boom')).record;
  same(bad, store.getToolCall('finish-run', 'bad'), 'error');
  assert.equal((bad.error as { message?: string }).message, 'boom');

  begin('stop', { q: 'e' });
  same(
    writer.finishTool('stop', 'cancelled', 'user pressed stop').record,
    store.getToolCall('finish-run', 'stop'),
    'cancelled',
  );

  // a live edit at the stop before the call: its args and liveEdit are those the record carries on
  const { checkpoint } = begin('edited', { q: 'f' });
  const at = { stopId: 's1', checkpointId: checkpoint?.checkpointId ?? '', boundary: 'before_tool_call' as const };
  writer.applyLiveEdits({ ...at, toolCallId: 'edited' }, { editedBy: 'dev', toolArgs: { q: 'F' } });
  const edited = writer.finishTool('edited', 'success', { hits: [] }).record;
  same(edited, store.getToolCall('finish-run', 'edited'), 'args edited live');
  assert.deepEqual(edited.args, { q: 'F' });
  assert.ok(edited.liveEdit?.originalArgsHash, 'the edit is on the record');

  const mockedCp = begin('mocked', { q: 'g' }).checkpoint;
  writer.applyLiveEdits(
    { stopId: 's2', checkpointId: mockedCp?.checkpointId ?? '', boundary: 'before_tool_call', toolCallId: 'mocked' },
    { editedBy: 'dev', toolOutcome: { outcome: 'success', value: 'mocked value' } },
  );
  const mocked = writer.finishTool('mocked', 'success', 'mocked value').record;
  same(mocked, store.getToolCall('finish-run', 'mocked'), 'mocked live');
  assert.equal(mocked.liveEdit?.mocked, true);
  store.close();
});

test('a call whose row changed behind the writer finishes with the row as it is, and only once', () => {
  const store = tmpStore();
  const writer = RunWriter.create(store, {
    runId: 'behind-run',
    agentId: 'agent',
    state: { runtimeContext: testContext(), systemPrompt: 'sys' },
  });
  writer.beginTool({ toolCallId: 'c1', toolName: 'search', args: { q: 'a' }, sideEffectLevel: 'read_only' });
  // another hand marks the row (as a live edit of another process would): the writer's open record is stale
  const liveEdit = { stopId: 'x', editedBy: 'other', at: 1, mocked: true };
  (store as unknown as { db: { prepare(sql: string): { run(...a: unknown[]): unknown } } }).db
    .prepare('UPDATE tool_calls SET live_edit_json = ? WHERE tool_call_id = ?')
    .run(JSON.stringify(liveEdit), 'c1');
  const record = writer.finishTool('c1', 'success', 'done').record;
  assert.deepEqual(record.liveEdit, liveEdit, 'read back from the row, not made from the stale record');
  same(record, store.getToolCall('behind-run', 'c1'), 'as it reads back');
  assert.throws(
    () => store.finishToolCall('behind-run', 'c1', { outcome: 'success', result: 'again', endedAt: 2, open: record }),
    /already finished/,
  );
  store.close();
});

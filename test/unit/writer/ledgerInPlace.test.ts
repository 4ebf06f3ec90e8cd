/**
 * The ledger snapshot a checkpoint takes is updated in place from the one before (a copy at every call
 * begun or finished made a long import quadratic). What each checkpoint stores must still be the ledger as it was
 * then: calls begun and finished in any order (parallel calls finished out of order change the middle), the
 * ledger read between changes, a write that fails and is rolled back, a writer that lets go of its history.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, type ToolCallRecord } from '../../../src/model';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const shape = (ledger: readonly ToolCallRecord[]) =>
  ledger.map((r) => `${r.toolCallId}:${r.endedAt === undefined ? 'open' : canonicalJson(r.result ?? r.error)}`);

test('every checkpoint stores the ledger as it was when it was taken', () => {
  const store = tmpStore();
  let clock = 1_700_000_000_000;
  const writer = RunWriter.create(
    store,
    { runId: 'ledger-run', agentId: 'agent', state: { runtimeContext: testContext(), systemPrompt: 'sys' } },
    { now: () => (clock += 3) },
  );
  const expected = new Map<string, string[]>();
  const took = (summary: { checkpointId: string } | undefined) => {
    if (summary) expected.set(summary.checkpointId, shape(writer.ledger));
  };
  const begin = (id: string) =>
    took(
      writer.beginTool({ toolCallId: id, toolName: 'search', args: { id }, sideEffectLevel: 'read_only' }).checkpoint,
    );
  const finish = (id: string, value: unknown) => took(writer.finishTool(id, 'success', value).checkpoint);

  took(writer.checkpoint('before_model_call'));
  for (let step = 0; step < 40; step++) {
    begin(`a${step}`);
    if (step % 3 === 0) {
      // two calls at once, the second finished first: the first's record, in the middle, changes last
      begin(`b${step}`);
      finish(`b${step}`, `b result ${step}`);
      assert.ok(writer.ledger.length > 0); // read between changes (a copy)
      finish(`a${step}`, { step });
    } else finish(`a${step}`, { step });
    took(writer.checkpoint('before_model_call'));
    if (step === 20) {
      // a write that fails rolls the ledger back with it: a call begun with an id already used
      assert.throws(() =>
        writer.beginTool({ toolCallId: 'a3', toolName: 'search', args: {}, sideEffectLevel: 'read_only' }),
      );
      took(writer.checkpoint('before_model_call'));
    }
    if (step === 30) {
      writer.rebase();
      took(writer.checkpoint('before_model_call'));
    }
  }
  // a call left open at the end, then finished without a checkpoint and seen by the next one
  begin('last');
  writer.finishTool('last', 'error', new Error('late'), { checkpoint: false });
  took(writer.checkpoint('before_model_call'));

  const summaries = store.listCheckpoints('ledger-run');
  assert.equal(summaries.length, expected.size);
  for (const s of summaries) {
    const stored = shape(store.getCheckpoint(s.checkpointId).toolLedgerSnapshot);
    assert.deepEqual(stored, expected.get(s.checkpointId), `checkpoint ${s.checkpointId}`);
  }
  const lastLedger = store.getCheckpoint(summaries.at(-1)?.checkpointId ?? '').toolLedgerSnapshot;
  assert.equal(lastLedger.length, 40 + 14 + 1, 'every call is in the last ledger');
  store.close();
});

/**
 * What a long import relies on, on both engines: a RunWriter that lets go of the run it wrote
 * (`rebase`) and goes on from the store's last checkpoint writes exactly the run a writer holding everything
 * writes — conversation, ledger (a call still open across the rebase included), steps, counts; and a run's end may
 * give its final metadata (what an import knows only once its file is read), replacing what it was created with.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../../src/model';
import type { RunStore } from '../../../src/store';
import { ContentStore } from '../../../src/store/contentStore';
import { RunWriter } from '../../../src/writer';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const BODY = 'x'.repeat(2000);

/** A run of `rounds` model calls and tool calls; `rebase` after the checkpoints it names. */
function write(store: RunStore, runId: string, rounds: number, rebaseAt: (n: number) => boolean): void {
  let n = 0;
  const w = RunWriter.create(
    store,
    { runId, agentId: 'a', startedAt: 1, metadata: { first: true }, state: { runtimeContext: testContext() } },
    { now: () => 1_000 + n },
  );
  const after = () => {
    n++;
    if (rebaseAt(n)) w.rebase();
  };
  let messages: Message[] = [{ role: 'user', content: 'go' }];
  for (let i = 0; i < rounds; i++) {
    w.checkpoint('before_model_call', { messages, checkpointId: `${runId}#${n}` });
    after();
    messages = [...(w.state?.messages ?? []), { role: 'assistant', content: `call ${i}` }];
    w.checkpoint('after_model_call', { messages, checkpointId: `${runId}#${n}` });
    after();
    w.beginTool(
      { toolCallId: `c${i}`, toolName: 'read', args: { i }, sideEffectLevel: 'read_only' },
      { checkpoint: { checkpointId: `${runId}#${n}` } },
    );
    after();
    // The call of round i is finished a round later: it is open across a rebase.
    if (i > 0) {
      w.finishTool(`c${i - 1}`, i % 4 === 0 ? 'error' : 'success', `${BODY}${i}`, {
        checkpoint: { checkpointId: `${runId}#${n}` },
      });
      after();
    }
    messages = w.state?.messages ?? [];
  }
  w.end({
    status: 'completed',
    endedAt: 9_999,
    checkpoint: { checkpointId: `${runId}#end` },
    metadata: { first: false, rounds },
  });
}

const strip = (v: unknown, runId: string) =>
  JSON.parse(JSON.stringify(v).split(runId).join('<run>'), (key, x: unknown) =>
    key === 'heartbeatAt' || key === 'ownerPid' || key === 'ownerHost' ? undefined : x,
  ) as unknown;

describe('a writer that lets go of what it wrote', () => {
  it('writes the run a writer holding everything writes, and its end sets the metadata', () => {
    const store = tmpStore();
    write(store, 'whole', 12, () => false);
    write(store, 'every', 12, () => true);
    write(store, 'third', 12, (n) => n % 3 === 0);
    const want = strip(store.exportRun('whole'), 'whole');
    assert.deepEqual(strip(store.exportRun('every'), 'every'), want);
    assert.deepEqual(strip(store.exportRun('third'), 'third'), want);
    const run = store.getRun('every');
    assert.deepEqual(run.metadata, { first: false, rounds: 12 });
    assert.equal(run.toolCallCount, 12);
    assert.equal(run.checkpointCount, 12 * 4 - 1 + 1);
  });

  it('goes on after letting go without reading back the conversation it let go of', () => {
    const store = tmpStore();
    const w = RunWriter.create(store, { runId: 'grow', agentId: 'a', state: { runtimeContext: testContext() } });
    for (let i = 0; i < 25; i++) {
      w.checkpoint('after_model_call', { appendMessages: [{ role: 'assistant', content: `${BODY} ${i}` }] });
      w.beginTool({ toolCallId: `r${i}`, toolName: 'read', args: { i }, sideEffectLevel: 'read_only' });
      w.finishTool(`r${i}`, 'success', { lines: [`${BODY} result ${i}`] });
    }
    w.rebase();
    // the conversation grows in place by one message: the 50 the store holds are taken as they are, not read
    const reads = { n: 0 };
    const proto = ContentStore.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
    const readers = ['getText', 'getValue', 'readBlob'];
    const kept = readers.map((name) => proto[name] as (...a: unknown[]) => unknown);
    readers.forEach((name, i) => {
      proto[name] = function (this: unknown, ...a: unknown[]) {
        reads.n++;
        return kept[i]?.apply(this, a);
      };
    });
    try {
      w.checkpoint('after_model_call', { appendMessages: [{ role: 'assistant', content: 'after the rebase' }] });
      w.checkpoint('after_model_call', { appendMessages: [{ role: 'assistant', content: 'and once more' }] });
    } finally {
      readers.forEach((name, i) => (proto[name] = kept[i] as (...a: unknown[]) => unknown));
    }
    assert.equal(reads.n, 0, 'no stored message was read back');
    const last = store.listCheckpoints('grow').at(-1);
    const messages = store.getCheckpoint(last?.checkpointId ?? '').messages;
    assert.equal(messages.length, 52);
    assert.equal(messages[48]?.content, `${BODY} 24`);
    assert.equal(messages[51]?.content, 'and once more');
  });

  it('keeps the metadata a run was created with when its end gives none', () => {
    const store = tmpStore();
    const w = RunWriter.create(store, {
      runId: 'm',
      agentId: 'a',
      metadata: { k: 1 },
      state: { runtimeContext: testContext() },
    });
    w.checkpoint('before_model_call');
    w.end({ status: 'completed' });
    assert.deepEqual(store.getRun('m').metadata, { k: 1 });
  });
});

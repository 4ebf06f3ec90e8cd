/**
 * The Timeline of a run being recorded, read again at the cost of what is new (replay/timelineLive.ts) on the
 * engine of the test run: each delta applied to what the page was sent equals a fresh `timelineOf` — calls that end
 * after they were sent, a live edit on an earlier checkpoint, a hold, a new fork, a run ending, a run reopened —
 * and a refresh after N new checkpoints of a long run reads what they added, not the run again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiveTimeline } from '../../../src/replay/timelineLive';
import type { RunStore } from '../../../src/store';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';
import { LIVE_RUN, runLiveScenario } from './liveTimelineScenario';

test('deltas applied to the first timeline equal timelineOf after each stretch of a live run', () => {
  const { sent } = runLiveScenario(tmpStore());
  const by = new Map(sent.map((s) => [s.name, s.delta]));
  // what the page was sent says what happened, lane by lane
  const answered = by.get('the model call answered');
  assert.equal(answered?.runs.length, 0, 'a grown lane is not sent whole');
  assert.deepEqual(
    answered?.lanes[0]?.calls.map((c) => [c.kind, c.endCp !== undefined]),
    [['model', true]],
    'the open model call, replaced by the answered one',
  );
  const ended = by.get('the call sent running ended, held');
  const call = ended?.lanes[0]?.calls.find((c) => c.kind === 'tool');
  assert.ok(call && call.state === 'success' && call.edited === true && call.held === 700 && call.end !== undefined);
  assert.deepEqual(by.get('a live edit on a checkpoint already sent')?.lanes[0]?.liveEdits.length, 1);
  const forked = by.get('a new fork');
  assert.equal(forked?.runs.length, 1, 'the new fork comes whole');
  assert.equal(forked?.runs[0]?.kind, 'fork');
  assert.equal(forked?.order.length, 2);
  assert.equal(by.get('the run ends')?.lanes[0]?.header.status, 'completed');
  assert.equal(by.get('nothing new'), undefined, 'nothing new: nothing sent');
  const reopened = by.get('the run reopened, its end cut');
  assert.deepEqual(
    reopened?.runs.map((r) => r.runId),
    [LIVE_RUN],
    'a run whose end was rewritten is sent whole',
  );
});

/** Counts what the store hands back to the Timeline's reads: marks, calls and live edits, item by item. */
function counting(store: RunStore): { store: RunStore; read: () => number; reset: () => void } {
  let n = 0;
  const counted: Record<string, (r: unknown) => number> = {
    listCheckpointMarks: (r) => (r as { boundary: unknown[] }).boundary.length,
    listToolCallMarks: (r) => (r as unknown[]).length,
    listLiveEdits: (r) => (r as unknown[]).length,
    listCheckpoints: (r) => (r as unknown[]).length,
    listToolCalls: (r) => (r as unknown[]).length,
    listToolCallFacts: (r) => (r as unknown[]).length,
  };
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const count = counted[String(key)];
      return (...args: unknown[]) => {
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (count) n += count(out);
        return out;
      };
    },
  });
  return { store: proxy, read: () => n, reset: () => (n = 0) };
}

test('a refresh after N new checkpoints of a long live run reads what they added, not the run', () => {
  const store = tmpStore();
  let clock = 1_767_225_600_000;
  const writer = RunWriter.create(
    store,
    { runId: 'long-live', agentId: 'a', startedAt: clock, state: { runtimeContext: testContext() } },
    { now: () => clock },
  );
  const steps = (n: number) => {
    for (let i = 0; i < n; i++) {
      clock += 10;
      writer.checkpoint('before_model_call');
      clock += 10;
      writer.checkpoint('after_model_call', { usage: { inputTokens: 5, outputTokens: 1 } });
      const { record } = writer.beginTool({ toolName: 'lookup', args: { i }, sideEffectLevel: 'read_only' });
      clock += 10;
      writer.finishTool(record.toolCallId, 'success', { ok: i });
    }
  };
  store.transaction(() => steps(500)); // 2,000 checkpoints, 500 calls
  // a call left open, as a live run has one
  const open = writer.beginTool({ toolName: 'slow', args: {}, sideEffectLevel: 'read_only' });
  const c = counting(store);
  const live = new LiveTimeline(c.store, 'long-live');
  const first = live.full();
  assert.equal(first.runs[0]?.cpAt.length, 2001);
  assert.ok(c.read() >= 2001 + 501, 'the first read reads the run');
  c.reset();
  writer.finishTool(open.record.toolCallId, 'success', {});
  steps(2); // 1 + 8 checkpoints, 2 calls
  writer.checkpoint('before_model_call'); // 10 new checkpoints in all
  const delta = live.next();
  const lane = delta?.lanes[0];
  assert.equal(lane?.from, 2001);
  assert.equal(lane?.cpAt.length, 10);
  // the 10 checkpoints, the 2 calls begun and the one that was open: no more
  assert.equal(c.read(), 10 + 2 + 1, 'the refresh read what was new');
  c.reset();
  assert.equal(live.next(), undefined);
  assert.equal(c.read(), 0, 'a run not written since is not read');
});

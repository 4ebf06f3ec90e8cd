/**
 * A run recorded while its Timeline is open, for the live Timeline's tests on each engine: after each stretch of
 * recording the Timeline is read again as LiveTimeline reads it (what is new only), the delta applied to what the page
 * was sent — as objects and through the wire's columns — and compared with a fresh `timelineOf`. The stretches: model
 * and tool calls; a model call sent open and answered after; a call's row read before its checkpoint; a call sent
 * running that ends after, edited at its stop on an earlier checkpoint and held there; a fork appearing and growing;
 * the fork ending diverged; the run ending; the run reopened (its end cut: sent whole again).
 */
import assert from 'node:assert/strict';
import { ForkService } from '../../../src/fork/forkService';
import type { Timeline } from '../../../src/model/timeline';
import { applyTimelineDelta, type TimelineDelta } from '../../../src/model/timelineDelta';
import {
  TimelineDeltaWireSchema,
  TimelineWireSchema,
  packTimeline,
  packTimelineDelta,
  unpackTimeline,
  unpackTimelineDelta,
} from '../../../src/model/timelineWire';
import { timelineOf } from '../../../src/replay/timeline';
import { LiveTimeline } from '../../../src/replay/timelineLive';
import type { RunStore } from '../../../src/store';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';

export const LIVE_RUN = 'live-timeline-run';

/** A JSON round trip, as a message to the page travels. */
function travel<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** What a step of the scenario sent, for the tests to say what they expect of it. */
export interface Sent {
  name: string;
  delta: TimelineDelta | undefined;
}

export function runLiveScenario(store: RunStore): { first: Timeline; sent: Sent[] } {
  let clock = 1_767_225_600_000;
  const now = () => clock;
  const writer = RunWriter.create(
    store,
    { runId: LIVE_RUN, agentId: 'live-agent', startedAt: clock, state: { runtimeContext: testContext() } },
    { now },
  );
  const model = (w: RunWriter, tokens: number) => {
    clock += 40;
    w.checkpoint('before_model_call');
    clock += 300;
    w.checkpoint('after_model_call', { usage: { inputTokens: tokens, outputTokens: 9 } });
  };
  const tool = (w: RunWriter, name: string, outcome: 'success' | 'error' = 'success') => {
    clock += 5;
    const { record } = w.beginTool({ toolName: name, args: { at: clock }, sideEffectLevel: 'read_only' });
    clock += 20;
    w.finishTool(record.toolCallId, outcome, outcome === 'success' ? { ok: true } : { name: 'Error', message: 'no' });
  };

  const live = new LiveTimeline(store, LIVE_RUN, { withForks: true });
  const shown: Timeline = live.full();
  assert.deepStrictEqual(shown, timelineOf(store, LIVE_RUN, { withForks: true }), 'the first read is timelineOf');
  const first = structuredClone(shown);
  // the page's copy: what crossed the wire
  let page = unpackTimeline(TimelineWireSchema.parse(travel(packTimeline(shown))));
  const sent: Sent[] = [];
  const step = (name: string) => {
    const delta = live.next();
    // kept as sent: applying it makes its whole lanes the timeline's, which later deltas grow
    sent.push({ name, delta: structuredClone(delta) });
    if (delta) {
      const wire = TimelineDeltaWireSchema.safeParse(travel(packTimelineDelta(delta)));
      assert.ok(wire.success, `${name}: the delta's wire form parses`);
      applyTimelineDelta(shown, delta);
      page = applyTimelineDelta(page, unpackTimelineDelta(wire.data));
    }
    const fresh = timelineOf(store, LIVE_RUN, { withForks: true });
    assert.deepStrictEqual(shown, fresh, `${name}: the deltas applied equal a fresh timelineOf`);
    assert.deepStrictEqual(page, fresh, `${name}: the deltas through the wire equal a fresh timelineOf`);
  };

  model(writer, 900);
  tool(writer, 'lookup');
  step('a model call and a tool call');

  clock += 40;
  writer.checkpoint('before_model_call');
  step('a model call asked, not answered');
  clock += 500;
  writer.checkpoint('after_model_call', { usage: { inputTokens: 950, outputTokens: 12 } });
  step('the model call answered');

  // the call's row is written before its before_tool_call checkpoint: read first, placed when its checkpoint comes
  clock += 5;
  const early = writer.beginTool(
    { toolName: 'search', args: { q: 'refund' }, sideEffectLevel: 'expensive_read' },
    { checkpoint: false },
  );
  step("a call's row before its checkpoint");
  const before = writer.checkpoint('before_tool_call', { toolCallId: early.record.toolCallId });
  step('the checkpoint of the call read before');

  // the call runs while the page is sent; then, at its stop, a live edit of its arguments and a hold
  clock += 30;
  const edited = before.index;
  store.recordLiveEdit(
    LIVE_RUN,
    {
      stopId: 'stop-1',
      checkpointId: before.checkpointId,
      boundary: 'before_tool_call',
      toolCallId: early.record.toolCallId,
      edits: { toolArgs: { q: 'refund policy' }, editedBy: 'VS Code' },
      appliedAt: clock,
    },
    {
      toolCallId: early.record.toolCallId,
      args: { q: 'refund policy' },
      liveEdit: { stopId: 'stop-1', editedBy: 'VS Code', at: clock },
    },
  );
  step('a live edit on a checkpoint already sent');
  writer.held(early.record.toolCallId, 700);
  clock += 900;
  writer.finishTool(early.record.toolCallId, 'success', { hits: 3 });
  step('the call sent running ended, held');

  model(writer, 1000);
  tool(writer, 'refund', 'error');
  // a fork from a checkpoint already sent, appearing while the run goes on
  const forkFrom = store.listCheckpoints(LIVE_RUN, { offset: edited, limit: 1 })[0];
  assert.ok(forkFrom);
  const forks = new ForkService(store, { now });
  const { runId: forkId } = forks.createReplay(LIVE_RUN, { fromCheckpointId: forkFrom.checkpointId, captured: true });
  const fork = RunWriter.resume(store, forkId, { now });
  model(fork, 400);
  step('a new fork');
  tool(fork, 'lookup');
  model(fork, 410);
  model(writer, 1100);
  step('the run and its fork grow');
  fork.end({ status: 'diverged' });
  step('the fork ends diverged');
  for (let i = 0; i < 3; i++) {
    model(writer, 1200 + i);
    tool(writer, `tool_${i}`);
  }
  writer.end({ endedAt: clock });
  step('the run ends');
  step('nothing new');

  // a grown import continued: the run's end cut and written again
  const count = store.getRun(LIVE_RUN).checkpointCount;
  store.reopenRun(LIVE_RUN, { keepCheckpoints: count - 5, metadata: {} });
  step('the run reopened, its end cut');
  return { first, sent };
}

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

/**
 * A live run of 2,000 checkpoints read whole once, then 10 checkpoints more (2 calls begun, the open one ended): the
 * refresh reads those and nothing else, and a refresh with nothing written reads nothing.
 */
export function assertRefreshReadsNew(store: RunStore): void {
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
}

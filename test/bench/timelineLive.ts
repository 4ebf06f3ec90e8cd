/**
 * Part of `npm run bench -- timeline`: the refresh of a Timeline open on a run being recorded — a run of `size`
 * checkpoints still running, 10 checkpoints more (two steps of a model call and a tool call, and a model call)
 * recorded between refreshes. Before: the whole summary query again (`timelineOf`) and its packing, as the panel did
 * on each refresh. After: what is new only (`LiveTimeline.next`: ranges of the store's keys) and its packed delta.
 * Five refreshes each, the median and the largest.
 */
import { join } from 'node:path';
import { packTimeline, packTimelineDelta } from '../../src/model/timelineWire';
import { timelineOf } from '../../src/replay/timeline';
import { LiveTimeline } from '../../src/replay/timelineLive';
import { openRunStore } from '../../src/store';
import { RunWriter } from '../../src/writer';
import { testContext } from '../helpers/context';

const REFRESHES = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

export function measureLiveRefresh(size: number, dir: string): void {
  const store = openRunStore(join(dir, `live-${size}.db`));
  try {
    const clock = { t: Date.UTC(2026, 0, 1) };
    const writer = RunWriter.create(
      store,
      { runId: 'live', agentId: 'bench-agent', startedAt: clock.t, state: { runtimeContext: testContext() } },
      { now: () => clock.t },
    );
    let step = 0;
    const steps = (n: number) => {
      for (let i = 0; i < n; i++, step++) {
        clock.t += 40;
        writer.checkpoint('before_model_call');
        clock.t += 300;
        writer.checkpoint('after_model_call', { usage: { inputTokens: 900 + step, outputTokens: 40 } });
        clock.t += 5;
        const { record } = writer.beginTool({
          toolName: `tool_${step % 5}`,
          args: { step },
          sideEffectLevel: 'read_only',
        });
        clock.t += 30;
        writer.finishTool(record.toolCallId, 'success', { ok: step });
      }
    };
    // two steps and a model call: 10 checkpoints
    const tenMore = () => {
      steps(2);
      writer.checkpoint('before_model_call');
      writer.checkpoint('after_model_call', { usage: { inputTokens: 1, outputTokens: 1 } });
    };
    store.transaction(() => steps(Math.floor(size / 4)));
    const live = new LiveTimeline(store, 'live', { withForks: true });
    live.full();
    const whole: number[] = [];
    const delta: number[] = [];
    let wholeBytes = 0;
    let deltaBytes = 0;
    let added = 0;
    for (let i = 0; i < REFRESHES; i++) {
      const before = store.getRun('live').checkpointCount;
      tenMore();
      added = store.getRun('live').checkpointCount - before;
      let t0 = performance.now();
      const timeline = timelineOf(store, 'live', { withForks: true });
      wholeBytes = JSON.stringify(packTimeline(timeline)).length;
      whole.push(performance.now() - t0);
      t0 = performance.now();
      const d = live.next();
      deltaBytes = d ? JSON.stringify(packTimelineDelta(d)).length : 0;
      delta.push(performance.now() - t0);
    }
    const n = store.getRun('live').checkpointCount;
    process.stdout.write(
      `  live refresh of a running ${n}-checkpoint run after ${added} new checkpoints (${REFRESHES} refreshes): ` +
        `before (the whole query and its message) ${median(whole).toFixed(1)} ms median, ${Math.max(...whole).toFixed(1)} ms max, ${(wholeBytes / 1024).toFixed(0)} KiB; ` +
        `after (what is new: LiveTimeline.next and its delta) ${median(delta).toFixed(2)} ms median, ${Math.max(...delta).toFixed(2)} ms max, ${(deltaBytes / 1024).toFixed(1)} KiB\n`,
    );
  } finally {
    store.close();
  }
}

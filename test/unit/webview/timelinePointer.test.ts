/**
 * The Timeline's keys and pointer over a laid-out run and its fork: arrows walk the bars and move between lanes at
 * the same time, a click finds the bar under it (and the point a bar is drawn at finds that bar again), and the
 * fold mark left of a run's name folds its fork; the canvas's x scale as a multiply lands where the d3 scale does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scaleLinear } from 'd3-scale';
import type { Timeline, TimelineCall, TimelineRun } from '../../../src/model/timeline';
import { keyMove } from '../../../src/webview/timelineKeys';
import { layOut } from '../../../src/webview/timelineLayout';
import { barCentre, barUnder, foldAt } from '../../../src/webview/timelinePointer';
import { linearOf } from '../../../src/webview/timelineScene';

function run(runId: string, start: number, steps: number, extra: Partial<TimelineRun> = {}): TimelineRun {
  const cpAt: number[] = [];
  const calls: TimelineCall[] = [];
  for (let s = 0; s < steps; s++) {
    const t = start + s * 1000;
    cpAt.push(t, t + 400, t + 450, t + 900);
    calls.push({ kind: 'model', cp: s * 4, endCp: s * 4 + 1, step: s, start: t, end: t + 400, name: 'model call' });
    calls.push({
      kind: 'tool',
      cp: s * 4 + 2,
      endCp: s * 4 + 3,
      step: s,
      start: t + 450,
      end: t + 900,
      name: 'lookup',
    });
  }
  return {
    runId,
    agentId: 'a',
    kind: 'run',
    status: 'completed',
    statusText: 'completed',
    startedAt: start,
    stepCount: steps,
    inputTokens: 0,
    outputTokens: 0,
    cpAt,
    cpStep: cpAt.map((_, i) => Math.floor(i / 4)),
    cpBoundary: cpAt.map(() => 0),
    calls,
    liveEdits: [],
    ...extra,
  };
}

const timeline: Timeline = {
  rootRunId: 'root',
  runs: [run('root', 0, 6), run('root-fork', 3000, 3, { kind: 'fork', parentRunId: 'root', forkIndex: 8 })],
};
const layout = layOut(timeline, 'time');
const x = scaleLinear().domain(layout.domain).range([8, 592]);

test('arrows walk the bars of a lane and move to the bar of the next lane at the same time', () => {
  assert.deepEqual(keyMove(layout, undefined, 'ArrowRight'), { lane: 0, bar: 0 });
  assert.deepEqual(keyMove(layout, { lane: 0, bar: 0 }, 'ArrowRight'), { lane: 0, bar: 1 });
  assert.deepEqual(keyMove(layout, { lane: 0, bar: 0 }, 'ArrowLeft'), { lane: 0, bar: 0 });
  assert.deepEqual(keyMove(layout, { lane: 0, bar: 3 }, 'End'), { lane: 0, bar: 11 });
  const down = keyMove(layout, { lane: 0, bar: 8 }, 'ArrowDown');
  assert.ok(typeof down === 'object' && down.lane === 1, 'down goes to the fork');
  assert.equal(keyMove(layout, { lane: 1, bar: 0 }, 'ArrowDown'), 'stay', 'no lane below the last');
  assert.equal(keyMove(layout, { lane: 0, bar: 0 }, 'Enter'), 'activate');
  assert.equal(keyMove(layout, undefined, '+'), 'zoomIn');
  assert.equal(keyMove(layout, undefined, '0'), 'fit');
  assert.equal(keyMove(layout, undefined, 'q'), undefined, 'other keys are left to the page');
});

test("a click on a bar's drawn point finds that bar; one between lanes finds none", () => {
  for (const [runId, cp] of [
    ['root', 0],
    ['root', 10],
    ['root-fork', 2],
  ] as const) {
    const at = barCentre(layout, x, 600, runId, cp);
    assert.ok(at, `${runId} [${cp}] is drawn`);
    const hit = barUnder(layout, x, at.x, at.y);
    const lane = hit && layout.lanes[hit.lane];
    const bar = hit && lane?.bars[hit.bar];
    assert.equal(lane?.run.runId, runId);
    assert.ok(bar && bar.call.cp <= cp && cp <= (bar.call.endCp ?? bar.call.cp), `the bar holds [${cp}]`);
  }
  assert.equal(barUnder(layout, x, 100, 5), undefined, 'the ruler holds no bar');
});

test("the fold mark left of a run's name folds its forks; its name does not", () => {
  assert.equal(foldAt(layout, 6, 25), 'root');
  assert.equal(foldAt(layout, 200, 25), undefined);
  assert.equal(foldAt(layout, 6, 80), undefined, 'the fork has nothing to fold');
});

test('the x scale as a multiply puts a point where the d3 scale does, zoomed in or not', () => {
  for (const scale of [x, x.copy().domain([2500, 3100])]) {
    const { a, b } = linearOf(scale);
    for (const v of [0, 1234.5, 3000, 5900]) assert.ok(Math.abs(v * a + b - scale(v)) < 1e-9);
  }
});

/**
 * What the Timeline says in words where its canvas has no room or no voice: a label too long for its lane cut with
 * an ellipsis (never squeezed), and a live run its debugger holds read as "PAUSED before <tool> at [n]" by a screen
 * reader.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timelineRunText, type TimelineRun } from '../../../src/model/timeline';
import { compact, fitText, relative, rulerLabelAt } from '../../../src/webview/timelineText';

/** A canvas context whose every character is 6 px wide. */
const ctx = { measureText: (t: string) => ({ width: [...t].length * 6 }) } as unknown as CanvasRenderingContext2D;

test('a label that does not fit its room is cut with an ellipsis, one that fits is left whole', () => {
  assert.equal(fitText(ctx, 'demo-support-refund', 200), 'demo-support-refund');
  const cut = fitText(ctx, 'demo-support-refund-fork-d45bce18', 100);
  assert.equal(cut, 'demo-support-re…');
  assert.ok(cut.length * 6 <= 100);
  assert.equal(fitText(ctx, 'completed', 4), '');
});

test('a live run held before a tool reads "PAUSED before <tool> at [n]" in the text list', () => {
  const run: TimelineRun = {
    runId: 'live-1',
    agentId: 'support-bot',
    kind: 'run',
    status: 'running',
    statusText: 'running',
    startedAt: 0,
    stepCount: 1,
    inputTokens: 812,
    outputTokens: 34,
    cpAt: [0, 10, 20, 30],
    cpStep: [0, 0, 0, 0],
    cpBoundary: [0, 1, 2, 3],
    calls: [
      { kind: 'model', cp: 1, endCp: 2, step: 0, start: 10, end: 20, name: 'model call' },
      { kind: 'tool', cp: 3, step: 0, start: 30, name: 'lookup_order', sideEffect: 'read_only', state: 'running' },
    ],
    liveEdits: [],
    pausedAt: 3,
  };
  assert.equal(
    timelineRunText(run),
    'live-1: run · running · PAUSED before lookup_order at [3] · 4 checkpoints · 1 step · 812 in / 34 out tokens',
  );
  const { pausedAt: _held, ...going } = run;
  assert.doesNotMatch(timelineRunText(going), /PAUSED/);
});

test("the ruler's times are as precise as its ticks are apart: zoomed into a long run they still differ", () => {
  const at = 23 * 60_000 + 42_000;
  const ticks = [0, 50, 100].map((d) => relative(at + d, 50));
  assert.deepEqual(ticks, ['+23:42.00', '+23:42.05', '+23:42.10']);
  assert.equal(relative(at, 60_000), '+23:42');
  assert.equal(relative(12_300, 100), '+12.3 s');
  assert.equal(relative(450, 50), '+450 ms');
  assert.equal(relative(2 * 3_600_000 + 5 * 60_000 + 7_000, 1000), '+2:05:07');
});

test("a lane's token total stays short on its label line", () => {
  assert.deepEqual([812, 22_934, 229_933, 16_991_601].map(compact), ['812', '22.9k', '230k', '17.0M']);
});

test("the ruler's last label is not cut at the canvas's edge: it turns to the left of its tick", () => {
  // a 300 px canvas, a label 30 px wide
  assert.equal(rulerLabelAt(100.5, 30, 300, 0), 102.5, 'right of its tick when it fits');
  assert.equal(rulerLabelAt(285.5, 30, 300, 0), 253.5, 'left of its tick near the right edge');
  assert.equal(rulerLabelAt(285.5, 30, 300, 260), undefined, 'left out rather than over the label before it');
});

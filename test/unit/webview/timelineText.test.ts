/**
 * What the Timeline says in words where its canvas has no room or no voice: a label too long for its lane cut with
 * an ellipsis (never squeezed), and a live run its debugger holds read as "PAUSED before <tool> at [n]" by a screen
 * reader.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timelineRunText, type TimelineRun } from '../../../src/model/timeline';
import { fitText } from '../../../src/webview/timelineDraw';

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

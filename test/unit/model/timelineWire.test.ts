/**
 * The Timeline's travelling form as the page checks it: a message whose columns are of the wrong type or length is
 * refused with where and what, not drawn (the host's side and the round trip are in test/unit/replay/timeline.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Timeline } from '../../../src/model/timeline';
import { TimelineHostMessageSchema, packTimeline } from '../../../src/model/timelineWire';

const timeline: Timeline = {
  rootRunId: 'r',
  runs: [
    {
      runId: 'r',
      agentId: 'a',
      kind: 'run',
      status: 'completed',
      statusText: 'completed',
      startedAt: 1000,
      stepCount: 1,
      inputTokens: 10,
      outputTokens: 2,
      cpAt: [1000, 1100, 1200, 1300],
      cpStep: [0, 0, 0, 0],
      cpBoundary: [1, 2, 3, 4],
      calls: [
        {
          kind: 'model',
          cp: 0,
          endCp: 1,
          step: 0,
          start: 1000,
          end: 1100,
          name: 'model call',
          tokensIn: 10,
          tokensOut: 2,
        },
        {
          kind: 'tool',
          cp: 2,
          step: 0,
          start: 1200,
          name: 'issue_refund',
          toolCallId: 't1',
          sideEffect: 'external_irreversible',
          state: 'running',
          edited: true,
        },
      ],
      liveEdits: [2],
    },
  ],
};

function message(mutate: (calls: Record<string, unknown[]>) => void): unknown {
  const wire = JSON.parse(JSON.stringify(packTimeline(timeline))) as { runs: { calls: Record<string, unknown[]> }[] };
  mutate(wire.runs[0]!.calls);
  return { type: 'timeline', timeline: wire };
}

test("a packed timeline passes the page's check", () => {
  assert.ok(TimelineHostMessageSchema.safeParse(message(() => {})).success);
});

test('a column of the wrong type is refused, naming the column', () => {
  const parsed = TimelineHostMessageSchema.safeParse(message((c) => (c.cp![1] = '2')));
  assert.equal(parsed.success, false);
  assert.match(parsed.error?.message ?? '', /cp/);
  assert.match(parsed.error?.message ?? '', /column of integers/);
});

test('columns of different lengths, or a name index out of range, are refused', () => {
  assert.match(
    TimelineHostMessageSchema.safeParse(message((c) => c.start!.pop())).error?.message ?? '',
    /differ in length/,
  );
  assert.match(
    TimelineHostMessageSchema.safeParse(message((c) => (c.name![0] = 7))).error?.message ?? '',
    /names no known name/,
  );
});

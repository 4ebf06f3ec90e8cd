/**
 * The Timeline page grows a laid-out live run in place (webview/timelineGrow.ts): after each delta of a run being
 * recorded — a model call answered after it was drawn open, a call that ends, a live edit — the lanes' bars, their
 * order and the domain are what laying the grown timeline out afresh gives, on the wall-clock and the step axis; a
 * delta that adds a lane (a new fork) is not grown in place (the page lays out again).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyTimelineDelta, onlyGrows } from '../../../src/model/timelineDelta';
import { growLayout } from '../../../src/webview/timelineGrow';
import { layOut, type Layout } from '../../../src/webview/timelineLayout';
import { tmpStore } from '../../helpers/tmp';
import { runLiveScenario } from '../replay/liveTimelineScenario';

function drawn(layout: Layout): unknown {
  return {
    domain: layout.domain,
    lanes: layout.lanes.map((l) => ({
      run: l.run.runId,
      shift: l.shift,
      branchX: l.branchX,
      bars: l.bars.map((b) => [b.call.cp, b.x0, b.x1, b.color, b.call.state, b.call.end]),
      starts: [...l.starts],
    })),
  };
}

test('a layout grown by each delta is the layout of the grown timeline, on both axes', () => {
  const { first, sent } = runLiveScenario(tmpStore());
  for (const axis of ['time', 'steps'] as const) {
    const timeline = structuredClone(first);
    let layout = layOut(timeline, axis);
    let grownInPlace = 0;
    for (const { name, delta: sentDelta } of sent) {
      if (!sentDelta) continue;
      // each axis applies its own copy: a lane sent whole becomes the timeline's, which later deltas grow
      const delta = structuredClone(sentDelta);
      const grows = onlyGrows(timeline, delta);
      applyTimelineDelta(timeline, delta);
      if (grows && growLayout(layout, delta.lanes)) grownInPlace++;
      else {
        assert.ok(!grows || delta.lanes.length > 0, `${name}: only a lane's branch moving is laid out again`);
        layout = layOut(timeline, axis);
      }
      assert.deepStrictEqual(drawn(layout), drawn(layOut(timeline, axis)), `${axis}, ${name}: as laid out afresh`);
    }
    assert.ok(grownInPlace >= 6, `${axis}: most deltas grow the layout in place (${grownInPlace})`);
    const forked = sent.find((s) => s.name === 'a new fork')?.delta;
    assert.ok(forked && forked.runs.length === 1, 'a new fork comes whole: laid out again');
  }
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { frameName, frameSegments, pageFrames, totalFrames } from '../../../src/debug/frames';
import { RunView } from '../../../src/replay/runView';
import type { SqlRunStore } from '../../../src/store';
import { openDemoStore } from '../replay/demoStore';

describe('frames', () => {
  let store: SqlRunStore;
  let parent: RunView;
  let fork: RunView;
  before(() => {
    store = openDemoStore();
    parent = new RunView(store, 'demo-support-refund');
    fork = new RunView(store, 'demo-support-refund-auditor');
  });
  after(() => store.close());

  it('names frames by step, boundary and tool', () => {
    const refund = parent.summaries.find((s) => s.toolName === 'issue_refund' && s.boundary === 'before_tool_call');
    assert.ok(refund);
    assert.equal(frameName(refund), `step ${refund.stepIndex} · before_tool_call · issue_refund`);
    assert.equal(frameName(parent.summaries.at(-1) as never), 'end · agent_end');
  });

  it('pages newest first from the current checkpoint back to the start', () => {
    const segs = frameSegments(parent, 20, () => undefined);
    assert.equal(totalFrames(segs), 21);
    assert.deepEqual(
      pageFrames(segs, 0, 3).map((r) => r.index),
      [20, 19, 18],
    );
    assert.deepEqual(
      pageFrames(segs, 19, 5).map((r) => r.index),
      [1, 0],
    );
    assert.equal(pageFrames(segs, 0, 0).length, 21);
  });

  it('a fork continues into its parent before the fork point', () => {
    const segs = frameSegments(fork, 3, () => parent);
    const forkAt = parent.indexOf(fork.run.forkFromCheckpointId as string) as number;
    assert.equal(totalFrames(segs), 4 + forkAt);
    const page = pageFrames(segs, 2, 4);
    assert.deepEqual(
      page.map((r) => `${r.view.runId}:${r.index}`),
      [
        'demo-support-refund-auditor:1',
        'demo-support-refund-auditor:0',
        `demo-support-refund:${forkAt - 1}`,
        `demo-support-refund:${forkAt - 2}`,
      ],
    );
  });
});

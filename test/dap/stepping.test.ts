/** Stepping both ways through a demo run with a real DAP client against `ocdb dap` over stdio. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { frameName } from '../../src/debug/frames';
import type { CheckpointSummary } from '../../src/store';
import { checkpointsOf, demoStore, startClient, type OcdbDebugClient } from './support/dapClient';

const RUN = 'demo-support-refund';

describe('DAP stepping', () => {
  let store: string;
  let cps: CheckpointSummary[];
  let parentCps: CheckpointSummary[];
  let dc: OcdbDebugClient;
  before(() => {
    store = demoStore();
    cps = checkpointsOf(store, RUN);
    parentCps = cps;
  });
  beforeEach(async () => {
    dc = await startClient();
  });
  afterEach(async () => {
    await dc.stop();
  });
  after(() => undefined);

  /** Asserts the top frame is checkpoint `i` of the run and its transcript line shows `[i]`. */
  async function assertAt(i: number) {
    const body = await dc.frames(20);
    const top = body.stackFrames[0];
    assert.ok(top);
    const cp = cps[i] as CheckpointSummary;
    assert.equal(top.name, frameName(cp));
    assert.equal(body.totalFrames, i + 1);
    assert.equal(body.stackFrames.length, Math.min(20, i + 1));
    const file = top.source?.path;
    assert.ok(file && fs.existsSync(file), 'the frame source is a transcript file on disk');
    const line = fs.readFileSync(file, 'utf8').split('\n')[top.line - 1] ?? '';
    assert.ok(line.startsWith(`[${i}] ${cp.boundary}`), `line ${top.line}: ${line}`);
  }

  it('launch stops on entry at the first checkpoint', async () => {
    const stopped = await dc.launchAndStop({ runId: RUN, store });
    assert.equal(stopped.body.reason, 'entry');
    await assertAt(0);
    const threads = await dc.threadsRequest();
    assert.equal(threads.body.threads[0]?.name, `run ${RUN}`);
  });

  it('steps through every checkpoint of the longest demo run and all the way back', async () => {
    await dc.launchAndStop({ runId: RUN, store });
    for (let i = 1; i < cps.length; i++) {
      const s = await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
      assert.equal(s.body.reason, 'step');
      await assertAt(i);
    }
    assert.equal(cps.at(-1)?.boundary, 'agent_end');
    const end = await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    assert.match(end.body.description ?? '', /agent_end/);
    await assertAt(cps.length - 1);
    for (let i = cps.length - 2; i >= 0; i--) {
      const s = await dc.stepAndStop(() => dc.stepBackRequest({ threadId: 1 }));
      assert.equal(s.body.reason, 'step');
      await assertAt(i);
    }
  });

  it('step in goes to the next tool boundary of the step; step out to the next step', async () => {
    await dc.launchAndStop({ runId: RUN, store });
    await dc.stepAndStop(() => dc.stepInRequest({ threadId: 1 }));
    const firstTool = cps.findIndex((c) => c.boundary === 'before_tool_call');
    await assertAt(firstTool);
    await dc.stepAndStop(() => dc.stepOutRequest({ threadId: 1 }));
    await assertAt(cps.findIndex((c) => c.stepIndex === 1));
  });

  it('continue without breakpoints runs to agent_end, reverse continue back to the start', async () => {
    await dc.launchAndStop({ runId: RUN, store });
    const s = await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
    assert.equal(s.body.reason, 'step');
    await assertAt(cps.length - 1);
    await dc.stepAndStop(() => dc.reverseContinueRequest({ threadId: 1 }));
    await assertAt(0);
  });

  it('starts at checkpointId, and without stopOnEntry runs to the first breakpoint', async () => {
    const target = cps[12] as CheckpointSummary;
    const s = await dc.launchAndStop({ runId: RUN, store, checkpointId: target.checkpointId });
    assert.equal(s.body.reason, 'entry');
    await assertAt(12);
    await dc.stop();

    dc = await startClient();
    await dc.initializeRequest();
    const [, , stopped] = await Promise.all([
      dc.waitForEvent('initialized').then(async () => {
        await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'send_email' }] });
        await dc.configurationDoneRequest();
      }),
      dc.launchRequest({ runId: RUN, store, stopOnEntry: false } as never),
      dc.waitForEvent('stopped'),
    ]);
    assert.equal(stopped.body.reason, 'function breakpoint');
    assert.equal(
      (await dc.topFrame()).name,
      frameName(cps.find((c) => c.toolName === 'send_email') as CheckpointSummary),
    );
  });

  it('a fork run shows the parent run frames before its fork point', async () => {
    await dc.launchAndStop({ runId: 'demo-support-refund-auditor', store });
    await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
    const forkAt = parentCps.findIndex((c) => c.checkpointId === 'demo-support-refund-cp029');
    const all = await dc.frames(0);
    assert.equal(all.totalFrames, 9 + forkAt);
    const firstParent = all.stackFrames[9];
    assert.ok(firstParent);
    assert.equal(firstParent.name, `${frameName(parentCps[forkAt - 1] as CheckpointSummary)} (demo-support-refund)`);
    assert.equal(firstParent.presentationHint, 'subtle');
    assert.match(firstParent.source?.path ?? '', /demo-support-refund\.transcript$/);
    // paging: the client may ask for the frames in pieces
    const page = await dc.frames(5, 7);
    assert.deepEqual(
      page.stackFrames.map((f) => f.name),
      all.stackFrames.slice(7, 12).map((f) => f.name),
    );
  });
});

/**
 * The "done when": a DAP client this project did not write
 * (@vscode/debugadapter-testsupport's DebugClient) drives `ocdb dap` over
 * stdio on a demo run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { demoStore, startClient, type OcdbDebugClient } from './support/dapClient';

describe('done when', () => {
  let dc: OcdbDebugClient;
  let store: string;
  before(async () => {
    store = demoStore();
    dc = await startClient();
  });
  after(async () => {
    await dc.stop();
  });

  it('steps six forward and back to the same frames, stops on a tool breakpoint, reads scopes, evaluates, names no-such-run', async () => {
    await dc.initializeRequest();
    await assert.rejects(dc.launchRequest({ runId: 'no-such-run', store } as never), /no-such-run/);

    await dc.launchAndStop({ runId: 'demo-support-refund', store });
    const seen: string[] = [];
    const frameNames = async () => (await dc.frames(0)).stackFrames.map((f) => `${f.name}@${f.line}`).join('|');
    seen.push(await frameNames());
    for (let i = 0; i < 6; i++) {
      await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
      seen.push(await frameNames());
    }
    for (let i = 5; i >= 0; i--) {
      await dc.stepAndStop(() => dc.stepBackRequest({ threadId: 1 }));
      assert.equal(await frameNames(), seen[i], `back at step ${i}`);
    }

    const bp = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'search_kb' }] });
    assert.equal(bp.body.breakpoints[0]?.verified, true);
    const stop = await dc.stepAndStop(() => dc.continueRequest({ threadId: 1 }));
    assert.equal(stop.body.reason, 'function breakpoint');
    assert.match((await dc.topFrame()).name, /before_tool_call · search_kb$/);

    const scopes = (await dc.scopesOfTop()).map((s) => s.name);
    for (const name of ['Messages', 'Runtime Context', 'Tool Ledger']) assert.ok(scopes.includes(name), name);
    assert.equal((await dc.evaluate('runtimeContext.user.userId')).result, '"agent-u-48213"');
  });
});

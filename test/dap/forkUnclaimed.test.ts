/**
 * A fork made by the debugger's `fork` request in an editor that does not run it (nvim-dap, dap-mode send the request
 * and stop there): through a real `ocdb dap`, the request reads pending, and once its fork run's heartbeat is a
 * minute old (what a minute without a runner leaves) failed `unclaimed` with the reason, its run crashed.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openRunStore } from '../../src/store';
import { HEARTBEAT_STALE_MS } from '../../src/store/liveness';
import { demoStore, startClient, type OcdbDebugClient } from './support/dapClient';

describe('a fork the debugger made that nothing runs', () => {
  let dc: OcdbDebugClient | undefined;
  after(async () => dc?.stop());

  it('settles failed `unclaimed` a minute on, instead of pending forever', async () => {
    const store = demoStore();
    dc = await startClient();
    await dc.launchAndStop({ runId: 'demo-support-refund', store });
    const res = await dc.customRequest('fork', {
      forkConfig: { toolPolicyMap: { '*': 'reuse_result' } },
    });
    const { runId, forkRequestId } = res.body as { runId: string; forkRequestId: string };
    const s = openRunStore(store, { create: false });
    try {
      assert.equal(s.getForkRequest(forkRequestId).status, 'pending');
      s.heartbeat(runId, Date.now() - HEARTBEAT_STALE_MS - 1000);
      const request = s.getForkRequest(forkRequestId);
      assert.equal(request.status, 'failed');
      assert.deepEqual(
        { code: (request.error as { code: string }).code, crashed: s.getRun(runId).crashed },
        { code: 'unclaimed', crashed: true },
      );
      assert.match((request.error as { message: string }).message, /fork made by a debugger's fork request/);
    } finally {
      s.close();
    }
  });
});

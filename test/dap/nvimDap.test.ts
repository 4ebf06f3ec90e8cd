/**
 * What nvim-dap sends, over a real DAP client and `ocdb dap`: a request without arguments carries `[]` (nvim-dap's
 * JSON encoder writes an empty Lua table as an array), accepted wherever every argument is optional (threads,
 * configurationDone, loadedSources, the custom fork and stagedContextPatch, disconnect) and refused by name where one
 * is required.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { demoStore, startClient, type OcdbDebugClient } from './support/dapClient';

describe('nvim-dap', () => {
  let dc: OcdbDebugClient | undefined;
  afterEach(async () => {
    await dc?.stop();
    dc = undefined;
  });

  it('sends [] for no arguments: every request whose arguments are all optional answers it', async () => {
    dc = await startClient();
    const client = dc;
    await client.initializeRequest({ adapterID: 'agent-replay', clientID: 'neovim', pathFormat: 'path' });
    const stopped = client.waitForEvent('stopped');
    await client.launch({ runId: 'demo-support-refund', store: demoStore() });
    const done = await client.verbatim('configurationDone', []);
    assert.equal(done.success, true, done.message);
    await stopped;
    const threads = await client.verbatim('threads', []);
    assert.equal(threads.success, true, threads.message);
    assert.equal((threads.body as DebugProtocol.ThreadsResponse['body']).threads.length, 1);
    const sources = await client.verbatim('loadedSources', []);
    assert.equal(sources.success, true, sources.message);
    const staged = await client.verbatim('stagedContextPatch', []);
    assert.equal(staged.success, true, staged.message);
    assert.deepEqual(staged.body, { contextPatch: {} });
    // fork with [] reaches the fork engine (its defaults: the current checkpoint, no acknowledged tools), whose
    // hazard gate still holds the refund run's email and report back
    const fork = await client.verbatim('fork', []);
    assert.match(fork.message ?? '', /^Fork of demo-support-refund rejected: 2 tools would run again .*send_email/);
    // a request that needs an argument says which one, not "the arguments must be an object"
    const refused = await client.verbatim('setExceptionBreakpoints', []);
    assert.equal(refused.success, false);
    assert.equal(refused.message, 'setExceptionBreakpoints: argument filters is required.');
    const bye = await client.verbatim('disconnect', []);
    assert.equal(bye.success, true, bye.message);
    assert.equal(await client.exited, 0);
  });
});

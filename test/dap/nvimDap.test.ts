/**
 * What nvim-dap sends, over a real DAP client and `ocdb dap`: a request without arguments carries `[]` (nvim-dap's
 * JSON encoder writes an empty Lua table as an array), accepted wherever every argument is optional (threads,
 * configurationDone, loadedSources, the custom fork and stagedContextPatch, disconnect) and refused by name where one
 * is required. And the first attach of a new user: to the next run of an agent when no store exists yet, the adapter
 * makes the store and stops the agent's first run.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { demoStore, startClient, type OcdbDebugClient } from './support/dapClient';
import { attach, mark, startAgent, stoppedFrom, top, type AgentProcess } from './support/liveAgent';

describe('nvim-dap', () => {
  let dc: OcdbDebugClient | undefined;
  const agents: AgentProcess[] = [];
  afterEach(async () => {
    await dc?.stop();
    dc = undefined;
    for (const a of agents.splice(0)) a.proc.kill('SIGKILL');
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

  it('attaches to the next run of an agent before any store exists, and stops its first run', async () => {
    const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-first-attach-')), '.ocdb', 'runs.db');
    assert.equal(fs.existsSync(store), false);
    dc = await startClient();
    const client = dc;
    await attach(client, { agentId: 'first-bot', store }, () =>
      client.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'lookup_order' }] }),
    );
    assert.equal(fs.existsSync(store), true, 'the attach made the store');
    const from = mark(client);
    const agent = startAgent(store, { agentId: 'first-bot' });
    agents.push(agent);
    const stop = await stoppedFrom(client, from);
    assert.equal(stop.body.reason, 'function breakpoint');
    assert.equal((await top(client, stop.body.threadId as number)).name, 'step 0 · before_tool_call · lookup_order');
    await client.continueRequest({ threadId: stop.body.threadId as number });
    await agent.line((l) => l.tool === 'lookup_order');
  });

  it('still refuses to attach to a run id in a store that does not exist, naming the file', async () => {
    const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-no-store-')), 'runs.db');
    dc = await startClient();
    await dc.initializeRequest({ adapterID: 'agent-replay', pathFormat: 'path' });
    const r = await dc.raw('attach', { runId: 'r-1', store });
    assert.equal(r.success, false);
    assert.match(r.message ?? '', /^No run store at .*runs\.db/);
    assert.equal(fs.existsSync(store), false);
  });
});

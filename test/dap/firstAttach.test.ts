/**
 * The first attach of a new user, over a real DAP client and `ocdb dap`: "Debug Next Run…" of an agent when no store
 * exists yet makes the store and stops the agent's first run; while it waits, the extension's own question for
 * staged edits (asked on every checkpoint selected) is answered with nothing staged, not an error the user did not
 * ask for. A run id in a store that does not exist is still refused, naming the file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { attach, liveProcesses, mark, stoppedFrom, top } from './support/liveAgent';

describe('the first attach', () => {
  const live = liveProcesses();

  it('attaches to the next run of an agent before any store exists, and stops its first run', async () => {
    const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-first-attach-')), '.ocdb', 'runs.db');
    assert.equal(fs.existsSync(store), false);
    const client = await live.client();
    await attach(client, { agentId: 'first-bot', store }, () =>
      client.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'lookup_order' }] }),
    );
    assert.equal(fs.existsSync(store), true, 'the attach made the store');
    // waiting: no run yet, so nothing staged (quietly), and a failed lookup would not be shown to the user
    const staged = await client.raw('stagedContextPatch', {});
    assert.equal(staged.success, true, staged.message);
    assert.deepEqual(staged.body, { contextPatch: {} });
    const from = mark(client);
    const agent = live.agent(store, { agentId: 'first-bot' });
    const stop = await stoppedFrom(client, from);
    assert.equal(stop.body.reason, 'function breakpoint');
    assert.equal((await top(client, stop.body.threadId as number)).name, 'step 0 · before_tool_call · lookup_order');
    await client.continueRequest({ threadId: stop.body.threadId as number });
    await agent.line((l) => l.tool === 'lookup_order');
  });

  it('still refuses to attach to a run id in a store that does not exist, naming the file', async () => {
    const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-no-store-')), 'runs.db');
    const dc = await live.client();
    await dc.initializeRequest({ adapterID: 'agent-replay', pathFormat: 'path' });
    const r = await dc.raw('attach', { runId: 'r-1', store });
    assert.equal(r.success, false);
    assert.match(r.message ?? '', /^No run store at .*runs\.db/);
    assert.equal(fs.existsSync(store), false);
  });
});

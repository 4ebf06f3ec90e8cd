/**
 * Leases on one clock, through real processes: `ocdb dap` whose clock is off (test/support/skewedClock.mjs moves
 * its Date.now) attached to a real agent (orderAgent.cjs on the shipped SDK bundle) of a SQLite store. A debugger two
 * minutes ahead that dies lets its agent go on within the lease, not two minutes later; one 30 s behind still stops
 * it. A debugger that froze past its lease tells its user the agent went on, and shows the agent's next stop instead
 * of leaving it waiting unseen. A debugger whose agent a later debugger took over is told.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import Database from 'better-sqlite3';
import { demoStore as makeDemoStore, type OcdbDebugClient } from './support/dapClient';
import { attach, eventFrom, go, liveProcesses, mark, stoppedFrom, top } from './support/liveAgent';

const SKEWED = path.join(__dirname, '..', 'support', 'skewedClock.mjs');
const skewed = (ms: number) => ({ nodeArgs: ['--import', SKEWED], env: { OCDB_TEST_CLOCK_SKEW_MS: String(ms) } });
const goFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-go-')), 'go');

/** `p`, or a failure saying `what` once `ms` passed (a bound the fix promises, far below the skew it guards). */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The first output event from `from` on whose text matches. */
async function outputFrom(dc: OcdbDebugClient, from: number, re: RegExp): Promise<string> {
  const { event } = await eventFrom<DebugProtocol.OutputEvent>(
    dc,
    from,
    (e) => e.event === 'output' && re.test((e as DebugProtocol.OutputEvent).body.output),
  );
  return event.body.output;
}

describe('live debugging on the store clock', () => {
  let shared: string | undefined;
  const demoStore = () => (shared ??= makeDemoStore());
  const live = liveProcesses();

  it('a debugger two minutes ahead that dies holds its agent no longer than the lease', async () => {
    const store = demoStore();
    const dc = await live.client(skewed(120_000));
    await attach(dc, { agentId: 'ahead-bot', store, stopOnEntry: true });
    const from = mark(dc);
    const agent = live.agent(store, { agentId: 'ahead-bot' });
    await stoppedFrom(dc, from);
    dc.process?.kill('SIGKILL');
    // the lease is 5 s on the store's clock; the debugger's clock would have held the agent for 2 min more
    await within(
      agent.line((l) => l.done === true),
      45_000,
      'the agent is still held 45 s after its debugger died',
    );
  });

  it('a debugger 30 s behind still stops its agent, and Continue lets it finish', async () => {
    const store = demoStore();
    const dc = await live.client(skewed(-30_000));
    await attach(dc, { agentId: 'behind-bot', store, stopOnEntry: true });
    const from = mark(dc);
    const agent = live.agent(store, { agentId: 'behind-bot' });
    const finished = agent
      .line((l) => l.done === true)
      .then(() => {
        throw new Error('the agent finished without stopping: the debugger lost its lease to its own clock');
      });
    const stop = await Promise.race([stoppedFrom(dc, from), finished]);
    assert.equal(stop.body.reason, 'entry');
    const threadId = stop.body.threadId as number;
    const transcript = (await top(dc, threadId)).source?.path ?? '';
    assert.match(fs.readFileSync(transcript, 'utf8'), /^# run \S+ · agent behind-bot · running/);
    const at = mark(dc);
    await dc.continueRequest({ threadId });
    await agent.line((l) => l.done === true);
    await eventFrom(dc, at, (e) => e.event === 'thread' && (e as DebugProtocol.ThreadEvent).body.reason === 'exited');
    // the transcript's header follows the run: it ended, it no longer reads running
    assert.match(fs.readFileSync(transcript, 'utf8'), /^# run \S+ · agent behind-bot · completed/);
  });

  it('a debugger that froze past its lease says the agent went on, and shows the agent at its next stop', async () => {
    const store = demoStore();
    const dc = await live.client();
    await attach(dc, { agentId: 'frozen-bot', store, stopOnEntry: true }, () =>
      dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'lookup_order' }] }),
    );
    const from = mark(dc);
    const gate = goFile();
    const agent = live.agent(store, { agentId: 'frozen-bot', go: gate });
    const entry = await stoppedFrom(dc, from);
    const thread = entry.body.threadId as number;
    // the debugger freezes (a debugger paused in a debugger, a laptop lid): its lease runs out
    dc.process?.kill('SIGSTOP');
    await within(stopExpired(store, await agent.runId()), 45_000, 'the held stop never expired');
    const after = mark(dc);
    dc.process?.kill('SIGCONT');
    const told = await outputFrom(dc, after, /went on by itself/);
    assert.match(told, /lease ran out/);
    const { event } = await eventFrom<DebugProtocol.ContinuedEvent>(dc, after, (e) => e.event === 'continued');
    assert.equal(event.body.threadId, thread, 'the thread shown stopped runs again');
    // the agent goes on to lookup_order: the debugger shows that stop (it used to wait there unseen)
    const next = mark(dc);
    go(gate);
    const bp = await stoppedFrom(dc, next, thread);
    assert.equal(bp.body.reason, 'function breakpoint');
    await dc.continueRequest({ threadId: thread });
    await agent.line((l) => l.done === true);
  });

  it('a debugger whose agent a later debugger attached to is told, and told again when it leaves', async () => {
    const store = demoStore();
    const first = await live.client();
    await attach(first, { agentId: 'shared-bot', store });
    const from = mark(first);
    const second = await live.client();
    await attach(second, { agentId: 'shared-bot', store });
    const told = await outputFrom(first, from, /Another debugger/);
    assert.match(told, /agent shared-bot/);
    assert.match(told, /breakpoints do not apply/);
    const back = mark(first);
    await second.disconnectRequest({});
    await outputFrom(first, back, /breakpoints decide where agent shared-bot stops again/);
  });
});

/** Resolves once the agent marked its stop expired (it stopped waiting: LiveGate.look), read from the file. */
async function stopExpired(store: string, runId: string): Promise<void> {
  const db = new Database(store, { readonly: true });
  try {
    const q = db.prepare("SELECT 1 AS x FROM live_stops WHERE run_id = ? AND state = 'expired'");
    while (!q.get(runId)) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    db.close();
  }
}

/**
 * A tool a live debugger held is not a slow tool: a real agent process (orderAgent.cjs on the shipped SDK bundle)
 * stops before lookup_order under `ocdb dap` (Microsoft's DebugClient), the user looks at the stop for a while, then
 * continues. The call's record keeps the hold apart (`heldMs`) from the tool's own time (an instant tool), and what
 * shows durations says so: `ocdb show`, the ledger hover, the transcript line, the Timeline's bar, and the
 * comparison `ocdb diff` prints, whose time leaves the hold out.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { toolOwnMs } from '../../src/model';
import { timelineCallText } from '../../src/model/timeline';
import { toolCallHoverMarkdown } from '../../src/extension/hoverText';
import { compareRuns } from '../../src/replay/runComparison';
import { timelineOf } from '../../src/replay/timeline';
import { renderTranscript } from '../../src/replay/transcript';
import { openRunStore } from '../../src/store';
import { ROOT, demoStore } from './support/dapClient';
import { attach, liveProcesses, mark, stoppedFrom } from './support/liveAgent';

/** How long the user looks at the stop before Continue: the hold the run must not count as the tool's time. */
const LOOK_MS = 1500;

describe('a tool held at a live stop', () => {
  const live = liveProcesses();

  it('records the hold apart from the tool’s own time, and every duration shown leaves the hold out', async () => {
    const store = demoStore();
    const client = await live.client();
    await attach(client, { agentId: 'held-bot', store }, () =>
      client.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'lookup_order' }] }),
    );
    const from = mark(client);
    const agent = live.agent(store, { agentId: 'held-bot' });
    const stop = await stoppedFrom(client, from);
    const threadId = stop.body.threadId as number;
    const stoppedAt = Date.now();
    // the user reads the stop, then continues: the agent is held all that time, before the tool runs
    await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
    await client.continueRequest({ threadId });
    const looked = Date.now() - stoppedAt;
    assert.equal(await agent.exited, 0, agent.stderr);
    const runId = await agent.runId();

    const s = openRunStore(store, { create: false });
    try {
      const call = s.getToolCall(runId, 'c1');
      assert.ok(call.endedAt !== undefined, 'the call finished');
      assert.ok(call.endedAt - call.startedAt >= looked, 'between its begin and end the agent was held');
      assert.ok((call.heldMs ?? 0) >= looked, `the hold is recorded (${call.heldMs} ms, the user looked ${looked} ms)`);
      const own = toolOwnMs(call) as number;
      assert.ok(own < LOOK_MS / 2, `the tool's own time is its own (${own} ms), not the hold`);

      const hover = toolCallHoverMarkdown(runId, call);
      assert.match(hover, /· \d+ ms · held \d+\.\d s by the debugger/, hover.split('\n')[0]);

      const transcript = renderTranscript(s.getRun(runId), s.listCheckpoints(runId), (id) => s.getCheckpoint(id), {
        toolCalls: s.listToolCalls(runId),
      }).text;
      const line = transcript.split('\n').find((l) => l.includes('lookup_order →')) ?? '';
      assert.match(line, /· \d+ ms \(held \d+ ms by the debugger\)$/, line);

      const bar = timelineOf(s, runId).runs[0]?.calls.find((c) => c.toolCallId === 'c1');
      assert.ok(bar, 'the Timeline draws the call');
      assert.match(timelineCallText(bar), /lookup_order · read_only · \d+ ms · held \d+\.\d s by the debugger/);

      const compared = compareRuns(s, runId, runId);
      assert.ok(
        compared.left.durationMs < looked,
        `Compare's time (${compared.left.durationMs} ms) leaves out the ${looked} ms the debugger held the tool`,
      );
    } finally {
      s.close();
    }

    const show = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'show', runId, '--store', store], {
      encoding: 'utf8',
    });
    assert.equal(show.status, 0, show.stderr);
    // the ledger's row of c1 (its ID column last); a checkpoint row's id may contain "c1" too
    const ledger = show.stdout.slice(show.stdout.indexOf('\nTool ledger'));
    const row = ledger.split('\n').find((l) => l.includes('lookup_order') && /\sc1$/.test(l.trimEnd())) ?? '';
    assert.match(row, /\d+ms \+\d\.\ds held/, `ocdb show's ledger row: ${row}`);
  });
});

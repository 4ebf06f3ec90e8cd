/**
 * A model call a live debugger held is not a slow model call: a real agent process (orderAgent.cjs on the shipped
 * SDK bundle) stops before its first model call under `ocdb dap` (Microsoft's DebugClient, `stopBeforeModelCall`),
 * the user looks at the stop for a while, steps over the call (Next: it stops again after it), looks again, then
 * continues. The run keeps both holds apart from the time of the model call (an instant one) and of the step: the
 * after_model_call checkpoint holds the hold before the call, the checkpoint after it the hold after. What shows
 * durations says so: the Timeline's bar, the transcript line, and the comparison `ocdb diff` prints, whose time leaves
 * the holds out; and what shows a tool's hold shows these too: the Checkpoint scope of the Variables view (at the
 * stop after the call), `ocdb show`, the MCP server's read_checkpoints and the runs tree's checkpoint items.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkpointView } from '../../src/extension/runsTreeModel';
import { timelineCallText } from '../../src/model/timeline';
import { compareRuns } from '../../src/replay/runComparison';
import { timelineOf } from '../../src/replay/timeline';
import { renderTranscript } from '../../src/replay/transcript';
import { openRunStore } from '../../src/store';
import { ROOT, demoStore } from './support/dapClient';
import { attach, liveProcesses, mark, scopeVars, stoppedFrom, top } from './support/liveAgent';
import { connectClient } from '../unit/mcp/mcpClient';

/** How long the user looks at each stop: the holds the run must not count as the model's time or the step's. */
const LOOK_MS = 1500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a model call held at live stops', () => {
  const live = liveProcesses();

  it('records the holds apart from the model call’s time, and every duration shown leaves them out', async () => {
    const store = demoStore();
    const client = await live.client();
    await attach(client, { agentId: 'model-held-bot', store, stopBeforeModelCall: true });
    let from = mark(client);
    const agent = live.agent(store, { agentId: 'model-held-bot' });
    const stop = await stoppedFrom(client, from);
    const threadId = stop.body.threadId as number;
    assert.equal((await top(client, threadId)).name, 'step 0 · before_model_call');
    // the user reads the stop before the model call, then steps over the call: the model is called, held again after
    let stoppedAt = Date.now();
    await sleep(LOOK_MS);
    from = mark(client);
    await client.nextRequest({ threadId });
    const lookedBefore = Date.now() - stoppedAt;
    await stoppedFrom(client, from, threadId);
    assert.equal((await top(client, threadId)).name, 'step 0 · after_model_call');
    stoppedAt = Date.now();
    // the user reads the Variables view there: the Checkpoint scope names the hold before the call, as the Tool
    // Ledger names a tool's
    const scope = (await scopeVars(client, threadId, 'Checkpoint')).vars;
    const heldVar = scope.find((v) => v.name === 'heldByDebuggerMs');
    assert.ok(
      heldVar && Number(heldVar.value) >= lookedBefore,
      `the Checkpoint scope shows the hold (the user looked ${lookedBefore} ms): ${scope.map((v) => `${v.name} = ${v.value}`).join(', ')}`,
    );
    await sleep(LOOK_MS);
    from = mark(client);
    await client.continueRequest({ threadId });
    const lookedAfter = Date.now() - stoppedAt;
    // stopBeforeModelCall stops before the second model call too: let it go on at once
    await stoppedFrom(client, from, threadId);
    await client.continueRequest({ threadId });
    assert.equal(await agent.exited, 0, agent.stderr);
    const runId = await agent.runId();

    const s = openRunStore(store, { create: false });
    try {
      const cps = s.listCheckpoints(runId);
      const answered = cps.findIndex((c) => c.boundary === 'after_model_call');
      const asked = cps[answered - 1];
      const answer = cps[answered];
      const next = cps[answered + 1];
      assert.ok(asked && answer && next && asked.boundary === 'before_model_call');
      assert.ok(
        (answer.heldMs ?? 0) >= lookedBefore,
        `the hold before the call is recorded (${answer.heldMs} ms, the user looked ${lookedBefore} ms)`,
      );
      const own = answer.createdAt - asked.createdAt - (answer.heldMs ?? 0);
      assert.ok(own < LOOK_MS / 2, `the model call's own time is its own (${own} ms), not the hold`);
      assert.ok(
        (next.heldMs ?? 0) >= lookedAfter,
        `the hold after the call is recorded on the checkpoint after it (${next.heldMs} ms, looked ${lookedAfter} ms)`,
      );

      const bar = timelineOf(s, runId).runs[0]?.calls.find((c) => c.kind === 'model' && c.cp === asked.index);
      assert.ok(bar, 'the Timeline draws the model call');
      assert.match(timelineCallText(bar), /model call · \d+ ms · held \d+\.\d s by the debugger/);

      const transcript = renderTranscript(s.getRun(runId), cps, (id) => s.getCheckpoint(id), {
        toolCalls: s.listToolCalls(runId),
      }).text;
      const line = transcript.split('\n').find((l) => l.includes(`[${answer.index}]`)) ?? '';
      assert.match(line, /held \d+ ms by the debugger before the call/, line);

      // the runs tree's items: the hold in the description, where it was in the hover
      const before = checkpointView(answer, undefined, asked);
      assert.match(before.description ?? '', /held \d+\.\d s/, before.description);
      assert.match(before.tooltip ?? '', /Held \d+\.\d s by the debugger before the call/, before.tooltip);
      const after = checkpointView(next, undefined, answer);
      assert.match(after.tooltip ?? '', /Held \d+\.\d s by the debugger after the model call/, after.tooltip);

      const compared = compareRuns(s, runId, runId);
      assert.ok(
        compared.left.durationMs < LOOK_MS,
        `Compare's time (${compared.left.durationMs} ms) leaves out the ${lookedBefore + lookedAfter} ms the debugger held the agent`,
      );

      // what a coding agent reads through the MCP server: the checkpoints with the holds
      const mcp = await connectClient({ storeLocation: store, env: {}, cwd: process.cwd() });
      try {
        const read = await mcp.call('read_checkpoints', { runId, offset: asked.index, limit: 3 });
        assert.equal(read.isError, false, read.text);
        const [, mcpAnswer, mcpNext] = read.json.checkpoints as Record<string, unknown>[];
        assert.ok(Number(mcpAnswer?.heldByDebuggerMs) >= lookedBefore, read.text);
        assert.ok(Number(mcpNext?.heldByDebuggerMs) >= lookedAfter, read.text);
      } finally {
        await mcp.close();
      }

      const show = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'show', runId, '--store', store], {
        encoding: 'utf8',
      });
      assert.equal(show.status, 0, show.stderr);
      const row = (id: string) => show.stdout.split('\n').find((l) => l.includes(id)) ?? '';
      assert.match(show.stdout, /^#\s+STEP\s+BOUNDARY .* HELD\s+ID$/m, show.stdout);
      assert.match(
        row(answer.checkpointId),
        / \d\.\ds before the call /,
        `ocdb show's checkpoint row: ${row(answer.checkpointId)}`,
      );
      assert.match(
        row(next.checkpointId),
        / \d\.\ds after the model call /,
        `ocdb show's row: ${row(next.checkpointId)}`,
      );
    } finally {
      s.close();
    }

    const diff = spawnSync(
      process.execPath,
      [path.join(ROOT, 'dist', 'cli.js'), 'diff', runId, runId, '--store', store],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(diff.status, 0, diff.stderr);
    const time = /time: (\d+) ms → (\d+) ms/.exec(diff.stdout);
    assert.ok(time, diff.stdout);
    assert.ok(Number(time[1]) < LOOK_MS, `ocdb diff's time leaves the holds out: ${time[0]}`);
  });
});

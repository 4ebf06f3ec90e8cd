/**
 * A run edited by a live debugger shows its edits: the transcript marks the checkpoint line where each
 * edit was made (one line per checkpoint still), a comparison with an unedited run names them, and `ocdb show`
 * lists them and marks the edited tool call.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { showCommand } from '../../../src/cli/commands/showCommand';
import { openRecorder } from '../../../src/recorder';
import { compareRuns } from '../../../src/replay/runComparison';
import { comparisonSides, comparisonSummary } from '../../../src/replay/comparisonText';
import { RunView } from '../../../src/replay/runView';
import type { SqlRunStore } from '../../../src/store';
import { TestDebugger } from '../../fixtures/liveDebugger';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

async function recordOrderRun(store: SqlRunStore, runId: string, editArgs: boolean): Promise<void> {
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId,
    agentId: 'support-bot',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'Where is A-1?' }],
  });
  const dbg = editArgs ? new TestDebugger(store, `att-${runId}`, { runId }) : undefined;
  const lookup = run.tool('lookup_order', { sideEffectLevel: 'read_only' }, async (args: { orderId: string }) => ({
    orderId: args.orderId,
    status: 'shipped',
  }));
  const answering = dbg
    ? (async () => {
        for (;;) {
          const stop = await dbg.nextStop();
          if (stop.boundary === 'before_tool_call') {
            dbg.resume(stop, { toolArgs: { orderId: 'B-2' }, paths: ['args.orderId'], editedBy: 'VS Code' });
          } else dbg.resume(stop);
          if (stop.boundary === 'after_tool_call') return;
        }
      })()
    : Promise.resolve();
  await run.modelCall({}, async () => ({
    message: {
      role: 'assistant',
      content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'lookup_order', args: { orderId: 'A-1' } }],
    },
  }));
  await lookup({ orderId: 'A-1' }, { toolCallId: 'c1' });
  await answering; // the debugger lets every stop go and detaches after the tool
  dbg?.detach();
  await run.modelCall({}, async () => ({ message: { role: 'assistant', content: 'Shipped.' } }));
  run.end();
  recorder.close();
}

test('the transcript, a comparison and ocdb show show what a live debugger edited', async () => {
  const store = tmpStore();
  await recordOrderRun(store, 'edited', true);
  await recordOrderRun(store, 'plain', false);

  const view = new RunView(store, 'edited');
  const transcript = view.transcript();
  assert.equal(transcript.lines.length, view.summaries.length, 'one line per checkpoint, as before');
  const toolLine = transcript.lines.find((l) => l.boundary === 'before_tool_call');
  assert.ok(toolLine);
  const text = transcript.text.split('\n');
  assert.match(text[toolLine.line] ?? '', /lookup_order\(\{"orderId":"B-2"\}\).*✎ edited by VS Code: args\.orderId/);
  assert.match(transcript.text, /# 1 live edit by a debugger/);
  assert.doesNotMatch(new RunView(store, 'plain').transcript().text, /✎/);

  const comparison = compareRuns(store, 'plain', 'edited');
  const sides = comparisonSides(comparison);
  assert.match(sides.right, /✎ edited by VS Code: args\.orderId/);
  assert.doesNotMatch(sides.left, /✎/);
  assert.match(sides.right, /tool lookup_order\(\{"orderId":"B-2"\}\)/);
  assert.ok(comparisonSummary(comparison).some((l) => /step 0: .*✎ edited by VS Code/.test(l)));

  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), isTty: false, env: {}, cwd: '.' };
  assert.equal(await showCommand.run({ args: ['edited', '--store', store.path], io }), 0, out.join('\n'));
  const shown = out.join('\n');
  assert.match(shown, /Live edits \(made by a debugger/);
  assert.match(shown, /before_tool_call\s+c1\s+.*edited by VS Code: args\.orderId/);
  assert.match(shown, /lookup_order ✎/);
  const json: string[] = [];
  await showCommand.run({ args: ['edited', '--json', '--store', store.path], io: { ...io, out: (t) => json.push(t) } });
  const parsed = JSON.parse(json.join('')) as { liveEdits: { toolCallId: string }[] };
  assert.deepEqual(
    parsed.liveEdits.map((e) => e.toolCallId),
    ['c1'],
  );
});

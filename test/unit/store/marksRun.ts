/**
 * A run that holds every kind of mark the Timeline reads, for the marks tests on one engine and across both: usages
 * in the store's short form and in full (captured, a fraction), a checkpoint held at a stop, calls begun in an order
 * their ids do not sort in, a held call, a failed one, a cancelled one, one edited at a stop, one still running.
 */
import type { RunStore } from '../../../src/store';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';

export const MARKS_RUN = 'marks-run';

/** The calls in the order they were begun (their ids sort otherwise). */
export const BEGUN = ['zz-held', 'aa-failed', 'mm-edited', 'qq-cancelled', 'bb-open'];

export function writeMarksRun(store: RunStore): void {
  let clock = 1_767_225_600_000;
  const writer = RunWriter.create(
    store,
    { runId: MARKS_RUN, agentId: 'marks-agent', state: { runtimeContext: testContext() } },
    { now: () => clock },
  );
  const model = (input: Parameters<RunWriter['checkpoint']>[1]) => {
    clock += 40;
    const before = writer.checkpoint('before_model_call');
    clock += 310;
    writer.checkpoint('after_model_call', input);
    return before;
  };
  model({ usage: { inputTokens: 900, outputTokens: 41 } });
  const [zz, aa, mm, qq, bb] = BEGUN as [string, string, string, string, string];
  writer.beginTool({ toolCallId: zz, toolName: 'lookup', args: { id: 1 }, sideEffectLevel: 'read_only' });
  clock += 250;
  writer.held(zz, 240);
  writer.finishTool(zz, 'success', { ok: true });
  const stop = model({ usage: { inputTokens: 1.5, outputTokens: 2, captured: true } });
  writer.heldAtStop(stop.checkpointId, 75);
  model({});
  writer.beginTool({ toolCallId: aa, toolName: 'refund', args: { id: 2 }, sideEffectLevel: 'write' });
  clock += 9;
  writer.finishTool(aa, 'error', { name: 'Error', message: 'declined' });
  writer.beginTool(
    { toolCallId: mm, toolName: 'email', args: { to: 'a' }, sideEffectLevel: 'external_irreversible' },
    { checkpoint: { checkpointId: `${MARKS_RUN}#edit` } },
  );
  store.recordLiveEdit(
    MARKS_RUN,
    {
      stopId: 'stop-1',
      checkpointId: `${MARKS_RUN}#edit`,
      boundary: 'before_tool_call',
      toolCallId: mm,
      edits: { toolArgs: { to: 'b' }, editedBy: 'VS Code' },
      appliedAt: clock,
    },
    { toolCallId: mm, args: { to: 'b' }, liveEdit: { stopId: 'stop-1', editedBy: 'VS Code', at: clock } },
  );
  clock += 30;
  writer.finishTool(mm, 'success', null);
  writer.beginTool({ toolCallId: qq, toolName: 'lookup', args: { id: 3 }, sideEffectLevel: 'expensive_read' });
  clock += 5;
  writer.finishTool(qq, 'cancelled', 'stopped by the user');
  writer.beginTool({ toolCallId: bb, toolName: 'search', args: { q: 'x' }, sideEffectLevel: 'none' });
}

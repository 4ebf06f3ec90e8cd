/**
 * A long run for the Timeline's scale figures (the bench and the VS Code scale flow): `checkpoints` checkpoints in
 * steps of a model call and a tool call (4 checkpoints each), side-effect levels in turn, one call in 97 failing,
 * on a clock of realistic durations; and two captured forks at a third and two thirds of it.
 */
import { ForkService } from '../../src/fork/forkService';
import { openRecorder } from '../../src/recorder';
import { openRunStore } from '../../src/store';
import { testContext } from './context';

export function recordTimelineRun(storePath: string, checkpoints: number, runId: string): void {
  const store = openRunStore(storePath);
  try {
    let t = Date.UTC(2026, 0, 1);
    const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: false, now: () => t });
    const run = recorder.startRun({ agentId: 'bench-agent', runId, runtimeContext: testContext() });
    const levels = ['read_only', 'expensive_read', 'write', 'none'] as const;
    for (let step = 0; step < Math.floor((checkpoints - 1) / 4); step++) {
      t += 40;
      run.checkpoint('before_model_call', {});
      t += 300 + (step % 7) * 50;
      // the conversation grows by the tool results the writer adds; the timeline reads none of it
      run.checkpoint('after_model_call', { usage: { inputTokens: 900 + step, outputTokens: 40 + (step % 13) } });
      t += 5;
      const id = run.beginTool(
        `tool_${step % 5}`,
        { step },
        { sideEffectLevel: levels[step % 4] ?? 'none', replayPolicy: 'reuse_result' },
      );
      t += 20 + (step % 11) * 10;
      if (step % 97 === 5) run.finishTool(id, 'error', { name: 'Error', message: 'not found' });
      else run.finishTool(id, 'success', { ok: step });
    }
    run.end();
    recorder.close();
    const forks = new ForkService(store);
    const cps = store.listCheckpoints(runId);
    for (const at of [Math.floor(cps.length / 3), Math.floor((cps.length * 2) / 3)]) {
      const from = cps[at];
      if (from) forks.createReplay(runId, { fromCheckpointId: from.checkpointId, captured: true });
    }
  } finally {
    store.close();
  }
}

/** `timeline-scale-2k`: no run's id is a prefix of another's (the tree's rows are found by a part of their label). */
export function scaleRunId(size: number): string {
  return `timeline-scale-${size / 1000}k`;
}

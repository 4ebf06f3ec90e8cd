/**
 * A long run for the Timeline's scale figures (the bench and the VS Code scale flow): `checkpoints` checkpoints in
 * steps of a model call and a tool call (4 checkpoints each), side-effect levels in turn, one call in 97 failing,
 * on a clock of realistic durations; and two forks at a third and two thirds of it, each going on for a tenth of the
 * run. Written straight through the RunWriter, each run in one store transaction (an SDK recording commits every
 * checkpoint: 20,000 of them took half a minute on a loaded machine, this takes a few seconds).
 */
import { ForkService } from '../../src/fork/forkService';
import { openRunStore, type RunStore } from '../../src/store';
import { RunWriter } from '../../src/writer';
import { testContext } from './context';

const LEVELS = ['read_only', 'expensive_read', 'write', 'none'] as const;

/** Writes `steps` steps (model call, tool call) from step `first` on, the clock at `clock.t` moving on. */
function writeSteps(writer: RunWriter, first: number, steps: number, clock: { t: number }): void {
  for (let step = first; step < first + steps; step++) {
    clock.t += 40;
    writer.checkpoint('before_model_call', { createdAt: clock.t });
    clock.t += 300 + (step % 7) * 50;
    writer.checkpoint('after_model_call', {
      createdAt: clock.t,
      usage: { inputTokens: 900 + step, outputTokens: 40 + (step % 13) },
    });
    clock.t += 5;
    const { record } = writer.beginTool(
      {
        toolName: `tool_${step % 5}`,
        args: { step },
        sideEffectLevel: LEVELS[step % 4] ?? 'none',
        replayPolicy: 'reuse_result',
        startedAt: clock.t,
      },
      { checkpoint: { createdAt: clock.t } },
    );
    clock.t += 20 + (step % 11) * 10;
    const failed = step % 97 === 5;
    writer.finishTool(
      record.toolCallId,
      failed ? 'error' : 'success',
      failed ? { name: 'Error', message: 'not found' } : { ok: step },
      { endedAt: clock.t, checkpoint: { createdAt: clock.t } },
    );
  }
}

/** Writes the run `runId` of about `checkpoints` checkpoints and its two forks into the store at `storePath`. */
export function writeTimelineRun(storePath: string, checkpoints: number, runId: string): void {
  const store = openRunStore(storePath);
  try {
    writeInto(store, checkpoints, runId);
  } finally {
    store.close();
  }
}

function writeInto(store: RunStore, checkpoints: number, runId: string): void {
  const clock = { t: Date.UTC(2026, 0, 1) };
  const steps = Math.floor((checkpoints - 1) / 4);
  store.transaction(() => {
    const writer = RunWriter.create(
      store,
      { runId, agentId: 'bench-agent', startedAt: clock.t, state: { runtimeContext: testContext() } },
      { now: () => clock.t },
    );
    writeSteps(writer, 0, steps, clock);
    writer.end({ endedAt: clock.t });
  });
  const cps = store.listCheckpoints(runId);
  // each fork from the end of a step (an after_tool_call: index 4s + 3), going on with steps of its own
  for (const third of [1, 2]) {
    const from = cps[Math.floor((cps.length * third) / 3 / 4) * 4 + 3];
    if (!from) continue;
    // on the run's clock: the fork starts at its fork point's time and goes on beside its parent
    const forks = new ForkService(store, { now: () => from.createdAt });
    const { runId: forkId } = forks.createReplay(runId, { fromCheckpointId: from.checkpointId, captured: true });
    store.transaction(() => {
      const forkClock = { t: from.createdAt };
      const writer = RunWriter.resume(store, forkId, { now: () => forkClock.t });
      writeSteps(writer, from.stepIndex + 1, Math.floor(steps / 10), forkClock);
      writer.end({ endedAt: forkClock.t });
    });
  }
}

/** `timeline-scale-2k`: no run's id is a prefix of another's (the tree's rows are found by a part of their label). */
export function scaleRunId(size: number): string {
  return `timeline-scale-${size / 1000}k`;
}

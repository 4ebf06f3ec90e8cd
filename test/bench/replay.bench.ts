/**
 * Replay benchmark: captured replay of the longest demo run and of
 * a generated 2,000-checkpoint run (400 ReAct steps, one tool call each, the
 * conversation growing to 800 messages), in checkpoints per second, beside
 * the floor: reading the same checkpoints back from the store (list + get
 * each), which every replay must do at least once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDemoStore } from '../../src/demo';
import { openRecorder } from '../../src/recorder';
import { ForkService } from '../../src/fork/forkService';
import { runFork } from '../../src/fork/runner';
import { openRunStore, type RunStore } from '../../src/store';
import { testContext } from '../helpers/context';
import { fmt, summarize, us } from './stats';

export function readFloor(store: RunStore, runId: string): number {
  const t = process.hrtime.bigint();
  for (const c of store.listCheckpoints(runId)) store.getCheckpoint(c.checkpointId);
  return us(t);
}

export async function replayOnce(store: RunStore, runId: string): Promise<{ usTotal: number; checkpoints: number }> {
  const t = process.hrtime.bigint();
  const created = new ForkService(store).createReplay(runId, { captured: true });
  const outcome = await runFork(store, created.forkRequestId);
  const usTotal = us(t);
  if (outcome.failure || outcome.divergence)
    throw new Error(`replay of ${runId} did not reproduce: ${JSON.stringify(outcome.failure)}`);
  return { usTotal, checkpoints: outcome.checkpointCount };
}

async function measure(store: RunStore, runId: string, rounds: number): Promise<void> {
  const count = store.getRun(runId).checkpointCount;
  const floors: number[] = [];
  const replays: number[] = [];
  for (let i = 0; i < rounds; i++) {
    floors.push(readFloor(store, runId));
    replays.push((await replayOnce(store, runId)).usTotal);
  }
  const f = summarize(floors);
  const r = summarize(replays);
  const perSec = (usTotal: number) => (count / usTotal) * 1e6;
  process.stdout.write(
    [
      `${runId}: ${count} checkpoints, ${rounds} rounds`,
      `  captured replay   mean ${fmt(r.mean / 1000)} ms (p95 ${fmt(r.p95 / 1000)} ms)  ->  ${fmt(perSec(r.mean), 0)} checkpoints/s`,
      `  read floor        mean ${fmt(f.mean / 1000)} ms (p95 ${fmt(f.p95 / 1000)} ms)  ->  ${fmt(perSec(f.mean), 0)} checkpoints/s`,
      `  replay / floor    ${fmt(r.mean / f.mean, 2)}x`,
      '',
    ].join('\n'),
  );
}

/** Records a 2,000-checkpoint run through the SDK: 400 steps x (prompt build, model call pair, tool call pair). */
export async function recordLongRun(store: RunStore): Promise<string> {
  const recorder = openRecorder({ runStore: store, fork: false, heartbeatMs: 0 });
  const run = recorder.startRun({
    runId: 'bench-long',
    agentId: 'bench',
    runtimeContext: testContext(),
    systemPrompt: 'You are a benchmark agent.',
    messages: [{ role: 'user', content: 'start' }],
  });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, async (args: { q: number }) => ({
    hits: [`doc-${args.q}`, `doc-${args.q + 1}`],
    snippet: 'lorem ipsum '.repeat(20),
  }));
  for (let step = 0; step < 400; step++) {
    run.checkpoint('before_prompt_build');
    const id = `call-${step}`;
    await run.modelCall({}, async () => ({
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: `step ${step}: searching ${'detail '.repeat(10)}` },
          { type: 'tool_call', toolCallId: id, toolName: 'search', args: { q: step } },
        ],
      },
      finishReason: 'tool_calls',
      usage: { inputTokens: 100 + step, outputTokens: 20 },
    }));
    await search({ q: step }, { toolCallId: id });
  }
  run.end();
  recorder.close();
  return 'bench-long';
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-replay-'));
  try {
    const store = openRunStore(join(dir, 'runs.db'));
    writeDemoStore(store);
    const longestDemo = store
      .listRuns()
      .runs.filter((r) => r.runId.startsWith('demo-'))
      .sort((a, b) => b.checkpointCount - a.checkpointCount)[0];
    if (!longestDemo) throw new Error('no demo runs');
    await replayOnce(store, longestDemo.runId); // warm up statements and JIT
    await measure(store, longestDemo.runId, 30);
    const long = await recordLongRun(store);
    process.stdout.write(`(generated run recorded: ${store.getRun(long).checkpointCount} checkpoints)\n`);
    await measure(store, long, 3);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

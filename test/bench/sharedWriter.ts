/**
 * One writer process of shared.bench.ts: opens the store named on its command line through the SDK (a path or a
 * postgres:// URL, as an agent would), starts a run, says `ready`, waits for `go` on stdin, then records
 * `<appends>` checkpoints (model calls of two checkpoints each, ~1 KB messages) and prints one JSON line with the
 * time of each model call and its wall time.
 *   node --import tsx test/bench/sharedWriter.ts <store> <runId> <appends>
 * With OCDB_BENCH_SHARED_DISTINCT=1 each writer writes content of its own (see `distinct` below).
 */
import { once } from 'node:events';
import { openRecorder } from '../../src/recorder';
import { testContext } from '../helpers/context';
import { assistantMessage } from './record.bench';
import { us } from './stats';

/** The step's assistant message with this writer's run id in its text: no two writers write the same content. */
function ownMessage(runId: string, step: number): ReturnType<typeof assistantMessage> {
  const m = assistantMessage(step);
  const [text, ...rest] = m.content as [{ type: 'text'; text: string }, ...unknown[]];
  return { ...m, content: [{ ...text, text: `${runId}: ${text.text}` }, ...rest] };
}

// OCDB_BENCH_SHARED_DISTINCT=1: each writer's content is its own (agents on different tasks); else every writer
// writes the same assistant messages in lockstep (agents on one task: shared blobs wait on each other's commits)
const distinct = process.env.OCDB_BENCH_SHARED_DISTINCT === '1';

async function main(): Promise<void> {
  const [store, runId, appendsText] = process.argv.slice(2);
  if (!store || !runId || !appendsText) throw new Error('usage: sharedWriter.ts <store> <runId> <appends>');
  const appends = Number(appendsText);
  const recorder = openRecorder({ store, heartbeatMs: 0, fork: false });
  const run = recorder.startRun({
    runId,
    agentId: 'bench-writer',
    runtimeContext: testContext(),
    systemPrompt: 'You are one of eight agents recording at once.',
    messages: [{ role: 'user', content: `Writer ${runId}: survey replay debugging.` }],
  });
  process.stdout.write('ready\n');
  await once(process.stdin, 'data');
  const perCall: number[] = [];
  const t0 = process.hrtime.bigint();
  for (let step = 0; step < Math.max(1, Math.floor(appends / 2)); step++) {
    const t = process.hrtime.bigint();
    await run.modelCall({}, () =>
      Promise.resolve({
        message: distinct ? ownMessage(runId, step) : assistantMessage(step),
        finishReason: 'stop',
        usage: { inputTokens: 100 + step, outputTokens: 20 },
      }),
    );
    perCall.push(us(t));
  }
  const wallUs = us(t0);
  run.end();
  recorder.close();
  process.stdout.write(`${JSON.stringify({ perCall, wallUs })}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});

/**
 * What the extension pays to keep its views live on a store of 2,000 runs:
 * the per-second poll (changeSeq), the incremental refresh after another
 * process writes one checkpoint (changesSince + that run's checkpoints)
 * against re-reading the whole first page (listRuns 200 + their tree items),
 * and rendering the transcript and tree items of the 48-checkpoint demo run.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeDemoStore } from '../../src/demo';
import { runView, checkpointView } from '../../src/extension/runsTreeModel';
import { renderTranscript } from '../../src/replay/transcript';
import { openRecorder } from '../../src/recorder';
import { openRunStore } from '../../src/store';
import { fmt, summarize, us } from './stats';

const RUNS = 2000;
const ROUNDS = 50;

function time(fn: () => void, rounds = ROUNDS): ReturnType<typeof summarize> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    fn();
    samples.push(us(t));
  }
  return summarize(samples);
}

const line = (what: string, s: ReturnType<typeof summarize>) =>
  process.stdout.write(`${what.padEnd(58)} p50 ${fmt(s.p50)} µs   p95 ${fmt(s.p95)} µs\n`);

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'att-bench-ext-'));
  const file = path.join(dir, 'runs.db');
  try {
    const store = openRunStore(file, { create: true });
    writeDemoStore(store);
    store.transaction(() => {
      for (let i = 0; i < RUNS; i++) {
        const runId = `bench-run-${i}`;
        store.createRun({ runId, sessionId: 's', agentId: 'bench-agent', startedAt: 1_700_000_000_000 + i });
        store.finishRun(runId, { status: i % 17 === 0 ? 'failed' : 'completed', endedAt: 1_700_000_000_500 + i });
      }
    });
    process.stdout.write(`store: ${RUNS + 7} runs\n`);

    line(
      'poll: changeSeq() with nothing new',
      time(() => store.changeSeq(), 500),
    );

    const recorder = openRecorder({ store: file, heartbeatMs: 0 });
    const rec = recorder.startRun({
      agentId: 'live',
      runtimeContext: store.getCheckpointAt('demo-support-refund', 0).runtimeContext,
      messages: [{ role: 'user', content: 'hello' }],
    });
    let seq = store.changeSeq();
    const incremental: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      rec.checkpoint(i % 2 === 0 ? 'before_model_call' : 'before_prompt_build');
      const t = process.hrtime.bigint();
      const changes = store.changesSince(seq);
      seq = changes.changeSeq;
      for (const r of changes.changedRuns) {
        runView(r, Date.now());
        store.listCheckpoints(r.runId);
      }
      incremental.push(us(t));
    }
    line('live refresh after one write: changesSince + that run', summarize(incremental));
    line(
      'full re-read instead: listRuns(200) + 200 tree items',
      time(() => {
        for (const r of store.listRuns({ parentRunId: null, limit: 200 }).runs) runView(r, Date.now());
      }),
    );
    rec.end();
    recorder.close();

    const run = store.getRun('demo-support-refund');
    const summaries = store.listCheckpoints(run.runId);
    const calls = store.listToolCalls(run.runId);
    line(
      `transcript of ${run.runId} (${summaries.length} checkpoints)`,
      time(() => renderTranscript(run, summaries, (id) => store.getCheckpoint(id), { toolCalls: calls }), 20),
    );
    line(
      `tree items of its checkpoints (${summaries.length})`,
      time(() =>
        summaries.forEach((c) =>
          checkpointView(
            c,
            calls.find((t) => t.toolCallId === c.toolCallId),
          ),
        ),
      ),
    );
    store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

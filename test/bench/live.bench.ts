/**
 * Live debugging's cost to an agent with no debugger attached: the one check each checkpoint makes
 * (`RunStore.liveAttachmentFor`, what LiveGate.ask does first) against the append it follows, and the same README
 * ReAct run as the record bench recorded through the SDK with live debugging on and off (interleaved, medians of
 * OCDB_BENCH_REPEAT runs, default 5; OCDB_BENCH_LIVE_CHECKPOINTS checkpoints, default 2000). The store holds a few
 * attachments of other agents (detached and active), as a machine where a debugger has been used would.
 *
 * The SDK's gate re-checks at most every LIVE_RECHECK_MS (50 ms) after a check that found no debugger, so per
 * checkpoint it pays a clock read and that share of one query: printed beside the bare query.
 *
 * Target: the check ≤ 5 % of the append cost, printed as ratios.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecorder } from '../../src/recorder';
import { LIVE_RECHECK_MS } from '../../src/recorder/recorder';
import { LiveGate } from '../../src/writer';
import { openRunStore } from '../../src/store';
import { testContext } from '../helpers/context';
import { assistantMessage, toolResult } from './record.bench';
import { fmt, percentile, us } from './stats';

/** Records the record bench's run (`checkpoints` of them) through the SDK; µs per checkpoint, sorted. */
async function recordRun(file: string, runId: string, checkpoints: number, live: boolean): Promise<number[]> {
  const recorder = openRecorder({ store: file, heartbeatMs: 0, liveDebugging: live });
  const run = recorder.startRun({
    runId,
    agentId: 'bench-agent',
    runtimeContext: testContext(),
    systemPrompt: 'You are a research agent. Use the search tool, then answer.',
    messages: [{ role: 'user', content: 'Survey the literature on replay debugging for LLM agents.' }],
  });
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (args: { q: string; step: number }) =>
    toolResult(args.step),
  );
  const perCp: number[] = [];
  for (let step = 0; step < checkpoints / 4; step++) {
    const message = assistantMessage(step);
    let t = process.hrtime.bigint();
    await run.modelCall({}, () => Promise.resolve({ message, finishReason: 'tool_calls' }));
    perCp.push(us(t) / 2, us(t) / 2);
    t = process.hrtime.bigint();
    await search({ q: `query ${step}`, step }, { toolCallId: `call-${step}` });
    perCp.push(us(t) / 2, us(t) / 2);
  }
  run.end();
  recorder.close();
  return perCp.sort((a, b) => a - b);
}

const median = (xs: number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

export async function run(): Promise<void> {
  const checkpoints = Math.max(4, Number(process.env.OCDB_BENCH_LIVE_CHECKPOINTS ?? 2000));
  const repeat = Math.max(1, Number(process.env.OCDB_BENCH_REPEAT ?? 5));
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-live-'));
  try {
    const file = join(dir, 'runs.db');
    const store = openRunStore(file);
    const now = Date.now();
    for (let i = 0; i < 20; i++) {
      store.attachLive({ attachId: `old-${i}`, agentId: `other-${i}`, client: 'bench', at: now, leaseMs: 5000 });
      if (i % 4 !== 0) store.detachLive(`old-${i}`, now);
    }
    const on: number[] = [];
    const off: number[] = [];
    for (let r = 0; r < repeat; r++) {
      off.push(percentile(await recordRun(file, `off-${r}`, checkpoints, false), 50));
      on.push(percentile(await recordRun(file, `on-${r}`, checkpoints, true), 50));
    }
    // The check alone, as the gate makes it (a prepared, indexed SELECT), many times for a stable figure.
    const n = 200_000;
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) store.liveAttachmentFor('on-0', 'bench-agent', now + i);
    const checkUs = us(t) / n;
    // The gate as the SDK has it, in a tight loop: a clock read per call, a query per 50 ms.
    const gate = new LiveGate(store, { recheckMs: LIVE_RECHECK_MS });
    const point = { runId: 'on-0', agentId: 'bench-agent', checkpointId: 'x', boundary: 'before_tool_call' as const };
    const t2 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) gate.ask(point);
    const gateLoopUs = us(t2) / n;
    store.close();
    const append = median(off);
    // per checkpoint: the clock read, plus one query every LIVE_RECHECK_MS of checkpoints at the append's pace
    const amortized = gateLoopUs + (checkUs * append) / (LIVE_RECHECK_MS * 1000);
    console.log(`live debugging, no debugger attached · ${checkpoints} checkpoints · medians of ${repeat} runs`);
    console.log(`  SDK p50 per checkpoint, live debugging off   ${fmt(append, 1)} µs`);
    console.log(`  SDK p50 per checkpoint, live debugging on    ${fmt(median(on), 1)} µs`);
    console.log(`  the check's query (liveAttachmentFor)        ${fmt(checkUs, 2)} µs`);
    console.log(`  the check as the SDK makes it (re-checked every ${LIVE_RECHECK_MS} ms)  ${fmt(amortized, 3)} µs`);
    console.log(`  ratio query/append                           ${fmt(checkUs / append, 3)}`);
    console.log(`  ratio SDK check/append (target ≤ 0.05)       ${fmt(amortized / append, 4)}`);
    console.log(`  ratio on/off − 1 (noise included)            ${fmt(median(on) / append - 1, 3)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

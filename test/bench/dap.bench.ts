/**
 * Debug Adapter benchmark: a run of OCDB_BENCH_DAP_CHECKPOINTS (default 10,000) checkpoints
 * recorded through the SDK (record.bench.ts: modelCall + tool(), ~1 KB messages), debugged by a real
 * `ocdb dap` process (dist/cli.js) over stdio. Measures
 *   - launch -> first stopped,
 *   - one step (next -> stopped -> stackTrace 20 -> scopes -> variables of every scope, arrays paged at 100 like
 *     VS Code) starting at checkpoint 100 and at the end of the run (target: end within 1.5x of 100), and the same
 *     step as Emacs dap-mode asks for it (stackTrace without levels, every scope's variables unpaged),
 *   - continue / reverse continue across the whole run with one conditional function breakpoint
 *     (`search` if `contains(args.q, '99')`: the searches whose query names a step with "99" in it, 1–2 % of the
 *     calls — evaluated at every call, stopping at each match until the end),
 * beside a cold floor: a store opened afresh for each sample reading the same checkpoint's row and the first 100
 * messages. Medians (p50) of the samples.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { openRunStore } from '../../src/store';
import { OcdbDebugClient } from '../dap/support/dapClient';
import { recordRun } from './record.bench';
import { fmt, summarize, us } from './stats';

const RUN = 'bench-record';
const STEP_SAMPLES = 40;

async function launched(file: string, checkpointId?: string): Promise<{ dc: OcdbDebugClient; ms: number }> {
  const dc = new OcdbDebugClient();
  dc.defaultTimeout = 600_000;
  await dc.start();
  const t = process.hrtime.bigint();
  await dc.launchAndStop({ runId: RUN, store: file, stopOnEntry: true, ...(checkpointId ? { checkpointId } : {}) });
  return { dc, ms: us(t) / 1000 };
}

/**
 * One debugger step as the user sees it, `n` times, µs each: next -> stopped -> stackTrace 20 -> scopes -> every
 * scope's variables (paged at 100). `unpaged`: as Emacs dap-mode asks — every frame (no levels), variables without
 * start or count. shared.bench.ts and scale.bench.ts time their steps with it too.
 */
export async function steps(dc: OcdbDebugClient, n: number, unpaged = false): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await dc.stepAndStop(() => dc.nextRequest({ threadId: 1 }));
    const frames = await dc.stackTraceRequest(unpaged ? { threadId: 1 } : { threadId: 1, startFrame: 0, levels: 20 });
    const top = frames.body.stackFrames[0];
    if (!top) throw new Error('no frames');
    const scopes = await dc.scopesRequest({ frameId: top.id });
    for (const s of scopes.body.scopes) {
      const paged = s.indexedVariables !== undefined && !unpaged ? { start: 0, count: 100 } : {};
      await dc.variablesRequest({ variablesReference: s.variablesReference, ...paged });
    }
    out.push(us(t));
  }
  return out;
}

/** A store opened afresh (cold caches) reading the checkpoint's row and its first 100 messages. */
function coldFloor(file: string, ids: readonly string[]): number[] {
  return ids.map((id) => {
    const store = openRunStore(file, { create: false });
    try {
      const t = process.hrtime.bigint();
      const cp = store.getCheckpointView(id);
      for (let i = 0; i < Math.min(100, cp.messages.length); i++) void cp.messages[i];
      void cp.toolLedgerSnapshot.slice(0, 100);
      return us(t);
    } finally {
      store.close();
    }
  });
}

/** The bench's conditional breakpoint: searches whose query has "99" in it (the bench's queries are `query <step>`). */
const CONDITION = "contains(args.q, '99')";

/** Continues (or reverse-continues) from stop to stop until the end of the run: ms in all, and the stops on the way. */
async function continueAcross(
  dc: OcdbDebugClient,
  direction: 'forward' | 'backward',
): Promise<{ ms: number; stops: number }> {
  const t = process.hrtime.bigint();
  let stops = 0;
  for (;;) {
    const stopped = await dc.stepAndStop(() =>
      direction === 'forward' ? dc.continueRequest({ threadId: 1 }) : dc.reverseContinueRequest({ threadId: 1 }),
    );
    if (stopped.body.reason === 'step') break; // the end (or the start) of the run
    stops++;
  }
  return { ms: us(t) / 1000, stops };
}

export async function run(): Promise<void> {
  const size = Number(process.env.OCDB_BENCH_DAP_CHECKPOINTS ?? 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-dap-'));
  try {
    // OCDB_BENCH_DAP_STORE=<file> keeps the recorded run between bench runs
    const file = process.env.OCDB_BENCH_DAP_STORE ?? join(dir, 'runs.db');
    const t0 = process.hrtime.bigint();
    if (!existsSync(file)) await recordRun(file, size);
    const store = openRunStore(file, { create: false });
    const summaries = store.listCheckpoints(RUN);
    store.close();
    const count = summaries.length;
    const messages = summaries.at(-1)?.messageCount ?? 0;
    console.log(`run: ${count} checkpoints, ${messages} messages (ready in ${fmt(us(t0) / 1e6)} s)`);

    const early = Math.min(100, count - 1);
    const late = Math.max(0, count - 1 - STEP_SAMPLES - 1);
    const results: {
      at: number;
      launch: number;
      step: ReturnType<typeof summarize>;
      unpaged: ReturnType<typeof summarize>;
      floor: number;
    }[] = [];
    for (const at of [early, late]) {
      const { dc, ms } = await launched(file, summaries[at]?.checkpointId);
      const s = await steps(dc, STEP_SAMPLES);
      await dc.stop();
      // the same steps again, asked as dap-mode asks, from the same checkpoint
      const again = await launched(file, summaries[at]?.checkpointId);
      const u = await steps(again.dc, STEP_SAMPLES, true);
      await again.dc.stop();
      const floorIds = summaries.slice(at + 1, at + 1 + STEP_SAMPLES).map((x) => x.checkpointId);
      results.push({
        at,
        launch: ms,
        step: summarize(s),
        unpaged: summarize(u),
        floor: summarize(coldFloor(file, floorIds)).p50,
      });
    }
    console.log('| what | ' + results.map((r) => `from cp ${r.at}`).join(' | ') + ' |');
    console.log('| --- | ' + results.map(() => '---').join(' | ') + ' |');
    console.log('| launch -> first stopped (ms) | ' + results.map((r) => fmt(r.launch, 0)).join(' | ') + ' |');
    console.log(
      `| one step p50 (ms, n=${STEP_SAMPLES}) | ` + results.map((r) => fmt(r.step.p50 / 1000, 2)).join(' | ') + ' |',
    );
    console.log('| one step p95 (ms) | ' + results.map((r) => fmt(r.step.p95 / 1000, 2)).join(' | ') + ' |');
    console.log(
      '| cold floor p50 (ms: fresh store, row + 100 messages) | ' +
        results.map((r) => fmt(r.floor / 1000, 2)).join(' | ') +
        ' |',
    );
    console.log(
      '| one step p50 as dap-mode asks (ms: every frame, variables unpaged) | ' +
        results.map((r) => fmt(r.unpaged.p50 / 1000, 2)).join(' | ') +
        ' |',
    );
    const [a, b] = results;
    if (a && b) {
      console.log(`ratio step at end / step at cp ${a.at} (target ≤ 1.5): ${fmt(b.step.p50 / a.step.p50, 2)}`);
      console.log(
        `ratio step at end / step at cp ${a.at}, as dap-mode asks (target ≤ 1.5): ${fmt(b.unpaged.p50 / a.unpaged.p50, 2)}`,
      );
    }

    // continue across the run with one conditional function breakpoint that holds at a few percent of the calls
    const { dc } = await launched(file);
    const bp: DebugProtocol.FunctionBreakpoint = { name: 'search', condition: CONDITION };
    await dc.setFunctionBreakpointsRequest({ breakpoints: [bp] });
    const forward = await continueAcross(dc, 'forward');
    const backward = await continueAcross(dc, 'backward');
    await dc.stop();
    const calls = Math.floor(count / 4);
    console.log(
      `continue across the run, function breakpoint 'search' if ${CONDITION} (${calls} calls): ${fmt(forward.ms, 0)} ms, ${forward.stops} stops (${fmt((100 * forward.stops) / Math.max(1, calls), 1)} % of the calls); reverse continue ${fmt(backward.ms, 0)} ms, ${backward.stops} stops`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

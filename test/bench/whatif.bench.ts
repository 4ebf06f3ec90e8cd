/**
 * What-if across runs at scale: OCDB_BENCH_WHATIF_RUNS (default 1,000) runs of 50 checkpoints each (11 ReAct
 * steps, 8 tool calls, recorded through the SDK as the demo is) and one what-if batch over all of them through
 * the documented front door (`runWhatIf`, as `ocdb what-if` calls it): captured model, every tool answered from
 * the recording, one assertion, a batch file, concurrency OCDB_BENCH_WHATIF_CONCURRENCY (default 2). Every fork
 * walks its run to the end (the worst case: no divergence stops it). Prints the batch's wall time, per fork, the
 * preflight's share (selection, fork points, plans and the gate), and the heap's growth while it ran (what the
 * bounded memory of the batch keeps: a small result per run). Target: minutes for 1,000 on the shared 2-core
 * machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWhatIf } from '../../src/cohort/whatIfBatch';
import { playScript, type AgentScript, type ScriptStep } from '../../src/demo/scriptedAgent';
import { SUPPORT_TOOLS, supportContext } from '../../src/demo/supportScripts';
import { openRunStore } from '../../src/store';
import { fmt } from './stats';

const AGENT = 'bench-whatif';

/** 11 steps, the first 8 with one tool call each: 11 × 3 + 8 × 2 + agent_end = 50 checkpoints. */
function benchScript(i: number): AgentScript {
  const tools = ['lookup_customer', 'lookup_order', 'search_kb', 'get_shipping_events'];
  const steps: ScriptStep[] = Array.from({ length: 11 }, (_, s) => ({
    say: `Step ${s} of case ${i}: checking the next fact before deciding.`,
    ...(s < 8
      ? {
          calls: [
            {
              tool: tools[s % tools.length] as string,
              args: { caseId: `case-${i}`, step: s },
              result: { ok: true, case: i, step: s, note: 'recorded answer '.repeat(8) },
              ms: 120,
            },
          ],
        }
      : {}),
  }));
  return {
    runId: `bench-whatif-${String(i).padStart(5, '0')}`,
    agentId: AGENT,
    startedAt: Date.UTC(2026, 10, 1) + i * 60_000,
    systemPrompt: 'You are a support agent. Check every fact before you act.',
    model: { provider: 'openai', model: 'gpt-4.1-mini' },
    context: supportContext(),
    firstUserMessage: `Case ${i}: my parcel arrived damaged.`,
    tools: SUPPORT_TOOLS,
    steps,
    end: { status: 'completed' },
  };
}

export async function run(): Promise<void> {
  const runs = Number(process.env.OCDB_BENCH_WHATIF_RUNS ?? 1000);
  const concurrency = Number(process.env.OCDB_BENCH_WHATIF_CONCURRENCY ?? 2);
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-whatif-'));
  try {
    const file = join(dir, 'runs.db');
    let t = performance.now();
    const writing = openRunStore(file);
    for (let i = 0; i < runs; i++) playScript(writing, benchScript(i));
    const checkpoints = writing.getRun(benchScript(0).runId).checkpointCount;
    writing.close();
    process.stdout.write(
      `recorded ${runs} runs of ${checkpoints} checkpoints in ${fmt((performance.now() - t) / 1000)} s\n`,
    );

    const store = openRunStore(file, { create: false });
    try {
      global.gc?.();
      const heapBefore = process.memoryUsage().heapUsed;
      let heapPeak = heapBefore;
      let preflightMs = 0;
      const cpu = process.cpuUsage();
      t = performance.now();
      const report = await runWhatIf(
        store,
        {
          cohort: { agentId: AGENT },
          fork: { toolPolicyMap: { '*': 'reuse_result' } },
          assertions: [{ name: 'no_refund', expression: "!tool('issue_refund')" }],
        },
        {
          concurrency,
          batchFile: join(dir, 'batch.jsonl'),
          onProgress: (p) => {
            if (p.done === 0) preflightMs = performance.now() - t;
            if (p.done % 50 === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
          },
        },
      );
      const totalMs = performance.now() - t;
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000;
      const forks = report.results.length;
      const same = report.rates.outcomes.same;
      process.stdout.write(
        [
          `what-if over ${forks} runs (${checkpoints} checkpoints each, captured, concurrency ${concurrency}): ${fmt(totalMs / 1000)} s`,
          `  CPU: ${fmt(cpuMs / 1000)} s (${fmt(cpuMs / forks)} ms a fork); load average ${loadavg()
            .map((l) => fmt(l))
            .join(' ')} on ${cpus().length} cores (the wall time is the machine's share)`,
          `  per fork: ${fmt((totalMs - preflightMs) / forks)} ms (create, walk ${checkpoints - 1} checkpoints, compare, assert); preflight (select, fork points, plans, gate): ${fmt(preflightMs / 1000)} s`,
          `  outcomes: ${same} same as recorded, ${forks - same} other; certificate: ${report.certificate.statement}`,
          `  heap: ${fmt(heapBefore / 2 ** 20)} MiB before, peak seen ${fmt(heapPeak / 2 ** 20)} MiB (+${fmt((heapPeak - heapBefore) / 2 ** 20)} MiB)`,
          `  target: minutes for 1,000 forks on 2 cores — CPU ${fmt(cpuMs / 60_000)} min (the batch is one thread: an idle machine's wall time); wall ${fmt(totalMs / 60_000)} min at this load`,
        ].join('\n') + '\n',
      );
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

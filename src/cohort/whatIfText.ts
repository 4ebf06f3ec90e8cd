/**
 * A what-if report as text for the terminal: the runs that changed (diverged, different, failed, or with a
 * failing assertion) a line each, the cohort's rates against the recording's, the token / cost / time totals,
 * and the gate's certificate last. Pure.
 */
import type { WhatIfReport } from './whatIfBatch';
import type { WhatIfRunResult } from './whatIfSpec';

const pct = (n: number, of: number) => (of === 0 ? '0%' : `${Math.round((100 * n) / of)}%`);

/** The tool calls that differ, counted by tool and kind: "issue_refund −1, search_kb other args". */
export function toolChangesText(changes: WhatIfRunResult['toolChanges']): string {
  const counts = new Map<string, number>();
  for (const c of changes) {
    const key = `${c.toolName}\u0000${c.change}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .map(([key, n]) => {
      const [tool, change] = key.split('\u0000') as [string, string];
      if (change === 'removed') return `${tool} −${n}`;
      if (change === 'added') return `${tool} +${n}`;
      return `${tool} other ${change}${n > 1 ? ` ×${n}` : ''}`;
    })
    .join(', ');
}

/** A failed assertion: its name, and why when a grader said so or it could not be checked. */
function failedText(a: WhatIfRunResult['assertions'][number]): string {
  const why = a.error ?? a.reason;
  return why ? `${a.name} (${why.length > 100 ? `${why.slice(0, 99)}…` : why})` : a.name;
}

function runLine(r: WhatIfRunResult): string {
  const failed = r.assertions.filter((a) => !a.passed).map(failedText);
  const changes = r.toolChanges.length > 0 ? ` · tool calls: ${toolChangesText(r.toolChanges)}` : '';
  return `  ${r.sourceRunId}: ${r.detail}${changes}${failed.length > 0 ? ` · FAILED ${failed.join(', ')}` : ''}${r.forkRunId ? ` → ${r.forkRunId}` : ''}`;
}

/** Runs listed without --all (the rest are counted, and all are in --json and the JUnit report). */
const LISTED = 40;

/** Every line of the report; `all` lists the runs that came out the same too. */
export function whatIfLines(report: WhatIfReport, all = false): string[] {
  const { results, rates, certificate } = report;
  const n = results.length;
  const lines: string[] = [];
  const shown = all ? results : results.filter((r) => r.outcome !== 'same' || r.assertions.some((a) => !a.passed));
  // failures first: what a reader acts on
  const rank = (r: WhatIfRunResult) =>
    r.outcome === 'failed' ? 0 : r.assertions.some((a) => !a.passed) ? 1 : r.outcome === 'different' ? 2 : 3;
  const sorted = all ? shown : [...shown].sort((a, b) => rank(a) - rank(b));
  const listed = all ? sorted : sorted.slice(0, LISTED);
  if (listed.length > 0)
    lines.push(all ? 'Runs:' : 'Runs that changed or failed an assertion:', ...listed.map(runLine));
  if (listed.length < shown.length)
    lines.push(`  … ${shown.length - listed.length} more (--all lists every run; --json has them all)`);
  const o = rates.outcomes;
  lines.push(
    `Outcomes of ${n} runs${report.resumed > 0 ? ` (${report.resumed} resumed from the batch file)` : ''}: same ${o.same} (${pct(o.same, n)}) · diverged ${o.diverged} (${pct(o.diverged, n)}) · different ${o.different} (${pct(o.different, n)}) · failed ${o.failed} (${pct(o.failed, n)})`,
  );
  const steps = new Map<number, number>();
  for (const r of results)
    if (r.divergedAtStep !== undefined) steps.set(r.divergedAtStep, (steps.get(r.divergedAtStep) ?? 0) + 1);
  if (steps.size > 0) {
    lines.push(
      `Diverged at: ${[...steps.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([s, c]) => `step ${s} × ${c}`)
        .join(', ')}`,
    );
  }
  for (const a of rates.assertions) {
    lines.push(
      `Assertion ${a.name} (${a.expression ?? `asked the model: ${a.question ?? ''}`}): ${a.passed}/${n} forks pass (${pct(a.passed, n)}); the recordings: ${a.sourcePassed}/${n} (${pct(a.sourcePassed, n)})`,
    );
  }
  const tokens = results.reduce(
    (t, r) => ({ source: t.source + r.tokens.source, fork: t.fork + r.tokens.fork, spent: t.spent + r.tokens.spent }),
    { source: 0, fork: 0, spent: 0 },
  );
  const cost = results.reduce((c, r) => c + (r.costUsd ?? 0), 0);
  const grading = results.reduce(
    (g, r) => ({ tokens: g.tokens + (r.grading?.tokens ?? 0), usd: g.usd + (r.grading?.costUsd ?? 0) }),
    { tokens: 0, usd: 0 },
  );
  const time = results.reduce((t, r) => ({ source: t.source + r.timeMs.source, fork: t.fork + r.timeMs.fork }), {
    source: 0,
    fork: 0,
  });
  lines.push(
    `Tokens after the fork points: recorded ${tokens.source} → forks ${tokens.fork} (${tokens.fork - tokens.source >= 0 ? '+' : ''}${tokens.fork - tokens.source}); spent ${tokens.spent}${cost > 0 ? ` ≈ $${cost.toFixed(4)}` : ''} · time: recorded ${time.source} ms → forks ${time.fork} ms`,
  );
  if (grading.tokens > 0)
    lines.push(`Grading: ${grading.tokens} tokens${grading.usd > 0 ? ` ≈ $${grading.usd.toFixed(4)}` : ''}`);
  lines.push('', 'Certificate:');
  if (certificate.rows.length > 0) {
    lines.push(
      `  ${'SIDE EFFECT'.padEnd(22)} ${'FROM RECORDING'.padStart(14)} ${'MOCKED'.padStart(7)} ${'EXECUTED'.padStart(9)} ${'REFUSED'.padStart(8)}`,
    );
    for (const r of certificate.rows) {
      lines.push(
        `  ${r.sideEffectLevel.padEnd(22)} ${String(r.recording).padStart(14)} ${String(r.mock).padStart(7)} ${String(r.executed).padStart(9)} ${String(r.refused).padStart(8)}`,
      );
    }
  }
  for (const e of certificate.executed)
    lines.push(`  executed: ${e.toolName} (${e.sideEffectLevel}) × ${e.count}${e.allowed ? '' : ' — NOT ALLOWED'}`);
  lines.push(`  ${certificate.statement}`);
  return lines;
}

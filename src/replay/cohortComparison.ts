/**
 * A baseline run beside several others: the two-run comparison (runComparison.ts) generalised to N. Each other
 * run is compared with the baseline by `compareRuns` (so a fork lines up with its source at the fork point and
 * unrelated runs align by step and tool call), and the pairs are laid side by side on the union of their step
 * indexes: for every step, the baseline's side and, per other run, whether it is the same and what differs. Also
 * the tools each run calls differently and the token / time deltas. Reads through the RunStore contract only.
 */
import { OcdbError } from '../model';
import type { RunStore } from '../store';
import {
  compareRuns,
  type FirstDivergence,
  type RunComparison,
  type RunSideSummary,
  type StepDifference,
  type StepSide,
} from './runComparison';

/** One other run in one step: absent, the same as the baseline, or what differs. */
export interface CohortCell {
  present: boolean;
  same: boolean;
  inherited: boolean;
  differences: StepDifference[];
  side?: StepSide;
}

export interface CohortStep {
  stepIndex: number;
  baseline?: StepSide;
  /** One cell per other run, in the order the runs were given. */
  cells: CohortCell[];
  /** True when every other run is the same as the baseline here. */
  same: boolean;
}

export interface CohortMember {
  summary: RunSideSummary;
  relation: RunComparison['relation'];
  firstDivergence?: FirstDivergence;
  delta: RunComparison['delta'];
  /** Steps where this run differs from the baseline. */
  differingSteps: number;
}

export interface CohortToolRow {
  toolName: string;
  baselineCalls: number;
  /** Per other run: its calls of the tool and how many of them took other args or results. */
  calls: { calls: number; changed: number }[];
}

export interface CohortComparison {
  baseline: RunSideSummary;
  members: CohortMember[];
  steps: CohortStep[];
  tools: CohortToolRow[];
}

/** The most runs one comparison lays side by side (each is one more column). */
export const MAX_COHORT_COMPARISON = 16;

/** Compares `baselineId` with each of `otherIds` (RunNotFound when one is unknown; InvalidInput past the limit). */
export function compareCohort(store: RunStore, baselineId: string, otherIds: readonly string[]): CohortComparison {
  if (otherIds.length === 0 || otherIds.length > MAX_COHORT_COMPARISON) {
    throw new OcdbError(
      'InvalidInput',
      `An N-way comparison takes a baseline and 1 to ${MAX_COHORT_COMPARISON} other runs; got ${otherIds.length}.`,
      { path: 'runIds' },
    );
  }
  const pairs = otherIds.map((id) => compareRuns(store, baselineId, id));
  const indexes = [...new Set(pairs.flatMap((p) => p.steps.map((s) => s.stepIndex)))].sort((a, b) => a - b);
  const byStep = pairs.map((p) => new Map(p.steps.map((s) => [s.stepIndex, s])));
  const steps: CohortStep[] = indexes.map((stepIndex) => {
    let baseline: StepSide | undefined;
    const cells = byStep.map((steps): CohortCell => {
      const s = steps.get(stepIndex);
      if (s?.left) baseline ??= s.left;
      if (!s?.right) {
        return {
          present: false,
          same: !s?.left,
          inherited: false,
          differences: s ? s.differences : [],
        };
      }
      return { present: true, same: s.same, inherited: s.inherited, differences: s.differences, side: s.right };
    });
    const step: CohortStep = { stepIndex, cells, same: cells.every((c) => c.same) };
    if (baseline) step.baseline = baseline;
    return step;
  });
  const toolNames = [...new Set(pairs.flatMap((p) => p.steps.flatMap(toolNamesOf)))].sort();
  const tools = toolNames
    .map((toolName): CohortToolRow => {
      const calls = pairs.map((p) => {
        const t = p.tools.find((x) => x.toolName === toolName);
        return { calls: t ? t.rightCalls : countCalls(p, 'right', toolName), changed: t?.changedCalls ?? 0 };
      });
      const first = pairs[0] as RunComparison;
      return { toolName, baselineCalls: countCalls(first, 'left', toolName), calls };
    })
    .filter((row) => row.calls.some((c) => c.calls !== row.baselineCalls || c.changed > 0));
  return {
    baseline: (pairs[0] as RunComparison).left,
    members: pairs.map((p) => ({
      summary: p.right,
      relation: p.relation,
      ...(p.firstDivergence ? { firstDivergence: p.firstDivergence } : {}),
      delta: p.delta,
      differingSteps: p.steps.filter((s) => !s.same).length,
    })),
    steps,
    tools,
  };
}

function toolNamesOf(s: RunComparison['steps'][number]): string[] {
  return [...(s.left?.toolCalls ?? []), ...(s.right?.toolCalls ?? [])].map((c) => c.toolName);
}

function countCalls(p: RunComparison, side: 'left' | 'right', toolName: string): number {
  return p.steps.reduce((n, s) => n + (s[side]?.toolCalls.filter((c) => c.toolName === toolName).length ?? 0), 0);
}

function signed(n: number): string {
  return `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n)}`;
}

/** The comparison as lines of text: the runs, then every step where some run differs, then the tools. */
export function cohortComparisonLines(c: CohortComparison): string[] {
  const lines = [`Baseline ${c.baseline.runId} (${c.baseline.statusText}) beside ${c.members.length} runs:`];
  c.members.forEach((m, i) => {
    const d = m.firstDivergence;
    lines.push(
      `  [${i + 1}] ${m.summary.runId} (${m.summary.statusText}, ${m.relation}): ${
        d ? `first differs at step ${d.stepIndex} (${d.kind}: ${d.detail})` : 'the same step by step'
      } · ${m.differingSteps} steps differ · tokens ${signed(m.delta.tokens)} · tool calls ${signed(m.delta.toolCalls)}`,
    );
  });
  const differing = c.steps.filter((s) => !s.same);
  lines.push(differing.length === 0 ? 'Every step is the same in every run.' : 'Steps that differ:');
  for (const s of differing) {
    const cells = s.cells
      .map((cell, i) =>
        cell.same ? undefined : `[${i + 1}] ${cell.differences.map((d) => `${d.kind} (${d.detail})`).join('; ')}`,
      )
      .filter((x): x is string => x !== undefined);
    lines.push(`  step ${s.stepIndex}: ${cells.join(' · ')}`);
  }
  if (c.tools.length > 0) {
    lines.push('Tools called differently:');
    for (const t of c.tools) {
      lines.push(
        `  ${t.toolName}: baseline ${t.baselineCalls} · ${t.calls
          .map((x, i) => `[${i + 1}] ${x.calls}${x.changed > 0 ? ` (${x.changed} other args/results)` : ''}`)
          .join(' · ')}`,
      );
    }
  }
  return lines;
}

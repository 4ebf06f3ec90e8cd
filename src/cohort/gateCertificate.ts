/**
 * The certificate a what-if report ends with: every tool call the batch's forks made, by side-effect level and
 * by how the gate answered it (from the recording, a mock, executed, refused), and the gate's verdict — that no
 * `write` or `external_irreversible` tool ran unless the user named it in the policies and acknowledged it
 * (`*` never counts: the single fork's rule, model/policy.ts). Built from what each fork's ledger recorded, so it
 * states what happened, not what was planned. Pure.
 */
import { HAZARDOUS_LEVELS, POLICY_WILDCARD, SIDE_EFFECT_LEVELS, type SideEffectLevel } from '../model';
import type { GateEntry, WhatIfRunResult, WhatIfSpec } from './whatIfSpec';

export type AnsweredBy = GateEntry['answeredBy'];
const ANSWERS: readonly AnsweredBy[] = ['recording', 'mock', 'executed', 'refused'];

export interface CertificateRow {
  sideEffectLevel: SideEffectLevel;
  recording: number;
  mock: number;
  executed: number;
  refused: number;
}

export interface ExecutedTool {
  toolName: string;
  sideEffectLevel: SideEffectLevel;
  count: number;
  /** Named in the policies and acknowledged by name: the user allowed it to run. */
  allowed: boolean;
}

export interface GateCertificate {
  forks: number;
  calls: number;
  rows: CertificateRow[];
  executed: ExecutedTool[];
  /** True when nothing with a side effect ran that the user did not name and acknowledge. */
  clean: boolean;
  /** One sentence: the gate's record. */
  statement: string;
}

/** A hazardous tool may run only when its own name (never `*`) has an executing policy and is acknowledged. */
function allowedToRun(spec: WhatIfSpec, toolName: string): boolean {
  const named = toolName !== POLICY_WILDCARD && Object.hasOwn(spec.fork.toolPolicyMap ?? {}, toolName);
  return named && spec.acknowledgedTools.includes(toolName);
}

export function gateCertificate(spec: WhatIfSpec, results: readonly WhatIfRunResult[]): GateCertificate {
  const rows = new Map<SideEffectLevel, CertificateRow>(
    SIDE_EFFECT_LEVELS.map((l) => [l, { sideEffectLevel: l, recording: 0, mock: 0, executed: 0, refused: 0 }]),
  );
  const executed = new Map<string, ExecutedTool>();
  let calls = 0;
  let forks = 0;
  for (const r of results) {
    if (r.forkRunId) forks++;
    for (const g of r.gate) {
      const row = rows.get(g.sideEffectLevel) as CertificateRow;
      row[g.answeredBy] += g.count;
      if (g.answeredBy !== 'refused') calls += g.count;
      if (g.answeredBy === 'executed') {
        const key = `${g.toolName}\u0000${g.sideEffectLevel}`;
        const e = executed.get(key) ?? {
          toolName: g.toolName,
          sideEffectLevel: g.sideEffectLevel,
          count: 0,
          allowed: !HAZARDOUS_LEVELS.has(g.sideEffectLevel) || allowedToRun(spec, g.toolName),
        };
        e.count += g.count;
        executed.set(key, e);
      }
    }
  }
  const list = [...executed.values()].sort((a, b) => a.toolName.localeCompare(b.toolName));
  const hazardousRan = list.filter((e) => HAZARDOUS_LEVELS.has(e.sideEffectLevel));
  const clean = hazardousRan.every((e) => e.allowed);
  const answered = ANSWERS.filter((a) => a !== 'executed' && a !== 'refused')
    .map((a) => [...rows.values()].reduce((n, row) => n + row[a], 0))
    .reduce((a, b) => a + b, 0);
  const ran = list.reduce((n, e) => n + e.count, 0);
  const statement = !clean
    ? `GATE VIOLATION: ${hazardousRan
        .filter((e) => !e.allowed)
        .map((e) => `${e.toolName} (${e.sideEffectLevel})`)
        .join(', ')} ran without being named and acknowledged.`
    : hazardousRan.length > 0
      ? `${calls} tool calls in ${forks} forks: ${answered} answered without running; ${ran} executed, of which the write / external_irreversible ones (${hazardousRan.map((e) => e.toolName).join(', ')}) were named and acknowledged; nothing else ran.`
      : `${calls} tool calls in ${forks} forks: ${answered} answered without running, ${ran} executed (none write or external_irreversible); no write or external_irreversible tool ran.`;
  return {
    forks,
    calls,
    rows: [...rows.values()].filter((r) => ANSWERS.some((a) => r[a] > 0)),
    executed: list,
    clean,
    statement,
  };
}

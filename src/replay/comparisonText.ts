/**
 * A run comparison (runComparison.ts) as text: the summary `ocdb diff`, the MCP server and the extension's
 * comparison show, and the two sides of a diff editor (lines equal where the runs are equal). Rendering only: it
 * reads nothing from the store.
 */
import { byteSize, canonicalJson } from '../model';
import type {
  ArtifactComparison,
  ComparedArtifact,
  FirstDivergence,
  RunComparison,
  StepDifferenceKind,
} from './runComparison';

const KIND_TEXT: Readonly<Record<StepDifferenceKind, string>> = {
  context: 'context',
  systemPrompt: 'system prompt',
  messages: 'messages',
  modelOutput: 'model output',
  toolCalls: 'tool calls',
  missing: 'missing',
};

function signed(n: number, unit = ''): string {
  return `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n)}${unit}`;
}

function short(value: unknown): string {
  const text = value === undefined ? 'undefined' : canonicalJson(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The comparison as lines of text (`ocdb diff` and the extension's comparison summary). */
export function comparisonSummary(c: RunComparison): string[] {
  const lines: string[] = [
    `Comparing ${c.left.runId} (${c.left.statusText}) with ${c.right.runId} (${c.right.statusText})`,
  ];
  if (c.forkPoint) {
    const p = c.forkPoint;
    lines.push(
      `Fork point: ${p.forkRunId} forks ${p.sourceRunId} at [${p.checkpointIndex}] ${p.boundary} (step ${p.stepIndex}, ${p.checkpointId}); the checkpoints before it are inherited.`,
    );
  } else {
    lines.push(`Not a fork of each other (${c.relation}): aligned by step and tool call.`);
  }
  if (c.contextChanges.length > 0) {
    lines.push(`Context changes${c.forkPoint ? ' at the fork point' : ''}:`);
    for (const ch of c.contextChanges) lines.push(`  ${ch.path}: ${short(ch.left)} → ${short(ch.right)}`);
  }
  const d = c.firstDivergence;
  if (d) {
    const at = (side: FirstDivergence['left'], runId: string) =>
      side ? `${runId} [${side.index}] ${side.checkpointId}` : `${runId} (no such step)`;
    lines.push(
      `First divergence: step ${d.stepIndex} · ${KIND_TEXT[d.kind]} (${d.detail}) — ${at(d.left, c.left.runId)} vs ${at(d.right, c.right.runId)}`,
    );
  } else {
    lines.push('No difference: the runs agree step by step.');
  }
  lines.push('Steps:');
  const inherited = c.steps.filter((s) => s.inherited).map((s) => s.stepIndex);
  if (inherited.length > 0) lines.push(`  steps ${inherited[0]}-${inherited.at(-1)}: inherited (the same)`);
  for (const s of c.steps) {
    if (s.inherited) continue;
    const tokens = `${s.left?.tokens ?? 0} → ${s.right?.tokens ?? 0} tok`;
    const what = s.same ? 'same' : s.differences.map((x) => `${KIND_TEXT[x.kind]} (${x.detail})`).join('; ');
    const edits = [...(s.left?.liveEdits ?? []), ...(s.right?.liveEdits ?? [])];
    lines.push(`  step ${s.stepIndex}: ${what} · ${tokens}${edits.length > 0 ? ` · ✎ ${edits.join('; ')}` : ''}`);
  }
  if (c.tools.length > 0) {
    lines.push('Tools called differently:');
    for (const t of c.tools) {
      lines.push(
        `  ${t.toolName}: ${t.leftCalls} → ${t.rightCalls} call${t.rightCalls === 1 ? '' : 's'}${t.changedCalls > 0 ? `, ${t.changedCalls} with other args or results` : ''}`,
      );
    }
  }
  lines.push(...artifactLines(c.artifacts));
  lines.push(
    `Tokens: ${c.left.tokens} → ${c.right.tokens} (${signed(c.delta.tokens)}) · time: ${c.left.durationMs} ms → ${c.right.durationMs} ms (${signed(c.delta.durationMs, ' ms')}) · tool calls: ${c.left.toolCalls} → ${c.right.toolCalls} (${signed(c.delta.toolCalls)})`,
  );
  return lines;
}

const sizeText = (a: ComparedArtifact | undefined): string =>
  a === undefined ? '-' : a.size === undefined ? 'content not in store' : byteSize(a.size);

/** The artifacts that differ, a line each, and how many are the same. */
function artifactLines(artifacts: readonly ArtifactComparison[]): string[] {
  if (artifacts.length === 0) return [];
  const differ = artifacts.filter((a) => a.change !== 'same');
  const same = artifacts.length - differ.length;
  if (differ.length === 0) return [`Artifacts: the same (${artifacts.length})`];
  const lines = [`Artifacts that differ${same > 0 ? ` (${same} the same)` : ''}:`];
  for (const a of differ) {
    switch (a.change) {
      case 'changed':
        lines.push(
          `  ${a.name}: changed (v${a.left?.version} ${sizeText(a.left)} → v${a.right?.version} ${sizeText(a.right)})`,
        );
        break;
      case 'added':
        lines.push(`  ${a.name}: added (only in the right run, ${sizeText(a.right)})`);
        break;
      case 'removed':
        lines.push(`  ${a.name}: removed (only in the left run, ${sizeText(a.left)})`);
        break;
      case 'same':
        break;
      default: {
        const unreachable: never = a.change;
        throw new Error(`unknown artifact change ${String(unreachable)}`);
      }
    }
  }
  return lines;
}

function sideText(c: RunComparison, side: 'left' | 'right'): string {
  const me = c[side];
  const out: string[] = [`# ${me.runId} · agent ${me.agentId} · ${me.statusText}`];
  if (me.inheritedCheckpoints > 0) {
    out.push(`# the first ${me.inheritedCheckpoints} checkpoints are inherited from ${me.parentRunId ?? 'its parent'}`);
  } else out.push('#');
  let prompt: string | undefined;
  for (const s of c.steps) {
    const step = s[side];
    // marked on both sides, so the shared prefix reads the same in a diff
    out.push('', `── step ${s.stepIndex}${s.inherited ? ' · inherited by the fork' : ''} ──`);
    if (c.forkPoint && s.stepIndex === c.forkPoint.stepIndex) out.push('── fork point ──');
    if (!step) {
      out.push('(no such step in this run)');
      continue;
    }
    for (const e of step.liveEdits ?? []) out.push(`✎ ${e}`);
    for (const ch of step.contextChanges) out.push(`context ${ch.path} = ${short(ch.value)}`);
    if (step.systemPrompt !== undefined && step.systemPrompt !== prompt) {
      prompt = step.systemPrompt;
      out.push('system prompt:', ...step.systemPrompt.split('\n').map((l) => `  ${l}`));
    }
    for (const m of step.newMessages) out.push(`message ${m.replace(/\s+/g, ' ')}`);
    if (step.modelOutput !== undefined) out.push(`model: ${step.modelOutput.replace(/\s+/g, ' ')}`);
    for (const t of step.toolCalls) {
      const outcome =
        t.outcome === 'success'
          ? `→ ${short(t.result)}`
          : t.outcome === 'running'
            ? '(running)'
            : `✗ ${short(t.error)}`;
      out.push(`tool ${t.toolName}(${short(t.args)}) ${outcome}`);
    }
  }
  if (c.artifacts.length > 0) {
    // one line per name on both sides: a changed artifact is one changed line (its text diff opens on its own)
    out.push('', '── artifacts ──');
    for (const a of c.artifacts) {
      const mine = a[side];
      out.push(
        mine
          ? `artifact ${a.name} · ${mine.type} · ${sizeText(mine)} · ${mine.contentHash.slice(0, 12)}`
          : `artifact ${a.name} · (not in this run)`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

/**
 * The two sides of the comparison as text for a diff editor: step by step, the system prompt when it changes,
 * new messages, the model's output and the tool calls — no checkpoint numbers, tokens or times, so lines are
 * equal where the runs are (a fork's inherited steps are its parent's).
 */
export function comparisonSides(c: RunComparison): { left: string; right: string } {
  return { left: sideText(c, 'left'), right: sideText(c, 'right') };
}

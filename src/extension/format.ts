/**
 * Small text formatters shared by the tree, the status bar and hovers:
 * durations, token counts, side-effect and policy wording. Pure: no vscode.
 */
import type { CheckpointBoundary, ReplayPolicy, SideEffectLevel } from '../model';
import { mdText } from './markdownText';

/** `840 ms`, `12.3 s`, `4m 05s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** `950`, `12.4k`, `3.1M` tokens. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** ISO-like local time `2026-11-30 17:24:03` (stable across locales). */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** What a side-effect level means to a user deciding whether to re-run the tool. */
export const SIDE_EFFECT_TEXT: Readonly<Record<SideEffectLevel, string>> = {
  none: 'no side effects',
  read_only: 'reads data, changes nothing',
  expensive_read: 'reads data at a cost (time, money or rate limits)',
  write: 'changes data that the agent owns (can be undone)',
  external_irreversible: 'reaches outside and cannot be undone (payments, e-mails, deployments)',
};

/** Codicon and theme colour of the side-effect badge. */
export const SIDE_EFFECT_BADGE: Readonly<Record<SideEffectLevel, { icon: string; color?: string }>> = {
  none: { icon: 'circle-outline' },
  read_only: { icon: 'eye' },
  expensive_read: { icon: 'dashboard', color: 'charts.yellow' },
  write: { icon: 'edit', color: 'charts.orange' },
  external_irreversible: { icon: 'flame', color: 'charts.red' },
};

export const POLICY_TEXT: Readonly<Record<ReplayPolicy, string>> = {
  reuse_result: 'reuse the recorded result',
  re_execute: 'run the tool again',
  mock_result: 'answer with a mock result',
  manual_confirm: 'ask before running the tool again',
  forbid_replay: 'stop the fork if the tool is called',
};

export const BOUNDARY_ICON: Readonly<Record<CheckpointBoundary, string>> = {
  before_prompt_build: 'edit',
  before_model_call: 'arrow-right',
  after_model_call: 'comment-discussion',
  before_tool_call: 'tools',
  after_tool_call: 'check',
  agent_end: 'debug-stop',
};

/** Shortens one line of text to `max` characters with an ellipsis. */
export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

/** JSON of any value (never throws), for display. */
export function toJson(value: unknown, indent = 2): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The status-bar text of a replay position in the one numbering of the transcript, the runs tree, the Call Stack,
 * the fork editor and the ids (`<run>#<index>`): `[13] step 2 · before_model_call`, both 0-based.
 */
export function positionText(checkpoint: { index: number; stepIndex: number; boundary: string }): string {
  const step = checkpoint.stepIndex < 0 ? 'end' : `step ${checkpoint.stepIndex}`;
  return `[${checkpoint.index}] ${step} · ${checkpoint.boundary}`;
}

/** The status-bar tooltip (markdown) of a replay position; run data escaped. */
export function positionTooltip(
  run: { runId: string; checkpointCount: number },
  checkpoint: { index: number; toolName?: string },
  live = false,
): string {
  const tool = checkpoint.toolName ? ` · ${mdText(checkpoint.toolName)}` : '';
  const verb = live ? 'Attached to' : 'Replaying';
  return `${verb} **${mdText(run.runId)}** · checkpoint [${checkpoint.index}] of ${plural(run.checkpointCount, 'checkpoint')}${tool}\n\nClick to open its transcript.`;
}

/** `1 checkpoint`, `2 checkpoints`, `1 error` — grammar for counts shown to the user. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

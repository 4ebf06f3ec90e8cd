/**
 * The markdown of a tool-call hover in a transcript: side effect, policy,
 * duration, then args and result (or error) as shortened JSON code blocks,
 * each with a command link that opens the whole value. Pure: no vscode, so
 * unit tests check the text; the provider wraps it in a trusted MarkdownString.
 */
import type { ToolCallRecord } from '../model';
import { POLICY_TEXT, SIDE_EFFECT_BADGE, SIDE_EFFECT_TEXT, formatDuration, toJson } from './format';
import { COMMANDS } from './ids';
import { mdCode, mdText } from './markdownText';

export const HOVER_MAX_CHARS = 600;
export const HOVER_MAX_LINES = 14;

export type ValuePart = 'args' | 'result' | 'error';

/** Arguments of the showValue command. */
export interface ValueRef {
  runId: string;
  toolCallId: string;
  part: ValuePart;
}

/** Pretty JSON cut to `maxLines` lines / `maxChars` characters; `cut` tells whether anything was left out. */
export function shortJson(
  value: unknown,
  maxChars = HOVER_MAX_CHARS,
  maxLines = HOVER_MAX_LINES,
): { text: string; cut: boolean } {
  const full = toJson(value, 2);
  let lines = full.split('\n');
  let cut = false;
  if (lines.length > maxLines) {
    lines = lines.slice(0, maxLines);
    cut = true;
  }
  let text = lines.join('\n');
  if (text.length > maxChars) {
    text = text.slice(0, maxChars);
    cut = true;
  }
  return { text: cut ? `${text}\n…` : text, cut };
}

/** A fenced code block whose fence is longer than any backtick run inside (hostile strings cannot close it). */
export function codeBlock(text: string, language = 'json'): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

/** `command:` URI of the showValue command for one part of a tool call. */
export function valueLink(ref: ValueRef): string {
  return `command:${COMMANDS.showValue.id}?${encodeURIComponent(JSON.stringify([ref]))}`;
}

function section(title: string, value: unknown, ref: ValueRef): string {
  const { text, cut } = shortJson(value);
  const link = `[${cut ? `Open the whole ${ref.part}` : `Open ${ref.part}`}](${valueLink(ref)})`;
  return `**${title}** — ${link}\n\n${codeBlock(text)}`;
}

/** Markdown hover of `call` (recorded in `runId`). */
export function toolCallHoverMarkdown(runId: string, call: ToolCallRecord): string {
  const badge = SIDE_EFFECT_BADGE[call.sideEffectLevel];
  const duration = call.endedAt === undefined ? 'unfinished' : formatDuration(call.endedAt - call.startedAt);
  const head = [
    `**${mdText(call.toolName)}** · ${mdCode(call.toolCallId)} · ${duration}`,
    '',
    `$(${badge.icon}) ${call.sideEffectLevel} — ${SIDE_EFFECT_TEXT[call.sideEffectLevel]} · policy ${call.replayPolicy} (${POLICY_TEXT[call.replayPolicy]})`,
  ].join('\n');
  const ref = (part: ValuePart): ValueRef => ({ runId, toolCallId: call.toolCallId, part });
  const parts = [head, section('Args', call.args, ref('args'))];
  if (call.error !== undefined) parts.push(section('$(error) Error', call.error, ref('error')));
  else if (call.result !== undefined) parts.push(section('Result', call.result, ref('result')));
  else parts.push('_No result recorded yet._');
  return parts.join('\n\n---\n\n');
}

/** The recorded value a ValueRef points at. */
export function valueOf(call: ToolCallRecord, part: ValuePart): unknown {
  switch (part) {
    case 'args':
      return call.args;
    case 'result':
      return call.result;
    case 'error':
      return call.error;
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

/**
 * The markdown of a tool-call hover in a transcript: side effect, policy,
 * duration, then args and result (or error) as shortened JSON code blocks,
 * each with a command link that opens the whole value. Pure: no vscode, so
 * unit tests check the text; the provider wraps it in a trusted MarkdownString.
 */
import { heldText, toolOwnMs, type ToolCallRecord } from '../model';
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
  return shortText(toJson(value, 2), maxChars, maxLines);
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

/**
 * The text of a value that is text: a string, or a list of text blocks (`[{ type: 'text', text }]`, as coding
 * agents' tools answer). Undefined for anything else, which shows as JSON.
 */
export function plainTextOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const texts = value.map((b) =>
    typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text'
      ? (b as { text?: unknown }).text
      : undefined,
  );
  return texts.every((t) => typeof t === 'string') ? texts.join('\n') : undefined;
}

/** Text cut to `maxLines` lines / `maxChars` characters, as shortJson cuts JSON. */
function shortText(
  full: string,
  maxChars = HOVER_MAX_CHARS,
  maxLines = HOVER_MAX_LINES,
): { text: string; cut: boolean } {
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

/** Fields of an object result whose text has several lines (at most two, in the object's order). */
function multiLineFields(value: unknown): [string, string][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].includes('\n'))
    .slice(0, 2);
}

function section(title: string, value: unknown, ref: ValueRef): string {
  // a tool's output of several lines reads as those lines, not as one escaped JSON string
  const plain = plainTextOf(value);
  const asText = plain !== undefined && plain.includes('\n');
  const fields = asText ? [] : multiLineFields(value);
  const shown = fields.length
    ? {
        ...(value as Record<string, unknown>),
        ...Object.fromEntries(fields.map(([k, v]) => [k, `(${v.split('\n').length} lines, below)`])),
      }
    : value;
  const { text, cut } = asText ? shortText(plain) : shortJson(shown);
  const below = fields.map(([k, v]) => ({ key: k, ...shortText(v) }));
  const whole = cut || below.some((b) => b.cut);
  const link = `[${whole ? `Open the whole ${ref.part}` : `Open ${ref.part}`}](${valueLink(ref)})`;
  const blocks = [
    codeBlock(text, asText ? 'text' : 'json'),
    ...below.map((b) => `${mdCode(b.key)}\n\n${codeBlock(b.text, 'text')}`),
  ];
  return `**${title}** — ${link}\n\n${blocks.join('\n\n')}`;
}

/** Markdown hover of `call` (recorded in `runId`). */
export function toolCallHoverMarkdown(runId: string, call: ToolCallRecord): string {
  const badge = SIDE_EFFECT_BADGE[call.sideEffectLevel];
  const own = toolOwnMs(call);
  const held = call.heldMs ? ` · ${heldText(formatDuration(call.heldMs))}` : '';
  const duration = own === undefined ? 'unfinished' : `${formatDuration(own)}${held}`;
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

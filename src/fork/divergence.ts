/**
 * Divergence detection shared by the built-in runner and agent-program mode:
 * the first difference between the prompt a fork is about to send and the
 * recorded one, located by step, message index and field. Pure.
 */
import {
  canonicalJson,
  messageText,
  messageToolCalls as messageToolCallsOf,
  type Divergence,
  type Message,
} from '../model';

/** Where a fork's prompt first differs from the recording (model/divergence.ts). messageIndex -1: the system prompt. */
export type { Divergence } from '../model';

export interface RenderedPrompt {
  systemPrompt?: string;
  messages: readonly Message[];
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/**
 * The first difference between the rendered and the recorded prompt, or undefined when they agree. `onlyAt`
 * (ascending) says the two lists are the same messages but at those indices (a captured replay's conversation is
 * the recording's with its own results in place): only they are compared, not the whole conversation.
 */
export function findDivergence(
  rendered: RenderedPrompt,
  recorded: RenderedPrompt,
  where: { stepIndex: number; sourceCheckpointIndex: number; sourceCheckpointId: string },
  onlyAt?: readonly number[],
): Divergence | undefined {
  const at = (messageIndex: number, field: Divergence['field'], rec: string, ren: string): Divergence => {
    const role = recorded.messages[messageIndex]?.role;
    return {
      ...where,
      messageIndex,
      ...(role !== undefined && field !== 'messageCount' ? { messageRole: role } : {}),
      field,
      recorded: clip(rec),
      rendered: clip(ren),
    };
  };
  if ((rendered.systemPrompt ?? '') !== (recorded.systemPrompt ?? '')) {
    return at(-1, 'systemPrompt', recorded.systemPrompt ?? '', rendered.systemPrompt ?? '');
  }
  const n = Math.min(rendered.messages.length, recorded.messages.length);
  const differenceAt = (i: number): Divergence | undefined => {
    const a = rendered.messages[i] as Message;
    const b = recorded.messages[i] as Message;
    if (a === b) return undefined; // the same recorded object: equal by construction (keeps long replays linear)
    if (a.role !== b.role) return at(i, 'role', b.role, a.role);
    if ((a.toolCallId ?? '') !== (b.toolCallId ?? ''))
      return at(i, 'toolCallId', b.toolCallId ?? '', a.toolCallId ?? '');
    if ((a.toolName ?? '') !== (b.toolName ?? '')) return at(i, 'toolName', b.toolName ?? '', a.toolName ?? '');
    if (canonicalJson(a.content) !== canonicalJson(b.content)) {
      const text = (m: Message) => (typeof m.content === 'string' ? m.content : canonicalJson(m.content));
      return at(i, 'content', text(b) || messageText(b), text(a) || messageText(a));
    }
    return undefined;
  };
  if (onlyAt) {
    for (const i of onlyAt) {
      if (i >= n) break;
      const found = differenceAt(i);
      if (found) return found;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const found = differenceAt(i);
      if (found) return found;
    }
  }
  if (rendered.messages.length !== recorded.messages.length) {
    return at(n, 'messageCount', String(recorded.messages.length), String(rendered.messages.length));
  }
  return undefined;
}

/** A one-line window of `text` around position `at` (newlines shown as ⏎), so the difference is what you read. */
function excerptAround(text: string, at: number): string {
  const start = Math.max(0, at - 24);
  const end = Math.min(text.length, at + 56);
  const slice = text.slice(start, end).replace(/\r?\n/g, ' ⏎ ');
  return `"${start > 0 ? '…' : ''}${slice}${end < text.length ? '…' : ''}"`;
}

/** One line for CLI output, notifications and logs: where, and the two texts around their first difference. */
export function describeDivergence(d: Divergence): string {
  const where =
    d.messageIndex < 0
      ? 'the system prompt'
      : `message ${d.messageIndex}${d.messageRole ? ` (${d.messageRole})` : ''} ${d.field}`;
  let k = 0;
  while (k < d.recorded.length && k < d.rendered.length && d.recorded[k] === d.rendered[k]) k++;
  return `step ${d.stepIndex}, [${d.sourceCheckpointIndex}] before_model_call: ${where} differs — recorded ${excerptAround(d.recorded, k)}, now ${excerptAround(d.rendered, k)}`;
}

/**
 * Where a real model's answer first differs from the recorded answer of the same turn: the tool calls it asks
 * for (names and args), then its text. Undefined when they agree.
 */
export function findResponseDivergence(
  real: Message,
  recorded: Message,
  where: { stepIndex: number; sourceCheckpointIndex: number; sourceCheckpointId: string; messageIndex: number },
): Divergence | undefined {
  const calls = (m: Message) =>
    canonicalJson(messageToolCallsOf(m).map((c) => ({ toolName: c.toolName, args: c.args })));
  const base = {
    stepIndex: where.stepIndex,
    sourceCheckpointIndex: where.sourceCheckpointIndex,
    sourceCheckpointId: where.sourceCheckpointId,
    messageIndex: where.messageIndex,
  };
  if (calls(real) !== calls(recorded)) {
    return { ...base, field: 'toolCalls', recorded: clip(calls(recorded)), rendered: clip(calls(real)) };
  }
  if (messageText(real).trim() !== messageText(recorded).trim()) {
    return { ...base, field: 'response', recorded: clip(messageText(recorded)), rendered: clip(messageText(real)) };
  }
  return undefined;
}

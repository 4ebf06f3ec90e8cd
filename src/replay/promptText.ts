/**
 * The whole prompt of one checkpoint as plain text — the system prompt, then
 * every message with its role, text and tool calls (args as canonical JSON) —
 * so two prompts laid side by side in a diff editor differ only where the
 * prompts do (the recorded prompt of a diverged fork's source vs the prompt
 * the fork rendered). Pure: no I/O.
 */
import { canonicalJson, messageText, messageToolCalls, type Checkpoint, type Message } from '../model';

function messageBlock(m: Message, i: number): string {
  const head = `── [${i}] ${m.role}${m.toolName ? ` · ${m.toolName}` : ''}${m.toolCallId ? ` · ${m.toolCallId}` : ''} ──`;
  const text = typeof m.content === 'string' ? m.content : messageText(m) || canonicalJson(m.content ?? null);
  const calls = m.role === 'assistant' ? messageToolCalls(m) : [];
  return [head, text, ...calls.map((c) => `→ ${c.toolName}(${canonicalJson(c.args ?? null)})`)].join('\n');
}

/** The prompt of `checkpoint` (what a model call at it was, or would be, sent). */
export function promptText(checkpoint: Pick<Checkpoint, 'systemPrompt' | 'messages' | 'stepIndex' | 'model'>): string {
  const model = checkpoint.model ? `${checkpoint.model.provider}/${checkpoint.model.model}` : 'model unknown';
  return [
    `# step ${checkpoint.stepIndex} · ${model} · ${checkpoint.messages.length} message${checkpoint.messages.length === 1 ? '' : 's'}`,
    '',
    '── system prompt ──',
    checkpoint.systemPrompt ?? '(none)',
    '',
    ...checkpoint.messages.map((m, i) => `${messageBlock(m, i)}\n`),
  ].join('\n');
}

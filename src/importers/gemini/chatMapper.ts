/**
 * One Gemini CLI chat message onto a run's plan (importGeminiChat.ts reads the chat; gemini/recordingTail.ts takes a
 * grown recording up again after the messages its last import mapped): a `user` message is the user's prompt; a
 * `gemini` message one model call (its text, its `thoughts` as reasoning parts, `tokens` as usage, `model`) whose
 * `toolCalls` are its tool calls, each closed at once with its `result` (`functionResponse.response`) and `status`
 * (error / cancelled; a call still scheduled or executing is left open); `info`, `warning` and `error` messages
 * are notes for the run's metadata. Pure.
 */
import { z } from 'zod';
import type { RuntimeContextSnapshot, SideEffectLevel } from '../../model';
import type { RunPlanBuilder } from '../runPlan';

const ToolCallSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown().optional(),
  result: z.unknown().optional(),
  status: z.string().nullish(),
  timestamp: z.string().nullish(),
  resultDisplay: z.unknown().optional(),
});
export const MessageSchema = z.looseObject({
  id: z.string().nullish(),
  timestamp: z.string().nullish(),
  type: z.string(),
  content: z.unknown().optional(),
  thoughts: z.array(z.looseObject({ subject: z.string().nullish(), description: z.string().nullish() })).nullish(),
  tokens: z
    .looseObject({
      input: z.number().nullish(),
      output: z.number().nullish(),
      cached: z.number().nullish(),
      thoughts: z.number().nullish(),
      tool: z.number().nullish(),
      total: z.number().nullish(),
    })
    .nullish(),
  model: z.string().nullish(),
  toolCalls: z.array(ToolCallSchema).nullish(),
});
export type ChatMessage = z.infer<typeof MessageSchema>;

/** Tool call states of a call the CLI had not finished when the file was written. */
const UNFINISHED = new Set(['validating', 'scheduled', 'executing', 'awaiting_approval']);

export const time = (s: string | null | undefined) => {
  const t = Date.parse(s ?? '');
  return Number.isNaN(t) ? undefined : t;
};

/** The text of a Gemini message's content (a string, or parts `{ text }`). */
function textOf(content: unknown): unknown {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((p) => p && typeof (p as { text?: unknown }).text === 'string'))
    return content.map((p) => (p as { text: string }).text).join('\n');
  return content ?? '';
}

/** What a tool call returned: the `response` of its functionResponse parts (`output` unwrapped). */
function resultOf(result: unknown): unknown {
  const parts = Array.isArray(result) ? result : result === undefined ? [] : [result];
  const responses = parts.map((p) => {
    const fr = (p as { functionResponse?: { response?: unknown } } | undefined)?.functionResponse;
    const r = fr?.response ?? p;
    return r && typeof r === 'object' && 'output' in r && Object.keys(r).length === 1
      ? (r as { output: unknown }).output
      : r;
  });
  return responses.length === 1 ? responses[0] : responses;
}

export function geminiContext(
  sessionId: string,
  projectHash: string | undefined,
  model: string,
): RuntimeContextSnapshot {
  return {
    user: { userId: 'unknown', roleId: 'unknown', permissions: [] },
    conversation: { sessionId },
    project: { projectId: projectHash ? projectHash.slice(0, 12) : 'unknown' },
    task: { taskId: sessionId, workflowId: 'gemini-cli', stepStates: {} },
    tools: { availableTools: [] },
    model: { provider: 'google', model, promptVersion: 'gemini-cli' },
  };
}

/** Maps message `m`; a note goes to `notes`. */
export function mapChatMessage(
  b: RunPlanBuilder,
  m: ChatMessage,
  options: { sideEffectOf: (toolName: string) => SideEffectLevel },
  notes: { type: string; content: unknown }[],
): void {
  const at = time(m.timestamp);
  if (m.type === 'user') {
    b.addMessage({ role: 'user', content: textOf(m.content) });
    if (at !== undefined) b.noteTime(at);
    return;
  }
  if (m.type !== 'gemini') {
    notes.push({ type: m.type, content: m.content });
    return;
  }
  if (m.model) b.setModel({ provider: 'google', model: m.model });
  b.checkpoint('before_model_call', { at: b.lastTimestamp });
  const parts: unknown[] = [];
  for (const t of m.thoughts ?? [])
    parts.push({ type: 'reasoning', text: [t.subject, t.description].filter((x) => x).join(': ') });
  const text = textOf(m.content);
  if (text !== '') parts.push({ type: 'text', text });
  const calls = m.toolCalls ?? [];
  for (const c of calls) parts.push({ type: 'tool_call', toolCallId: c.id, toolName: c.name, args: c.args ?? {} });
  b.addMessage({
    role: 'assistant',
    content: parts.length === 1 && typeof text === 'string' && text !== '' ? text : parts,
  });
  const tk = m.tokens;
  b.checkpoint('after_model_call', {
    at,
    finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
    ...(tk
      ? {
          usage: {
            inputTokens: tk.input ?? 0,
            outputTokens: tk.output ?? 0,
            ...(tk.cached ? { cacheReadInputTokens: tk.cached } : {}),
            ...(tk.thoughts ? { reasoningOutputTokens: tk.thoughts } : {}),
            ...(tk.tool ? { toolInputTokens: tk.tool } : {}),
          },
        }
      : {}),
  });
  for (const c of calls) {
    const callAt = time(c.timestamp) ?? at ?? b.lastTimestamp;
    b.beginTool({
      toolCallId: c.id,
      toolName: c.name,
      args: c.args ?? {},
      sideEffectLevel: options.sideEffectOf(c.name),
      startedAt: callAt,
    });
    const value = resultOf(c.result);
    if (c.status === 'error')
      b.finishTool(c.id, {
        error: { message: String(c.resultDisplay ?? 'tool error'), content: value },
        endedAt: callAt,
      });
    else if (c.status === 'cancelled')
      b.finishTool(c.id, { outcome: 'cancelled', error: 'cancelled in the Gemini CLI', endedAt: callAt });
    else if (UNFINISHED.has(c.status ?? '') && (c.result === undefined || c.result === null)) return;
    else b.finishTool(c.id, { result: value, endedAt: callAt });
  }
}

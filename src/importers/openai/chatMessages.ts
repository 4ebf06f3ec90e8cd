/**
 * Chat messages of OpenAI Chat Completions (tool_calls with JSON-string
 * arguments, role "tool" with tool_call_id) and of the Vercel AI SDK
 * (content parts `tool-call` / `tool-result`), parsed with zod and brought
 * to one shape: text content plus the tool calls asked and answered. Pure.
 */
import { z } from 'zod';
import { parseWith } from '../../model';

const OpenAiToolCallSchema = z.looseObject({
  // OpenAI-compatible endpoints of other models send "" (or nothing): such calls are answered in order.
  id: z.string().nullish(),
  type: z.string().optional(),
  function: z.looseObject({
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  }),
});

const PartSchema = z.looseObject({ type: z.string() });
const VercelToolCallPart = z.looseObject({
  type: z.literal('tool-call'),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  input: z.unknown().optional(),
  args: z.unknown().optional(),
});
const VercelToolResultPart = z.looseObject({
  type: z.literal('tool-result'),
  toolCallId: z.string().min(1),
  toolName: z.string().optional(),
  output: z.unknown().optional(),
  result: z.unknown().optional(),
  isError: z.boolean().optional(),
});

export const ChatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.null(), z.array(PartSchema)]).optional(),
  tool_calls: z.array(OpenAiToolCallSchema).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
});

export interface ToolAsk {
  /** '' when the log gave the call no id (answered in order, see ChatRun). */
  id: string;
  name: string;
  args: unknown;
}

export interface ToolAnswer {
  /** '' when the tool message names no call. */
  id: string;
  name?: string;
  result: unknown;
  isError: boolean;
}

export interface ChatMsg {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** Text or non-tool parts, as recorded. */
  content: unknown;
  calls: ToolAsk[];
  answers: ToolAnswer[];
}

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // models do emit invalid JSON arguments: keep the string as it was
  }
}

function vercelOutput(part: z.infer<typeof VercelToolResultPart>): { result: unknown; isError: boolean } {
  const out = part.output ?? part.result;
  if (out && typeof out === 'object' && 'type' in out && 'value' in out) {
    const t = String((out as { type: unknown }).type);
    return { result: (out as { value: unknown }).value, isError: part.isError === true || t.startsWith('error') };
  }
  return { result: out, isError: part.isError === true };
}

/** Parses one message (OpenAI or Vercel AI SDK shape); `where` names it in errors. */
export function toChatMsg(value: unknown, where: string): ChatMsg {
  const m = parseWith(ChatMessageSchema, value, where);
  const role = m.role === 'developer' ? 'system' : m.role === 'function' ? 'tool' : m.role;
  const calls: ToolAsk[] = [];
  const answers: ToolAnswer[] = [];
  let content: unknown = m.content ?? '';
  if (Array.isArray(m.content)) {
    const rest: unknown[] = [];
    m.content.forEach((p, i) => {
      if (p.type === 'tool-call') {
        const c = parseWith(VercelToolCallPart, p, `${where}.content[${i}]`);
        calls.push({ id: c.toolCallId, name: c.toolName, args: c.input ?? c.args ?? {} });
      } else if (p.type === 'tool-result') {
        const r = parseWith(VercelToolResultPart, p, `${where}.content[${i}]`);
        answers.push({ id: r.toolCallId, name: r.toolName, ...vercelOutput(r) });
      } else rest.push(p);
    });
    content =
      rest.length === 1 && (rest[0] as { type?: unknown }).type === 'text'
        ? (rest[0] as { text?: unknown }).text
        : rest;
  }
  for (const c of m.tool_calls ?? [])
    calls.push({ id: c.id ?? '', name: c.function.name, args: parseArgs(c.function.arguments) });
  if (role === 'tool' && answers.length === 0)
    answers.push({ id: m.tool_call_id ?? '', ...(m.name ? { name: m.name } : {}), result: content, isError: false });
  return { role, content, calls, answers };
}

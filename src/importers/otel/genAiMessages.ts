/**
 * GenAI semantic-convention messages -> this project's Message shape:
 * `gen_ai.input.messages` / `gen_ai.output.messages` (role + parts: text,
 * tool_call, tool_call_response) and the older per-message span events
 * (gen_ai.system/user/assistant/tool.message, gen_ai.choice). Missing
 * content stays missing. Pure.
 */
import type { Message } from '../../model';
import type { Attrs, FlatSpan } from './otlpSpans';

export interface OutputTurn {
  message?: Message;
  finishReason?: string;
  calls: { id: string; name: string; args: unknown }[];
}

function json(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);

/** One semconv message (role + parts) as a Message; tool calls become `tool_call` parts. */
function fromSemconv(m: Rec): Message | undefined {
  const role = m.role === 'model' ? 'assistant' : m.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'tool') return undefined;
  const parts = Array.isArray(m.parts) ? m.parts.map(rec).filter((p): p is Rec => p !== undefined) : [];
  const responses = parts.filter((p) => p.type === 'tool_call_response');
  if (responses.length > 0) {
    const r = responses[0] as Rec;
    return { role: 'tool', toolCallId: String(r.id ?? ''), content: json(r.response ?? r.result) };
  }
  const content = parts.map((p) => {
    if (p.type === 'tool_call')
      return {
        type: 'tool_call',
        toolCallId: String(p.id ?? ''),
        toolName: String(p.name ?? ''),
        args: json(p.arguments),
      };
    if (p.type === 'text') return { type: 'text', text: p.content };
    return p;
  });
  const msg: Message = {
    role,
    content: content.length === 1 && (content[0] as Rec).type === 'text' ? (content[0] as Rec).text : content,
  };
  return msg;
}

export function inputMessages(span: FlatSpan): Message[] | undefined {
  const raw = json(span.attrs['gen_ai.input.messages']);
  if (Array.isArray(raw))
    return raw
      .map(rec)
      .filter((m): m is Rec => m !== undefined)
      .map(fromSemconv)
      .filter((m): m is Message => m !== undefined);
  const events = span.events.filter((e) => /^gen_ai\.(system|user|assistant|tool)\.message$/.test(e.name));
  if (events.length === 0) return undefined;
  return events.map((e) => fromEvent(e.name.split('.')[1] as Message['role'], e.attrs));
}

function fromEvent(role: Message['role'], a: Attrs): Message {
  const msg: Message = { role, content: json(a.content) };
  if (role === 'tool' && a.id !== undefined) msg.toolCallId = String(a.id);
  const calls = json(a.tool_calls);
  if (role === 'assistant' && Array.isArray(calls)) {
    const parts: unknown[] = msg.content === undefined ? [] : [{ type: 'text', text: msg.content }];
    for (const c of calls.map(rec)) {
      const fn = rec(c?.function);
      parts.push({
        type: 'tool_call',
        toolCallId: String(c?.id ?? ''),
        toolName: String(fn?.name ?? ''),
        args: json(fn?.arguments),
      });
    }
    msg.content = parts;
  }
  return msg;
}

export function outputTurn(span: FlatSpan): OutputTurn {
  const raw = json(span.attrs['gen_ai.output.messages']);
  let message: Message | undefined;
  let finishReason: string | undefined;
  if (Array.isArray(raw) && raw.length > 0) {
    const first = rec(raw[0]) ?? {};
    message = fromSemconv({ ...first, role: first.role ?? 'assistant' });
    if (typeof first.finish_reason === 'string') finishReason = first.finish_reason;
  } else {
    const choice = span.events.find((e) => e.name === 'gen_ai.choice');
    if (choice) {
      const m = rec(json(choice.attrs.message)) ?? {
        content: choice.attrs.content,
        tool_calls: choice.attrs.tool_calls,
      };
      message = fromEvent('assistant', m as Attrs);
      if (typeof choice.attrs.finish_reason === 'string') finishReason = choice.attrs.finish_reason;
    }
  }
  const reasons = span.attrs['gen_ai.response.finish_reasons'];
  if (!finishReason && Array.isArray(reasons) && typeof reasons[0] === 'string') finishReason = reasons[0];
  const calls: OutputTurn['calls'] = [];
  if (message && Array.isArray(message.content)) {
    for (const p of message.content.map(rec)) {
      if (p?.type === 'tool_call') calls.push({ id: String(p.toolCallId), name: String(p.toolName), args: p.args });
    }
  }
  return { message, finishReason, calls };
}

export { json as maybeJson };

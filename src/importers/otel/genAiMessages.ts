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

/** Where a reader notes content it could not use as it stands (kept as raw JSON or text, never dropped silently). */
export type Notes = string[];

const shown = (v: unknown): string => {
  const t = typeof v === 'string' ? v : JSON.stringify(v);
  return t.length > 60 ? `${t.slice(0, 60)}…` : t;
};

/** One semconv message (role + parts) as a Message; tool calls become `tool_call` parts. */
function fromSemconv(m: Rec, notes?: Notes, where = 'a message'): Message | undefined {
  const role = m.role === 'model' ? 'assistant' : m.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'tool') {
    notes?.push(`${where} has the role ${shown(m.role)}, which no run message has: left out (${shown(m)})`);
    return undefined;
  }
  if (!Array.isArray(m.parts) && m.content !== undefined) {
    // Not the parts the conventions name, but text or content all the same: kept as it is.
    notes?.push(`${where} (${String(role)}) has no parts array; its content is kept as it is`);
    return { role, content: json(m.content) };
  }
  const parts = Array.isArray(m.parts) ? m.parts.map(rec).filter((p): p is Rec => p !== undefined) : [];
  if (parts.length === 0) notes?.push(`${where} (${String(role)}) has no content this importer can read (${shown(m)})`);
  for (const p of parts)
    if (!['text', 'tool_call', 'tool_call_response'].includes(String(p.type)))
      notes?.push(`${where} (${String(role)}) has a part of type ${shown(p.type)}, kept as raw JSON`);
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

/** A messages attribute that is there but not a JSON array of messages: its text, kept as one message. */
function unreadable(attr: string, raw: unknown, role: Message['role'], notes?: Notes): Message[] | undefined {
  if (raw === undefined || raw === null || Array.isArray(raw)) return undefined;
  notes?.push(`${attr} is not a JSON array of messages (${shown(raw)}); kept as one ${role} message of its text`);
  return [{ role, content: typeof raw === 'string' ? raw : JSON.stringify(raw) }];
}

export function inputMessages(span: FlatSpan, notes?: Notes): Message[] | undefined {
  const raw = json(span.attrs['gen_ai.input.messages']);
  const kept = unreadable('gen_ai.input.messages', raw, 'user', notes);
  if (kept) return kept;
  if (Array.isArray(raw))
    return raw
      .map(rec)
      .filter((m): m is Rec => m !== undefined)
      .map((m, i) => fromSemconv(m, notes, `gen_ai.input.messages[${i}]`))
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

export function outputTurn(span: FlatSpan, notes?: Notes): OutputTurn {
  const raw = json(span.attrs['gen_ai.output.messages']);
  let message: Message | undefined = unreadable('gen_ai.output.messages', raw, 'assistant', notes)?.[0];
  let finishReason: string | undefined;
  if (Array.isArray(raw) && raw.length > 1)
    notes?.push(`gen_ai.output.messages holds ${raw.length} choices; the first is the run's answer`);
  if (Array.isArray(raw) && raw.length > 0) {
    const first = rec(raw[0]) ?? {};
    message = fromSemconv({ ...first, role: first.role ?? 'assistant' }, notes, 'gen_ai.output.messages[0]');
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

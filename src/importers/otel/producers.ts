/**
 * What each OpenTelemetry producer writes on a span, brought to one shape (a
 * model call or a tool call). Read by content, first match wins:
 * - GenAI semantic conventions: `gen_ai.operation.name` chat / execute_tool,
 *   `gen_ai.input.messages` / `gen_ai.output.messages` or span events;
 * - Vercel AI SDK: `ai.operationId` — the provider calls
 *   (`ai.generateText.doGenerate`, `ai.streamText.doStream`, ...) are the
 *   model calls (`ai.prompt.messages`, `ai.response.text` / `toolCalls`,
 *   `ai.usage.*`), `ai.toolCall` spans the tool calls; the outer
 *   `ai.generateText` spans only sum them up and are left out;
 * - OpenLLMetry (Traceloop): indexed `gen_ai.prompt.N.*` /
 *   `gen_ai.completion.N.*`, `gen_ai.usage.prompt_tokens`; tool spans are
 *   `traceloop.span.kind` tool (`traceloop.entity.input` / `output`);
 * - OpenInference (Arize, Phoenix): `openinference.span.kind` LLM with
 *   `llm.input_messages.N.message.*`, `llm.token_count.*`, the finish reason
 *   from the raw response in `output.value`; TOOL spans
 *   (`tool.name`, `input.value`, `output.value`).
 * Pure.
 */
import type { Message } from '../../model';
import { toChatMsg, type ChatMsg } from '../openai/chatMessages';
import { inputMessages, maybeJson, outputTurn, type OutputTurn } from './genAiMessages';
import type { Attrs, FlatSpan } from './otlpSpans';

export type Producer = 'gen_ai' | 'vercel-ai' | 'openllmetry' | 'openinference';

export interface ModelSpan {
  kind: 'chat';
  producer: Producer;
  span: FlatSpan;
  provider?: string;
  model?: string;
  /** The system prompt, when the span says it. */
  system?: string;
  /** The conversation sent (system messages left out), when captured. */
  input?: Message[];
  output: OutputTurn;
  usage?: { inputTokens: number; outputTokens: number };
  /** Content of the span the importer could not use as it stands (said as warnings). */
  notes?: string[];
}

export interface ToolSpan {
  kind: 'tool';
  producer: Producer;
  span: FlatSpan;
  name: string;
  toolCallId?: string;
  args?: unknown;
  hasArgs: boolean;
  result?: unknown;
}

export type GenAiSpan = ModelSpan | ToolSpan;

const CHAT_OPS = new Set(['chat', 'text_completion', 'generate_content']);
const VERCEL_MODEL_OPS = /^ai\.(generateText|streamText|generateObject|streamObject)\.do(Generate|Stream)$/;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (...vs: unknown[]): number | undefined => {
  for (const v of vs) if (typeof v === 'number' && Number.isFinite(v)) return v;
  return undefined;
};

function usageOf(input: number | undefined, output: number | undefined): ModelSpan['usage'] {
  return input === undefined && output === undefined
    ? undefined
    : { inputTokens: input ?? 0, outputTokens: output ?? 0 };
}

type Tree = { [key: string]: Tree | unknown };

/** A JSON-encoded value (any JSON, a string too); the raw value when it is not JSON. */
function jsonValue(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/** `prefix.0.role`, `prefix.0.tool_calls.1.name`, ... as `[{ role, tool_calls: [ , { name }] }]` (indexes sorted). */
export function indexed(attrs: Attrs, prefix: string): Tree[] {
  const root: Tree = {};
  for (const [key, value] of Object.entries(attrs)) {
    if (!key.startsWith(`${prefix}.`)) continue;
    const path = key.slice(prefix.length + 1).split('.');
    let node = root;
    path.forEach((seg, i) => {
      if (i === path.length - 1) node[seg] = value;
      else {
        const next = node[seg];
        node[seg] = next && typeof next === 'object' && !Array.isArray(next) ? next : {};
        node = node[seg] as Tree;
      }
    });
  }
  return list(root);
}

/** The numbered children of a tree node, in index order. */
function list(node: unknown): Tree[] {
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node as Tree)
    .filter(([k]) => /^\d+$/.test(k))
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, v]) => (v && typeof v === 'object' ? (v as Tree) : {}));
}

/** An indexed message (OpenLLMetry or OpenInference keys) as a Message. */
function indexedMessage(
  m: Tree,
  keys: { content: string; callId: string; tool: (t: Tree) => Tree },
): Message | undefined {
  const role = m.role === 'model' ? 'assistant' : m.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'tool') return undefined;
  let content: unknown = m[keys.content];
  const contents = list(m.contents).map((c) => (c.message_content ?? c) as Tree);
  if (content === undefined && contents.length > 0) {
    const texts = contents.filter((c) => c.type === 'text' || c.text !== undefined).map((c) => String(c.text ?? ''));
    content = texts.length === contents.length ? texts.join('\n') : contents;
  }
  if (typeof content === 'string') {
    const parsed = maybeJson(content);
    if (Array.isArray(parsed)) content = parsed; // content parts written as JSON
  }
  if (role === 'tool') {
    const msg: Message = { role, content: content ?? '' };
    const id = str(m[keys.callId]);
    if (id) msg.toolCallId = id;
    if (str(m.name)) msg.toolName = String(m.name);
    return msg;
  }
  const calls = list(m.tool_calls).map(keys.tool);
  if (role === 'assistant' && calls.length > 0) {
    const parts: unknown[] =
      typeof content === 'string' && content !== ''
        ? [{ type: 'text', text: content }]
        : Array.isArray(content)
          ? [...(content as unknown[])]
          : [];
    calls.forEach((c, i) =>
      parts.push({
        type: 'tool_call',
        toolCallId: str(c.id) ?? `call-${i}`,
        toolName: String(c.name ?? ''),
        args: maybeJson(c.arguments),
      }),
    );
    return { role, content: parts };
  }
  return { role, content: content ?? '' };
}

const OPENLLMETRY_KEYS = { content: 'content', callId: 'tool_call_id', tool: (t: Tree) => t };
const OPENINFERENCE_KEYS = {
  content: 'content',
  callId: 'tool_call_id',
  tool: (t: Tree): Tree => {
    const call = (t.tool_call ?? t) as Tree;
    const fn = (call.function ?? {}) as Tree;
    return { id: call.id, name: fn.name, arguments: fn.arguments };
  },
};

function split(messages: Message[]): { system?: string; input: Message[] } {
  const sys = messages.filter((m) => m.role === 'system');
  const system =
    sys.length > 0
      ? sys.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n')
      : undefined;
  return { ...(system !== undefined ? { system } : {}), input: messages.filter((m) => m.role !== 'system') };
}

function outputOf(message: Message | undefined, finishReason: string | undefined): OutputTurn {
  const calls: OutputTurn['calls'] = [];
  if (message && Array.isArray(message.content)) {
    for (const p of message.content as { type?: unknown; toolCallId?: unknown; toolName?: unknown; args?: unknown }[])
      if (p?.type === 'tool_call') calls.push({ id: String(p.toolCallId), name: String(p.toolName), args: p.args });
  }
  return { ...(message ? { message } : {}), ...(finishReason ? { finishReason } : {}), calls };
}

/** A Vercel AI SDK message (text / tool-call / tool-result parts) as Messages (one per tool result). */
function vercelMessages(chat: ChatMsg): Message[] {
  switch (chat.role) {
    case 'tool':
      return chat.answers.map((a) => ({
        role: 'tool',
        toolCallId: a.id,
        ...(a.name ? { toolName: a.name } : {}),
        content: a.isError ? { error: a.result } : a.result,
      }));
    case 'assistant': {
      if (chat.calls.length === 0) return [{ role: 'assistant', content: chat.content }];
      const parts: unknown[] =
        typeof chat.content === 'string' && chat.content !== ''
          ? [{ type: 'text', text: chat.content }]
          : Array.isArray(chat.content)
            ? [...(chat.content as unknown[])]
            : [];
      for (const c of chat.calls) parts.push({ type: 'tool_call', toolCallId: c.id, toolName: c.name, args: c.args });
      return [{ role: 'assistant', content: parts }];
    }
    default:
      return [{ role: chat.role, content: chat.content }];
  }
}

/**
 * A value the Vercel AI SDK wrote with JSON.stringify (`ai.toolCall.result`, whatever the tool returned: the
 * string `result1` arrives as `"result1"`, as its own telemetry test records); a text that is not JSON is kept.
 */
function stringified(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

function vercel(s: FlatSpan, op: string): GenAiSpan | undefined {
  const a = s.attrs;
  if (op === 'ai.toolCall') {
    const rawArgs = a['ai.toolCall.args'] ?? a['ai.toolCall.input'];
    const result = a['ai.toolCall.result'] ?? a['ai.toolCall.output'];
    return {
      kind: 'tool',
      producer: 'vercel-ai',
      span: s,
      name: str(a['ai.toolCall.name']) ?? s.name.replace(/^ai\.toolCall\s*/, ''),
      ...(str(a['ai.toolCall.id']) ? { toolCallId: String(a['ai.toolCall.id']) } : {}),
      hasArgs: rawArgs !== undefined,
      ...(rawArgs !== undefined ? { args: maybeJson(rawArgs) } : {}),
      ...(result !== undefined ? { result: stringified(result) } : {}),
    };
  }
  if (!VERCEL_MODEL_OPS.test(op)) return undefined;
  const rawMessages = maybeJson(a['ai.prompt.messages']);
  let input: Message[] | undefined;
  let system: string | undefined;
  if (Array.isArray(rawMessages)) {
    const all = rawMessages.flatMap((m, i) => vercelMessages(toChatMsg(m, `${s.spanId} ai.prompt.messages[${i}]`)));
    ({ system, input } = split(all));
  }
  const text = str(a['ai.response.text']);
  const calls = maybeJson(a['ai.response.toolCalls']);
  const parts: unknown[] = text ? [{ type: 'text', text }] : [];
  for (const c of Array.isArray(calls) ? (calls as Record<string, unknown>[]) : []) {
    parts.push({
      type: 'tool_call',
      toolCallId: String(c.toolCallId ?? ''),
      toolName: String(c.toolName ?? ''),
      args: maybeJson(c.args ?? c.input),
    });
  }
  const message: Message | undefined =
    parts.length === 0 ? undefined : { role: 'assistant', content: parts.length === 1 && text ? text : parts };
  const provider = str(a['ai.model.provider'])?.split('.')[0] ?? str(a['gen_ai.system']);
  const model = str(a['ai.response.model']) ?? str(a['ai.model.id']) ?? str(a['gen_ai.request.model']);
  return {
    kind: 'chat',
    producer: 'vercel-ai',
    span: s,
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    ...(system !== undefined ? { system } : {}),
    ...(input ? { input } : {}),
    output: outputOf(message, str(a['ai.response.finishReason'])),
    usage: usageOf(
      num(a['ai.usage.promptTokens'], a['ai.usage.inputTokens'], a['gen_ai.usage.input_tokens']),
      num(a['ai.usage.completionTokens'], a['ai.usage.outputTokens'], a['gen_ai.usage.output_tokens']),
    ),
  };
}

function openLlmetry(s: FlatSpan): GenAiSpan | undefined {
  const a = s.attrs;
  if (a['traceloop.span.kind'] === 'tool') {
    const input = jsonValue(a['traceloop.entity.input']);
    const inObj = input && typeof input === 'object' ? (input as { args?: unknown; kwargs?: unknown }) : undefined;
    // Python tools log { args: [...], kwargs: {...} }: the keyword arguments are the call's arguments.
    const args =
      inObj && 'kwargs' in inObj && inObj.kwargs && Object.keys(inObj.kwargs).length > 0 ? inObj.kwargs : input;
    // Traceloop writes entity input and output JSON-encoded, strings included.
    const out = jsonValue(a['traceloop.entity.output']);
    return {
      kind: 'tool',
      producer: 'openllmetry',
      span: s,
      name: str(a['traceloop.entity.name']) ?? s.name.replace(/\.tool$/, ''),
      hasArgs: input !== undefined,
      ...(input !== undefined ? { args } : {}),
      ...(out !== undefined ? { result: out } : {}),
    };
  }
  const prompts = indexed(a, 'gen_ai.prompt');
  const completions = indexed(a, 'gen_ai.completion');
  if (prompts.length === 0 && completions.length === 0 && a['llm.request.type'] !== 'chat') return undefined;
  const messages = prompts.map((m) => indexedMessage(m, OPENLLMETRY_KEYS)).filter((m): m is Message => m !== undefined);
  const { system, input } = split(messages);
  const first = completions[0];
  const message = first ? indexedMessage({ role: 'assistant', ...first }, OPENLLMETRY_KEYS) : undefined;
  const provider = str(a['gen_ai.system']) ?? str(a['gen_ai.provider.name']);
  const model = str(a['gen_ai.response.model']) ?? str(a['gen_ai.request.model']);
  return {
    kind: 'chat',
    producer: 'openllmetry',
    span: s,
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    ...(system !== undefined ? { system } : {}),
    ...(prompts.length > 0 ? { input } : {}),
    output: outputOf(message, str(first?.finish_reason)),
    usage: usageOf(
      num(a['gen_ai.usage.input_tokens'], a['gen_ai.usage.prompt_tokens'], a['llm.usage.prompt_tokens']),
      num(a['gen_ai.usage.output_tokens'], a['gen_ai.usage.completion_tokens'], a['llm.usage.completion_tokens']),
    ),
  };
}

function openInference(s: FlatSpan, kind: string): GenAiSpan | undefined {
  const a = s.attrs;
  if (kind === 'TOOL') {
    const input = a['tool.parameters'] !== undefined && a['input.value'] === undefined ? undefined : a['input.value'];
    // output.value is JSON only when output.mime_type says so.
    const out = a['output.mime_type'] === 'application/json' ? jsonValue(a['output.value']) : a['output.value'];
    return {
      kind: 'tool',
      producer: 'openinference',
      span: s,
      name: str(a['tool.name']) ?? s.name,
      ...(str(a['tool_call.id']) ? { toolCallId: String(a['tool_call.id']) } : {}),
      hasArgs: input !== undefined,
      ...(input !== undefined ? { args: maybeJson(input) } : {}),
      ...(out !== undefined ? { result: out } : {}),
    };
  }
  if (kind !== 'LLM') return undefined;
  const messages = indexed(a, 'llm.input_messages')
    .map((m) => indexedMessage((m.message ?? m) as Tree, OPENINFERENCE_KEYS))
    .filter((m): m is Message => m !== undefined);
  const { system, input } = split(messages);
  const out = indexed(a, 'llm.output_messages')[0];
  const message = out
    ? indexedMessage({ role: 'assistant', ...((out.message ?? out) as Tree) }, OPENINFERENCE_KEYS)
    : undefined;
  const provider = str(a['llm.provider']) ?? str(a['llm.system']);
  const model = str(a['llm.model_name']);
  // OpenInference has no finish-reason attribute: the openai instrumentation keeps the raw response in output.value.
  const response = a['output.mime_type'] === 'application/json' ? jsonValue(a['output.value']) : undefined;
  const choice = (response as { choices?: { finish_reason?: unknown }[] } | undefined)?.choices?.[0];
  return {
    kind: 'chat',
    producer: 'openinference',
    span: s,
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    ...(system !== undefined ? { system } : {}),
    ...(messages.length > 0 ? { input } : {}),
    output: outputOf(message, str(choice?.finish_reason)),
    usage: usageOf(num(a['llm.token_count.prompt']), num(a['llm.token_count.completion'])),
  };
}

function genAi(s: FlatSpan): GenAiSpan | undefined {
  const a = s.attrs;
  const op = str(a['gen_ai.operation.name']) ?? s.name.split(' ')[0] ?? s.name;
  if (CHAT_OPS.has(op)) {
    const notes: string[] = [];
    const messages = inputMessages(s, notes);
    const instructions = a['gen_ai.system_instructions'];
    const { system, input } = messages ? split(messages) : { system: undefined, input: undefined };
    const provider = str(a['gen_ai.provider.name']) ?? str(a['gen_ai.system']);
    const model = str(a['gen_ai.response.model']) ?? str(a['gen_ai.request.model']);
    return {
      kind: 'chat',
      producer: 'gen_ai',
      span: s,
      ...(provider ? { provider } : {}),
      ...(model ? { model } : {}),
      ...(instructions !== undefined
        ? { system: instructionsText(instructions) }
        : system !== undefined
          ? { system }
          : {}),
      ...(input ? { input } : {}),
      output: outputTurn(s, notes),
      usage: usageOf(num(a['gen_ai.usage.input_tokens']), num(a['gen_ai.usage.output_tokens'])),
      ...(notes.length > 0 ? { notes } : {}),
    };
  }
  if (op === 'execute_tool') {
    const rawArgs = a['gen_ai.tool.call.arguments'];
    const result = a['gen_ai.tool.call.result'];
    return {
      kind: 'tool',
      producer: 'gen_ai',
      span: s,
      name: str(a['gen_ai.tool.name']) ?? s.name.replace(/^execute_tool /, ''),
      ...(str(a['gen_ai.tool.call.id']) ? { toolCallId: String(a['gen_ai.tool.call.id']) } : {}),
      hasArgs: rawArgs !== undefined,
      ...(rawArgs !== undefined ? { args: maybeJson(rawArgs) } : {}),
      ...(result !== undefined ? { result: maybeJson(result) } : {}),
    };
  }
  return undefined;
}

/** `gen_ai.system_instructions` (parts `[{ type: 'text', content }]`, as JSON or not) as the system prompt text. */
function instructionsText(v: unknown): string {
  const parsed = maybeJson(v);
  if (Array.isArray(parsed)) {
    const texts = parsed.map((p) => (p && typeof p === 'object' ? (p as { content?: unknown }).content : p));
    if (texts.every((x) => typeof x === 'string')) return texts.join('\n');
  }
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The span as a model or tool call, whichever producer wrote it; undefined for every other span. */
export function genAiSpan(s: FlatSpan): GenAiSpan | undefined {
  const vercelOp = str(s.attrs['ai.operationId']) ?? (s.name.startsWith('ai.') ? s.name.split(' ')[0] : undefined);
  if (vercelOp) return vercel(s, vercelOp);
  const oiKind = str(s.attrs['openinference.span.kind']);
  if (oiKind) return openInference(s, oiKind.toUpperCase());
  if (
    s.attrs['traceloop.span.kind'] !== undefined ||
    Object.keys(s.attrs).some((k) => /^gen_ai\.(prompt|completion)\.\d+\./.test(k))
  )
    return openLlmetry(s) ?? genAi(s);
  return genAi(s);
}

export type { Attrs };

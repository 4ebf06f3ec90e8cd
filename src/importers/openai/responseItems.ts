/**
 * OpenAI Responses API items (the shape of `response.output`, `input` lists
 * and Codex CLI rollouts) onto a RunPlanBuilder: the assistant-side items
 * that follow each other — reasoning, output messages, function / custom
 * tool / local shell calls — are one model call with all its tool calls; a
 * user / system / developer message or a call's output ends it; outputs
 * close their call by `call_id` (`success: false` is an error). Usage is set
 * on the model call being assembled. Pure.
 */
import type { Message, SideEffectLevel, Usage } from '../../model';
import type { RunPlanBuilder } from '../runPlan';
import type { ImportWarning } from '../types';

type Item = Record<string, unknown>;

interface PendingCall {
  parts: unknown[];
  calls: { id: string; name: string; args: unknown }[];
  at?: number;
  usage?: Usage;
  finishReason?: string;
}

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** The text of `content` parts (input_text, output_text, text, summary_text), or the parts when not all text. */
export function itemText(content: unknown): unknown {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content ?? '';
  const texts = content.map((p) =>
    p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
      ? (p as { text: string }).text
      : undefined,
  );
  return texts.every((t) => t !== undefined) ? texts.join('\n') : content;
}

export interface ItemsEnv {
  file: string;
  warnings: ImportWarning[];
  sideEffectOf: (toolName: string) => SideEffectLevel;
  unknownTypes: Record<string, number>;
}

/** Feeds items in order; call `flush()` at the end (and before anything that is not an item). */
export class ResponseItems {
  private pending: PendingCall | undefined;
  private readonly answered = new Set<string>();

  constructor(
    readonly builder: RunPlanBuilder,
    private readonly env: ItemsEnv,
  ) {}

  /** The after_model_call of the last model call completed, while it has no usage. */
  private lastCall: string | undefined;

  /** Usage reported before the items of its model call: the next call takes it. */
  private early: { usage: Usage; finishReason?: string } | undefined;

  /**
   * Sets the usage (and finish reason) of the model call being assembled, or of the last one completed when it
   * has none yet (Codex reports tokens after the call's outputs), or else of the next call to start (Codex 0.5x–0.6x
   * write a call's token count just before its items).
   */
  usage(usage: Usage, finishReason?: string): boolean {
    if (this.pending) {
      this.pending.usage = usage;
      if (finishReason) this.pending.finishReason = finishReason;
      return true;
    }
    if (this.lastCall === undefined) {
      this.early = { usage, ...(finishReason ? { finishReason } : {}) };
      return true;
    }
    this.builder.setUsage(this.lastCall, usage);
    this.lastCall = undefined;
    return true;
  }

  /**
   * Where the items stand between two of them: a model call being assembled, usage waiting for the next call, and
   * the last call completed while it has no usage (a later `usage` sets it on that call's checkpoint). What a
   * reader that keeps a resume point checks (codex/rolloutTail.ts): a fresh ResponseItems has none of them.
   */
  get between(): { assembling: boolean; early: boolean; lastCall: string | undefined } {
    return { assembling: this.pending !== undefined, early: this.early !== undefined, lastCall: this.lastCall };
  }

  item(item: Item, at: number | undefined): void {
    const type = typeof item.type === 'string' ? item.type : item.role !== undefined ? 'message' : 'unknown';
    switch (type) {
      case 'message': {
        const role = item.role;
        if (role === 'assistant') {
          this.open(at).parts.push({ type: 'text', text: itemText(item.content) });
          return;
        }
        this.flush();
        const content = itemText(item.content);
        if (role === 'user') this.builder.addMessage({ role: 'user', content });
        else this.builder.addMessage({ role: 'system', content } satisfies Message);
        if (at !== undefined) this.builder.noteTime(at);
        return;
      }
      case 'reasoning': {
        const text = itemText(item.summary);
        if (text !== '' && !(Array.isArray(text) && text.length === 0))
          this.open(at).parts.push({ type: 'reasoning', text });
        else this.open(at);
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call':
      case 'web_search_call': {
        const id = String(item.call_id ?? item.id ?? `call-${this.builder.checkpointCount}`);
        const name = String(item.name ?? (type === 'local_shell_call' ? 'local_shell' : type.replace(/_call$/, '')));
        const args = type === 'function_call' ? parseArgs(item.arguments) : (item.input ?? item.action ?? {});
        this.open(at).calls.push({ id, name, args });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output': {
        this.flush();
        const id = String(item.call_id ?? '');
        const raw = item.output;
        const obj = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Item) : undefined;
        const value = obj && 'content' in obj ? obj.content : Array.isArray(raw) ? itemText(raw) : raw;
        const endedAt = at ?? this.builder.lastTimestamp;
        if (!this.builder.hasTool(id) || this.answered.has(id)) {
          this.env.warnings.push({
            file: this.env.file,
            message: `output for call ${id}, which no earlier call of this run asked for; kept as a tool message`,
          });
          this.builder.addMessage({ role: 'tool', toolCallId: id, content: value ?? '' });
          return;
        }
        this.answered.add(id);
        if (obj?.success === false)
          this.builder.finishTool(id, { error: { message: String(itemText(value)), content: value }, endedAt });
        else this.builder.finishTool(id, { result: value, endedAt });
        return;
      }
      default:
        this.env.unknownTypes[`item:${type}`] = (this.env.unknownTypes[`item:${type}`] ?? 0) + 1;
    }
  }

  private open(at: number | undefined): PendingCall {
    if (!this.pending) {
      const early = this.early;
      this.early = undefined;
      this.pending = {
        parts: [],
        calls: [],
        ...(at !== undefined ? { at } : {}),
        ...(early ? { usage: early.usage } : {}),
        ...(early?.finishReason ? { finishReason: early.finishReason } : {}),
      };
    }
    return this.pending;
  }

  /** Completes the model call being assembled: its checkpoints, its message and its tool calls. */
  flush(): void {
    const call = this.pending;
    if (!call) return;
    this.pending = undefined;
    const b = this.builder;
    b.checkpoint('before_model_call', { at: call.at ?? b.lastTimestamp });
    const parts = [...call.parts];
    for (const c of call.calls) parts.push({ type: 'tool_call', toolCallId: c.id, toolName: c.name, args: c.args });
    const only = parts[0] as { type?: unknown; text?: unknown } | undefined;
    b.addMessage({
      role: 'assistant',
      content: parts.length === 1 && only?.type === 'text' && typeof only.text === 'string' ? only.text : parts,
    });
    const after = b.checkpoint('after_model_call', {
      at: call.at ?? b.lastTimestamp,
      finishReason: call.finishReason ?? (call.calls.length > 0 ? 'tool_calls' : 'stop'),
      ...(call.usage ? { usage: call.usage } : {}),
    });
    this.lastCall = call.usage ? undefined : after;
    for (const c of call.calls) {
      b.beginTool({
        toolCallId: c.id,
        toolName: c.name,
        args: c.args,
        sideEffectLevel: this.env.sideEffectOf(c.name),
        startedAt: call.at ?? b.lastTimestamp,
      });
    }
  }
}

/** Responses API / Codex token usage as this project's Usage (cached input counted in inputTokens). */
export function responsesUsage(u: unknown): Usage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const o = u as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const details = (o.input_tokens_details ?? {}) as Record<string, unknown>;
  const outDetails = (o.output_tokens_details ?? {}) as Record<string, unknown>;
  const cached = n(o.cached_input_tokens ?? details.cached_tokens);
  const reasoning = n(o.reasoning_output_tokens ?? outDetails.reasoning_tokens);
  return {
    inputTokens: n(o.input_tokens),
    outputTokens: n(o.output_tokens),
    ...(cached > 0 ? { cacheReadInputTokens: cached } : {}),
    ...(reasoning > 0 ? { reasoningOutputTokens: reasoning } : {}),
  };
}

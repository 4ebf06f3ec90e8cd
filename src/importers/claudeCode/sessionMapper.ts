/**
 * Maps the entries of one Claude Code branch, in order, onto a RunPlanBuilder:
 * assistant lines sharing message.id form one model call (before/after
 * model call, usage counted once: the largest figure of each field, as every
 * split line repeats the usage of the response so far); each tool_use
 * becomes a ledger record and before_tool_call; each tool_result closes it
 * (error when is_error) with after_tool_call; a compaction resets the
 * conversation to its summary at a before_prompt_build checkpoint. Tool
 * results written while the response is still streaming are held until the
 * response is complete. Pure.
 */
import type { Message, RuntimeContextSnapshot, SideEffectLevel, Usage } from '../../model';
import { RunPlanBuilder } from '../runPlan';
import type { ImportWarning } from '../types';
import type { AssistantEntry, ContentBlock, Entry, Usage4, UserEntry } from './entries';
import { toolResultIds } from './branches';

interface PendingCall {
  messageId?: string;
  requestId?: string;
  entries: AssistantEntry[];
}

export interface MapperEnv {
  file: string;
  warnings: ImportWarning[];
  sideEffectOf: (toolName: string) => SideEffectLevel;
  /** Called when a tool result names the subagent that produced it. */
  onSubagent?: (agentId: string, toolCallId: string) => void;
}

function maxUsage(entries: AssistantEntry[]): Usage4 | undefined {
  let out: Usage4 | undefined;
  for (const e of entries) {
    if (!e.usage) continue;
    out = out
      ? {
          input: Math.max(out.input, e.usage.input),
          output: Math.max(out.output, e.usage.output),
          cacheCreation: Math.max(out.cacheCreation, e.usage.cacheCreation),
          cacheRead: Math.max(out.cacheRead, e.usage.cacheRead),
        }
      : { ...e.usage };
  }
  return out;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) =>
        b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string'
          ? (b as { text: string }).text
          : '',
      )
      .filter((t) => t !== '')
      .join('\n');
  }
  return '';
}

/** What a mapper holds between two lines: what `SessionMapper.state` gives and `resume` takes. */
export interface MapperState {
  pending?: { messageId?: string; requestId?: string; entries: AssistantEntry[] };
  deferred: UserEntry[];
  /** Raw tool_use id -> ledger ids still open. */
  open: [string, string[]][];
  compactions: number;
  apiError?: string;
}

export class SessionMapper {
  private pending: PendingCall | undefined;
  private deferred: UserEntry[] = [];
  /** Raw tool_use id -> ledger ids still open, oldest first (ids can repeat in redacted transcripts). */
  private open = new Map<string, string[]>();
  private used = new Set<string>();
  private lastApiError: string | undefined;
  compactions = 0;

  constructor(
    readonly builder: RunPlanBuilder,
    private readonly env: MapperEnv,
    private context: RuntimeContextSnapshot,
  ) {}

  /** A copy of this mapper's state for a fork that leaves the branch here. */
  fork(builder: RunPlanBuilder): SessionMapper {
    const m = new SessionMapper(builder, this.env, this.context);
    m.pending = this.pending ? { ...this.pending, entries: [...this.pending.entries] } : undefined;
    m.deferred = [...this.deferred];
    m.open = new Map([...this.open].map(([k, v]) => [k, [...v]]));
    m.used = new Set(this.used);
    m.compactions = this.compactions;
    return m;
  }

  /** This mapper's state between two lines (the entries it holds, by reference). */
  state(): MapperState {
    return {
      ...(this.pending
        ? {
            pending: {
              ...(this.pending.messageId !== undefined ? { messageId: this.pending.messageId } : {}),
              ...(this.pending.requestId !== undefined ? { requestId: this.pending.requestId } : {}),
              entries: [...this.pending.entries],
            },
          }
        : {}),
      deferred: [...this.deferred],
      open: [...this.open].map(([k, v]) => [k, [...v]]),
      compactions: this.compactions,
      ...(this.lastApiError !== undefined ? { apiError: this.lastApiError } : {}),
    };
  }

  /**
   * A mapper taken up again from `state` over a builder that starts where the run stands in the store (its ledger
   * the calls still open); `usedBefore`: the ids the run used before.
   */
  static resume(
    builder: RunPlanBuilder,
    env: MapperEnv,
    context: RuntimeContextSnapshot,
    usedBefore: (id: string) => boolean,
    state: MapperState,
  ): SessionMapper {
    const m = new SessionMapper(builder, env, context);
    m.pending = state.pending
      ? { messageId: state.pending.messageId, requestId: state.pending.requestId, entries: [...state.pending.entries] }
      : undefined;
    m.deferred = [...state.deferred];
    m.open = new Map(state.open.map(([k, v]) => [k, [...v]]));
    m.compactions = state.compactions;
    m.lastApiError = state.apiError;
    m.usedBefore = usedBefore;
    return m;
  }

  /** Taken up again: the ids the run used before (the store's), which `used` does not hold. */
  private usedBefore: ((id: string) => boolean) | undefined;

  /** The message id of the model response still being assembled, if any. */
  get pendingMessageId(): string | undefined {
    return this.pending?.messageId;
  }

  get apiError(): string | undefined {
    return this.lastApiError;
  }

  add(e: Entry): void {
    switch (e.kind) {
      case 'assistant':
        if (
          this.pending &&
          e.messageId !== undefined &&
          e.messageId === this.pending.messageId &&
          (e.requestId === undefined || this.pending.requestId === undefined || e.requestId === this.pending.requestId)
        ) {
          this.pending.entries.push(e);
        } else {
          this.flush();
          this.pending = { messageId: e.messageId, requestId: e.requestId, entries: [e] };
        }
        return;
      case 'user':
        if (this.pending && toolResultIds(e) !== undefined) {
          this.deferred.push(e); // a tool ran while the response was still streaming
          return;
        }
        this.flush();
        this.user(e);
        return;
      case 'system':
        this.flush();
        if (e.subtype === 'compact_boundary') {
          this.compactions++;
          this.builder.resetMessages([]);
        }
        return;
      case 'other':
        return;
      default: {
        const unreachable: never = e;
        throw new Error(`unknown entry ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** Completes the pending model call and the tool results held behind it. */
  flush(): void {
    const call = this.pending;
    if (!call) return;
    this.pending = undefined;
    const first = call.entries[0] as AssistantEntry;
    const last = call.entries[call.entries.length - 1] as AssistantEntry;
    const model = call.entries.find((x) => x.model)?.model;
    if (model) this.builder.setModel({ provider: 'anthropic', model });
    this.builder.checkpoint('before_model_call', { at: this.builder.lastTimestamp });
    const parts: unknown[] = [];
    const toolUses: { block: ContentBlock; at?: number }[] = [];
    for (const entry of call.entries) {
      for (const b of entry.blocks) {
        if (b.type === 'tool_use') {
          const id = this.uniqueId(String(b.id));
          toolUses.push({ block: { ...b, id }, at: entry.at });
          parts.push({ type: 'tool_call', toolCallId: id, toolName: String(b.name), args: b.input });
        } else parts.push(b);
      }
    }
    const message: Message = { role: 'assistant', content: parts };
    if (call.messageId) message.id = call.messageId;
    this.builder.addMessage(message);
    const u = maxUsage(call.entries);
    const usage: Usage | undefined = u
      ? {
          inputTokens: u.input + u.cacheCreation + u.cacheRead,
          outputTokens: u.output,
          uncachedInputTokens: u.input,
          cacheCreationInputTokens: u.cacheCreation,
          cacheReadInputTokens: u.cacheRead,
        }
      : undefined;
    const stop = call.entries.findLast((x) => x.stopReason)?.stopReason;
    const finishReason = last.apiError ? 'error' : (stop ?? (toolUses.length > 0 ? 'tool_use' : undefined));
    this.lastApiError = last.apiError ? textOf(last.blocks) || 'API error' : undefined;
    this.builder.checkpoint('after_model_call', { at: last.at ?? first.at, finishReason, usage });
    for (const { block, at } of toolUses) {
      const toolName = String(block.name);
      this.builder.beginTool({
        toolCallId: String(block.id),
        toolName,
        args: block.input,
        sideEffectLevel: this.env.sideEffectOf(toolName),
        startedAt: at ?? this.builder.lastTimestamp,
      });
    }
    const held = this.deferred;
    this.deferred = [];
    for (const e of held) this.user(e);
  }

  private uniqueId(raw: string): string {
    let id = raw;
    for (let n = 2; this.used.has(id) || this.usedBefore?.(id) === true; n++) id = `${raw}#${n}`;
    this.used.add(id);
    const list = this.open.get(raw) ?? [];
    list.push(id);
    this.open.set(raw, list);
    return id;
  }

  private user(e: UserEntry): void {
    if (e.isCompactSummary) {
      if (this.compactions === 0) this.compactions = 1; // a summary without a boundary line (older versions)
      const text = textOf(e.content);
      this.context = { ...this.context, conversation: { ...this.context.conversation, summary: text } };
      this.builder.setContext(this.context);
      this.builder.resetMessages([{ role: 'user', content: e.content, compactSummary: true }]);
      this.builder.checkpoint('before_prompt_build', { at: e.at });
      return;
    }
    if (typeof e.content === 'string') {
      this.builder.addMessage(
        e.isMeta ? { role: 'user', content: e.content, meta: true } : { role: 'user', content: e.content },
      );
      this.touch(e.at);
      return;
    }
    const rest: ContentBlock[] = [];
    for (const b of e.content) {
      if (b.type !== 'tool_result') {
        rest.push(b);
        continue;
      }
      const raw = String(b.tool_use_id);
      const queue = this.open.get(raw);
      const id = queue?.shift();
      if (queue && queue.length === 0) this.open.delete(raw);
      const content = b.content ?? '';
      if (id === undefined || !this.builder.hasTool(id)) {
        this.env.warnings.push({
          file: this.env.file,
          line: e.lineNo,
          message: `line ${e.lineNo}: tool_result for ${raw}, which no earlier tool_use of this branch opened; kept as a tool message only`,
        });
        this.builder.addMessage({ role: 'tool', toolCallId: raw, content });
        continue;
      }
      if (e.subagentId) this.env.onSubagent?.(e.subagentId, id);
      const at = e.at ?? this.builder.lastTimestamp;
      if (b.is_error === true) {
        this.builder.finishTool(id, { error: { message: textOf(content) || 'tool error', content }, endedAt: at });
      } else {
        this.builder.finishTool(id, { result: content, endedAt: at });
      }
    }
    if (rest.length > 0) {
      this.builder.addMessage(e.isMeta ? { role: 'user', content: rest, meta: true } : { role: 'user', content: rest });
      this.touch(e.at);
    }
  }

  private touch(at: number | undefined): void {
    // Timestamps only move forward; the builder keeps the latest.
    if (at !== undefined) this.builder.noteTime(at);
  }
}

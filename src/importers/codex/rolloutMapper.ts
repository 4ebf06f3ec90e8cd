/**
 * One Codex rollout line onto a run's plan (importCodexRollout.ts reads the file; rolloutTail.ts takes a grown
 * rollout up again after the lines its last import mapped): `turn_context` sets the model, `response_item`s go to
 * ResponseItems, `event_msg` `token_count` gives the usage of the model call it follows, the user / agent messages
 * and reasoning events are the conversation of a rollout that has no such items, `compacted` restarts the
 * conversation from its summary. What the mapper carries from line to line is plain JSON (`RolloutState`), so a
 * later import can go on from it. Pure.
 */
import type { RuntimeContextSnapshot } from '../../model';
import type { ReaderOptions } from '../reader';
import { ResponseItems, itemText, responsesUsage } from '../openai/responseItems';
import type { RunPlanBuilder } from '../runPlan';

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** What the mapper carries from one line to the next. */
export interface RolloutState {
  /** Codex's running token total at the last `token_count` that had one. */
  lastTotal?: Obj;
  /** Tool names called so far. */
  tools: string[];
  compactions: number;
  tokenEvents: number;
}

/** What the rollout as a whole decides of how its lines are read. */
export interface RolloutShape {
  /** No `message` items: the `event_msg` user / agent messages are the conversation. */
  fromEvents: boolean;
  /** ...and no `reasoning` items: the reasoning events are its reasoning. */
  reasoningFromEvents: boolean;
}

type TokenStep = { kind: 'repeat' } | { kind: 'usage'; usage: ReturnType<typeof responsesUsage> };

const TOKEN_KEYS = ['input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens'];

/**
 * The tokens of the model call a `token_count` event follows. Codex writes the running total of the session
 * (`total_token_usage`) and the call's own figures (`last_token_usage`), and repeats the event unchanged after a
 * turn: the same total again is a repeat. The total starts again from zero when a session is resumed in a new
 * process (it drops below the one before): then the call's own figures are its tokens, never a negative growth;
 * so they are for the first event of a file.
 */
function tokenStep(info: Obj, previous: Obj | undefined): TokenStep {
  const total = info.total_token_usage;
  const last = info.last_token_usage;
  if (!isObj(total)) return { kind: 'usage', usage: responsesUsage(last) };
  if (previous && TOKEN_KEYS.every((k) => Number(total[k] ?? 0) === Number(previous[k] ?? 0)))
    return { kind: 'repeat' };
  // The first total of a file that starts mid-session (a cut rollout) is not this call's alone: its own figures are.
  const restarted = previous === undefined || TOKEN_KEYS.some((k) => Number(total[k] ?? 0) < Number(previous[k] ?? 0));
  if (restarted) return { kind: 'usage', usage: isObj(last) ? responsesUsage(last) : growth(total, {}) };
  return { kind: 'usage', usage: growth(total, previous ?? {}) };
}

/** `total - previous` of Codex's running token totals, as a model call's usage. */
function growth(total: Obj, previous: Obj): ReturnType<typeof responsesUsage> {
  const d = (k: string) => Math.max(0, Number(total[k] ?? 0) - Number(previous[k] ?? 0));
  return responsesUsage({
    input_tokens: d('input_tokens'),
    cached_input_tokens: d('cached_input_tokens'),
    output_tokens: d('output_tokens'),
    reasoning_output_tokens: d('reasoning_output_tokens'),
  });
}

/** An `event_msg` user / agent message or reasoning as the response item it stands for (event-only rollouts). */
function eventItem(payload: Obj): Obj | undefined {
  const text = typeof payload.message === 'string' ? payload.message : undefined;
  if (payload.type === 'user_message' && text !== undefined)
    return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
  if (payload.type === 'agent_message' && text !== undefined)
    return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] };
  if (payload.type === 'agent_reasoning' && typeof payload.text === 'string')
    return { type: 'reasoning', summary: [{ type: 'summary_text', text: payload.text }] };
  return undefined;
}

/** The kind of item a line holds, as the rollout's shape counts them (a `response_item`'s own type, else the line's). */
export function itemTypeOf(value: Obj): unknown {
  return value.type === 'response_item' && isObj(value.payload) ? value.payload.type : value.type;
}

/** The time of a line (its `timestamp`), when it has one. */
export function timeOf(v: Obj): number | undefined {
  const t = Date.parse(String(v.timestamp ?? ''));
  return Number.isNaN(t) ? undefined : t;
}

export class RolloutMapper {
  private lastTotal: Obj | undefined;
  private readonly tools: Set<string>;
  compactions: number;
  tokenEvents: number;

  constructor(
    readonly builder: RunPlanBuilder,
    readonly items: ResponseItems,
    private readonly ctx: RuntimeContextSnapshot,
    private readonly shape: RolloutShape,
    private readonly options: Pick<ReaderOptions, 'unknownTypes' | 'skip'> & { file: string },
    state: RolloutState = { tools: [], compactions: 0, tokenEvents: 0 },
  ) {
    this.lastTotal = state.lastTotal;
    this.tools = new Set(state.tools);
    this.compactions = state.compactions;
    this.tokenEvents = state.tokenEvents;
  }

  state(): RolloutState {
    return {
      ...(this.lastTotal ? { lastTotal: this.lastTotal } : {}),
      tools: this.toolNames(),
      compactions: this.compactions,
      tokenEvents: this.tokenEvents,
    };
  }

  toolNames(): string[] {
    return [...this.tools].sort();
  }

  /** Maps line `lineNo`; a line that does not map is skipped (`options.skip`), naming it. */
  line(lineNo: number, value: Obj): void {
    const { builder, items } = this;
    try {
      const t = timeOf(value);
      const type = value.type;
      const payload = isObj(value.payload) ? value.payload : undefined;
      if (type === 'turn_context' && payload) {
        if (str(payload.model)) builder.setModel({ provider: this.ctx.model.provider, model: String(payload.model) });
      } else if (type === 'response_item' && payload) {
        if (typeof payload.name === 'string') this.tools.add(payload.name);
        items.item(payload, t);
      } else if (type === 'event_msg' && payload) {
        if (payload.type === 'token_count' && isObj(payload.info)) {
          const step = tokenStep(payload.info, this.lastTotal);
          if (isObj(payload.info.total_token_usage)) this.lastTotal = payload.info.total_token_usage;
          const usage = step.kind === 'usage' ? step.usage : undefined;
          if (usage && (usage.inputTokens > 0 || usage.outputTokens > 0)) {
            if (items.usage(usage)) this.tokenEvents++;
          }
        } else if (this.shape.fromEvents) {
          const item = eventItem(payload);
          if (item && (item.type !== 'reasoning' || this.shape.reasoningFromEvents)) items.item(item, t);
        }
      } else if (type === 'compacted' && payload) {
        items.flush();
        this.compactions++;
        builder.resetMessages([{ role: 'user', content: itemText(payload.message), compactSummary: true }]);
        builder.checkpoint('before_prompt_build', { at: t });
      } else if (type === undefined && lineNo > 1 && value.record_type === undefined) {
        if (typeof value.name === 'string') this.tools.add(value.name);
        items.item(value, t); // an early rollout: bare items
      } else if (type !== 'session_meta' && type !== undefined) {
        this.options.unknownTypes[String(type)] = (this.options.unknownTypes[String(type)] ?? 0) + 1;
      }
    } catch (e) {
      this.options.skip({ file: this.options.file, line: lineNo }, e);
    }
  }
}

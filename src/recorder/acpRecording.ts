/**
 * The one recording of an ACP-style session into a RunRecorder, shared by open-agent-kernel's stream
 * (acpStream.ts) and the Agent Client Protocol proxy (acpSessions.ts, `ocdb acp`): a prompt opens a turn; message
 * and thought chunks merge into the assistant message of the current model call; a tool call is a part of that
 * message and begins at its next own update (so a confirmation can still make it manual_confirm); its final
 * status finishes it (success, error, cancelled); a confirmation waits for a decision, recorded with it (a denial
 * finishes the call as cancelled); log lines, questions, plans, usage reports and decisions are run events, kept
 * in the runtime context under `events` from the next checkpoint on. A run's state lives across streams.
 * Depends on model/ and the recorder.
 */
import type { z } from 'zod';
import type { Message, ReplayPolicy, RuntimeContextSnapshot, SideEffectLevel, Usage } from '../model';
import { OcdbError } from '../model';
import type { RunRecorder } from './runRecorder';
import { matchTool, type ToolJournalToolSchema } from './toolJournal';

/** A run event kept in the runtime context's `events`. */
export type AcpRunEvent =
  | { type: 'log'; level: string; message: string; at: number }
  | { type: 'ask_user'; toolCallId: string; questions: unknown[]; at: number }
  | { type: 'tool_confirm'; toolCallId: string; toolName: string; input: unknown; options?: unknown[]; at: number }
  | { type: 'approval'; toolCallId: string; toolName: string; decision: unknown; approved: boolean; at: number }
  | { type: 'plan'; entries: unknown[]; at: number }
  | { type: 'usage'; usage: unknown; at: number }
  | { type: 'cancel'; at: number };

interface PendingCall {
  toolName: string;
  args: unknown;
  policy?: ReplayPolicy;
  level?: SideEffectLevel;
}

export interface AcpToolRules {
  tools: Record<string, z.infer<typeof ToolJournalToolSchema>>;
  fallback: SideEffectLevel;
}

interface StreamState extends AcpToolRules {
  modelOpen: boolean;
  text: string;
  thought: string;
  parts: Record<string, unknown>[];
  /** Asked for, not yet begun (waiting for their first own update). */
  pending: Map<string, PendingCall>;
  /** Begun and not finished: their tool names. */
  open: Map<string, string>;
  /** Confirmations waiting for a decision: their tool names. */
  confirming: Map<string, string>;
  events: AcpRunEvent[];
  /** Events or step states not yet in a checkpoint. */
  unsaved: boolean;
  stepStates: Record<string, unknown> | undefined;
}

const states = new WeakMap<RunRecorder, StreamState>();

const SUCCESS = new Set(['completed', 'complete', 'success', 'succeeded', 'done']);
const FAILURE = new Set(['failed', 'error', 'errored']);
const CANCELLED = new Set(['cancelled', 'canceled', 'rejected', 'denied', 'aborted', 'interrupted']);

/** How a tool call update's status ends the call; undefined while it is still running. */
export function finalStatusOf(status: string): 'success' | 'error' | 'cancelled' | undefined {
  const lower = status.toLowerCase();
  if (SUCCESS.has(lower)) return 'success';
  if (FAILURE.has(lower)) return 'error';
  return CANCELLED.has(lower) ? 'cancelled' : undefined;
}

/** A decision that refuses the call: 'deny' / 'reject' / false, or `{ behavior: 'deny' }`, `{ approved: false }`. */
export function isDenial(decision: unknown): boolean {
  if (decision === false) return true;
  if (typeof decision === 'string') return /^(den|rej|refus|block|no$|cancel|abort)/i.test(decision);
  if (typeof decision === 'object' && decision !== null) {
    const d = decision as Record<string, unknown>;
    if (d.approved === false || d.allow === false || d.allowed === false) return true;
    for (const key of ['behavior', 'decision', 'kind', 'outcome']) {
      if (typeof d[key] === 'string') return isDenial(d[key]);
    }
  }
  return false;
}

export class AcpRecording {
  private readonly s: StreamState;

  /** The recording of `run` (the same state for every stream of the run). */
  constructor(
    private readonly run: RunRecorder,
    rules?: Partial<AcpToolRules>,
  ) {
    let state = states.get(run);
    if (!state) {
      state = {
        modelOpen: false,
        text: '',
        thought: '',
        parts: [],
        pending: new Map(),
        open: new Map(),
        confirming: new Map(),
        events: [],
        unsaved: false,
        stepStates: undefined,
        tools: {},
        fallback: 'write',
      };
      states.set(run, state);
    }
    if (rules?.tools) state.tools = { ...state.tools, ...rules.tools };
    if (rules?.fallback) state.fallback = rules.fallback;
    this.s = state;
  }

  get runId(): string {
    return this.run.runId;
  }

  /** The runtime context with the run events (and plan step states), when some are not in a checkpoint yet. */
  private context(): { runtimeContext?: RuntimeContextSnapshot } {
    if (!this.s.unsaved) return {};
    this.s.unsaved = false;
    const ctx = this.run.runtimeContext;
    return {
      runtimeContext: {
        ...ctx,
        ...(this.s.stepStates
          ? { task: { ...ctx.task, stepStates: { ...ctx.task.stepStates, ...this.s.stepStates } } }
          : {}),
        events: [...this.s.events],
      },
    };
  }

  event(e: AcpRunEvent): void {
    this.s.events.push(e);
    this.s.unsaved = true;
  }

  /** A plan: a run event, and each entry's status as a step state of the task (`plan: <content>`). */
  plan(entries: readonly { content?: unknown; status?: unknown }[], at: number): void {
    this.event({ type: 'plan', entries: [...entries], at });
    this.s.stepStates = Object.fromEntries(
      entries.map((e, i) => [`plan: ${typeof e.content === 'string' ? e.content : String(i + 1)}`, e.status ?? null]),
    );
  }

  /** Opens a turn with the user's prompt (before_prompt_build). */
  prompt(content: string | unknown[]): void {
    this.closeModel();
    this.beginPending();
    const messages: Message[] = [...this.run.messages, { role: 'user', content }];
    this.run.checkpoint('before_prompt_build', { messages, ...this.context() });
  }

  openModel(): void {
    if (this.s.modelOpen) return;
    this.beginPending();
    this.run.checkpoint('before_model_call', this.context());
    this.s.modelOpen = true;
  }

  /** Closes the model call: after_model_call with the merged message (and the usage reported for it). */
  closeModel(usage?: Usage): void {
    if (!this.s.modelOpen) return;
    const parts = [...this.s.parts];
    if (this.s.text !== '') parts.unshift({ type: 'text', text: this.s.text });
    if (this.s.thought !== '') parts.unshift({ type: 'thinking', text: this.s.thought });
    const content = parts.length === 1 && this.s.text !== '' ? this.s.text : parts;
    const toolCalls = parts.some((p) => p.type === 'tool_call');
    this.run.checkpoint('after_model_call', {
      messages: [...this.run.messages, { role: 'assistant', content }],
      finishReason: toolCalls ? 'tool_calls' : 'stop',
      ...(usage ? { usage } : {}),
      ...this.context(),
    });
    this.s.modelOpen = false;
    this.s.text = '';
    this.s.thought = '';
    this.s.parts = [];
  }

  /** The end of a turn (the prompt's response): the model call closes with the usage reported, if any. */
  endTurn(usage?: Usage): void {
    if (usage && !this.s.modelOpen) this.event({ type: 'usage', usage, at: Date.now() });
    this.closeModel(usage);
    this.beginPending();
  }

  appendText(text: string): void {
    this.openModel();
    this.s.text += text;
  }

  appendThought(text: string): void {
    this.openModel();
    this.s.thought += text;
  }

  /** Begins every call asked for and not begun yet. */
  beginPending(): void {
    for (const id of [...this.s.pending.keys()]) this.begin(id);
  }

  private begin(id: string): void {
    const call = this.s.pending.get(id);
    if (!call) return;
    this.s.pending.delete(id);
    const configured = matchTool(call.toolName, this.s.tools);
    const policy = call.policy ?? configured?.replayPolicy;
    this.run.beginTool(call.toolName, call.args, {
      sideEffectLevel: configured?.sideEffectLevel ?? call.level ?? this.s.fallback,
      ...(policy ? { replayPolicy: policy } : {}),
      toolCallId: id,
    });
    this.s.open.set(id, call.toolName);
  }

  /** A tool call the model asked for: a part of the current message; it begins at its next own update. */
  toolCall(id: string, title: string, input: unknown, level?: SideEffectLevel): void {
    if (this.s.pending.has(id) || this.s.open.has(id)) return;
    this.openModel();
    this.s.parts.push({ type: 'tool_call', toolCallId: id, toolName: title, args: input ?? {} });
    this.s.pending.set(id, { toolName: title, args: input ?? {}, ...(level ? { level } : {}) });
  }

  /** A call waiting for the user's approval: it begins as manual_confirm. */
  confirm(id: string, toolName: string | undefined, input: unknown, at: number, options?: unknown[]): void {
    this.closeModel();
    const pending = this.s.pending.get(id);
    const name = toolName ?? pending?.toolName ?? this.s.open.get(id) ?? 'unknown';
    if (!this.s.open.has(id)) {
      this.s.pending.set(id, {
        ...pending,
        toolName: name,
        args: input ?? pending?.args ?? {},
        policy: 'manual_confirm',
      });
      this.begin(id);
    }
    this.s.confirming.set(id, name);
    this.event({ type: 'tool_confirm', toolCallId: id, toolName: name, input, ...(options ? { options } : {}), at });
  }

  askUser(id: string, questions: unknown[], at: number): void {
    this.closeModel();
    if (!this.s.open.has(id)) {
      this.s.pending.set(id, { toolName: 'ask_user', args: { questions }, policy: 'manual_confirm', level: 'none' });
      this.begin(id);
    }
    this.event({ type: 'ask_user', toolCallId: id, questions, at });
  }

  /** A status update of a call: it begins if it had not; a final status finishes it. */
  update(id: string, status: string | undefined, result: unknown, hasResult: boolean, toolName?: string): void {
    const final = status !== undefined ? finalStatusOf(status) : undefined;
    if (!this.s.open.has(id)) {
      this.closeModel();
      if (!this.s.pending.has(id)) this.s.pending.set(id, { toolName: toolName ?? 'unknown', args: {} });
      this.begin(id);
    }
    if (!final) return;
    this.closeModel();
    const ended = `the tool call ended ${String(status)}`;
    const value =
      final === 'success'
        ? hasResult
          ? result
          : null
        : hasResult
          ? result
          : final === 'error'
            ? { message: ended }
            : ended;
    this.run.finishTool(id, final, value);
    this.s.open.delete(id);
    this.s.confirming.delete(id);
  }

  /** The decision on a waiting call, recorded with it; a denial finishes the call as cancelled. */
  approval(id: string, decision: unknown, at: number, approved = !isDenial(decision)): void {
    const toolName = this.s.confirming.get(id);
    if (toolName === undefined) {
      throw new OcdbError(
        'ToolCallNotFound',
        `recordApproval: no tool_confirm for ${id} is waiting in run ${this.run.runId}; pass the toolCallId of the tool_confirm update as toolUseId`,
        { runId: this.run.runId, toolCallId: id, path: 'toolUseId' },
      );
    }
    this.event({ type: 'approval', toolCallId: id, toolName, decision, approved, at });
    this.s.confirming.delete(id);
    this.run.checkpoint('before_tool_call', { toolCallId: id, ...this.context() });
    if (!approved && this.s.open.has(id)) {
      this.run.finishTool(id, 'cancelled', { message: `denied by the user (${JSON.stringify(decision)})`, decision });
      this.s.open.delete(id);
    }
  }

  /** True when a confirmation for `id` waits for its decision. */
  isConfirming(id: string): boolean {
    return this.s.confirming.has(id);
  }

  endOfStream(): void {
    this.closeModel();
    this.beginPending();
  }

  /** Ends the run: open calls are finished as cancelled (the session ended first). */
  end(status: 'completed' | 'failed' | 'cancelled', error?: unknown): void {
    this.endOfStream();
    for (const [id, name] of this.s.open) {
      this.run.finishTool(id, 'cancelled', `the session ended before ${name} finished`);
    }
    this.s.open.clear();
    this.run.end({ status, ...(error !== undefined ? { error } : {}) });
  }
}

/**
 * open-agent-kernel's ACP stream (seed 002, §4.3 and §4.6) over one RunRecorder. `recordAcpStream(run, updates)`
 * takes the `AsyncIterable<AcpSessionUpdate>` that `session.send()` returns and yields every update unchanged
 * (the same object) while recording it:
 *
 *   agent_phase model_responding        opens a model call (before_model_call); tool_executing / idle /
 *                                       compacting close it (after_model_call with the turn's assistant message)
 *   agent_message_chunk                 its text merged into that assistant message (a call opens if none is)
 *   tool_call                           a tool_call part of the message; the call begins at its next update
 *   tool_confirm                        the call begins with replay policy manual_confirm, waiting for approval
 *   tool_call_update (final status)     the call finishes: completed -> success (result), failed -> error,
 *                                       cancelled / rejected -> cancelled
 *   ask_user                            a tool call `ask_user` (level none, manual_confirm) answered by its update
 *   log                                 a run event
 *
 * `recordApproval(run, { toolUseId, decision })` — pass it what you give `session.respondApproval` — records the
 * decision with the waiting call (a denial finishes it as cancelled). Run events (log lines, questions, approval
 * decisions) are kept in the runtime context under `events` from the next checkpoint on, so every checkpoint shows
 * what had happened by then. The state of a run's stream lives across `send()` calls (an approval ends one stream
 * and the resumed agent starts the next). A thin adapter over the RunRecorder; depends on model/ and the recorder.
 */
import { z } from 'zod';
import {
  OcdbError,
  SideEffectLevelSchema,
  formatPath,
  parseWith,
  type Message,
  type ReplayPolicy,
  type RuntimeContextSnapshot,
  type SideEffectLevel,
} from '../model';
import type { RunRecorder } from './runRecorder';
import { ToolJournalToolSchema, journalToolOf } from './toolJournal';

/** The seed's `AcpSessionUpdate` (§4.3), verbatim. */
export type AcpSessionUpdate =
  | { sessionUpdate: 'agent_message_chunk'; content: { type: 'text'; text: string } }
  | { sessionUpdate: 'tool_call'; toolCallId: string; title: string; input?: unknown }
  | { sessionUpdate: 'tool_call_update'; toolCallId: string; status: string; result?: unknown }
  | { sessionUpdate: 'tool_confirm'; toolCallId: string; toolName: string; input: Record<string, unknown> }
  | { sessionUpdate: 'ask_user'; toolCallId: string; questions: unknown[] }
  | {
      sessionUpdate: 'agent_phase';
      phase: 'preparing' | 'model_responding' | 'tool_executing' | 'compacting' | 'idle';
    }
  | { sessionUpdate: 'log'; level: 'info' | 'error' | 'success' | 'command'; message: string };

const UpdateSchema = z.discriminatedUnion('sessionUpdate', [
  z.looseObject({
    sessionUpdate: z.literal('agent_message_chunk'),
    content: z.looseObject({ type: z.string(), text: z.string().optional() }),
  }),
  z.looseObject({
    sessionUpdate: z.literal('tool_call'),
    toolCallId: z.string().min(1),
    title: z.string(),
    input: z.unknown().optional(),
  }),
  z.looseObject({
    sessionUpdate: z.literal('tool_call_update'),
    toolCallId: z.string().min(1),
    status: z.string(),
    result: z.unknown().optional(),
  }),
  z.looseObject({
    sessionUpdate: z.literal('tool_confirm'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({
    sessionUpdate: z.literal('ask_user'),
    toolCallId: z.string().min(1),
    questions: z.array(z.unknown()),
  }),
  z.looseObject({
    sessionUpdate: z.literal('agent_phase'),
    phase: z.enum(['preparing', 'model_responding', 'tool_executing', 'compacting', 'idle']),
  }),
  z.looseObject({
    sessionUpdate: z.literal('log'),
    level: z.enum(['info', 'error', 'success', 'command']),
    message: z.string(),
  }),
]);
type Update = z.infer<typeof UpdateSchema>;
const KNOWN = new Set(UpdateSchema.options.map((o) => o.shape.sessionUpdate.value));

export const AcpStreamOptionsSchema = z.object({
  /** The user's input of this `send()`: recorded as the user message that opens the turn. */
  prompt: z.union([z.string(), z.array(z.unknown())]).optional(),
  /** Per tool name (a tool_call's title, a tool_confirm's toolName) or glob: side-effect level and policy. */
  tools: z.record(z.string().min(1), ToolJournalToolSchema).optional(),
  /** The level of a tool no entry matches (default `write`). */
  defaultSideEffectLevel: SideEffectLevelSchema.optional(),
});
export type AcpStreamOptions = z.input<typeof AcpStreamOptionsSchema>;

/** What `recordApproval` takes: the options of the seed's `respondApproval({ toolUseId, decision })`. */
export const AcpApprovalSchema = z.looseObject({ toolUseId: z.string().min(1), decision: z.unknown() });

/** A run event kept in the runtime context's `events`. */
export type AcpRunEvent =
  | { type: 'log'; level: string; message: string; at: number }
  | { type: 'ask_user'; toolCallId: string; questions: unknown[]; at: number }
  | { type: 'tool_confirm'; toolCallId: string; toolName: string; input: unknown; at: number }
  | { type: 'approval'; toolCallId: string; toolName: string; decision: unknown; approved: boolean; at: number };

interface PendingCall {
  toolName: string;
  args: unknown;
  policy?: ReplayPolicy;
  level?: SideEffectLevel;
}

interface StreamState {
  modelOpen: boolean;
  text: string;
  parts: Record<string, unknown>[];
  /** Asked for, not yet begun (waiting for their first own update). */
  pending: Map<string, PendingCall>;
  /** Begun and not finished. */
  open: Map<string, string>;
  /** tool_confirm calls waiting for a decision. */
  confirming: Map<string, string>;
  events: AcpRunEvent[];
  /** Events not yet in a checkpoint. */
  unsaved: boolean;
  tools: Record<string, z.infer<typeof ToolJournalToolSchema>>;
  fallback: SideEffectLevel;
}

const states = new WeakMap<RunRecorder, StreamState>();

function stateOf(run: RunRecorder): StreamState {
  let state = states.get(run);
  if (!state) {
    state = {
      modelOpen: false,
      text: '',
      parts: [],
      pending: new Map(),
      open: new Map(),
      confirming: new Map(),
      events: [],
      unsaved: false,
      tools: {},
      fallback: 'write',
    };
    states.set(run, state);
  }
  return state;
}

const SUCCESS = new Set(['completed', 'complete', 'success', 'succeeded', 'done']);
const FAILURE = new Set(['failed', 'error', 'errored']);
const CANCELLED = new Set(['cancelled', 'canceled', 'rejected', 'denied', 'aborted', 'interrupted']);

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

class AcpRecording {
  constructor(
    private readonly run: RunRecorder,
    private readonly s: StreamState,
  ) {}

  /** The runtime context with the run events, when some are not in a checkpoint yet. */
  private context(): { runtimeContext?: RuntimeContextSnapshot } {
    if (!this.s.unsaved) return {};
    this.s.unsaved = false;
    return { runtimeContext: { ...this.run.runtimeContext, events: [...this.s.events] } };
  }

  event(e: AcpRunEvent): void {
    this.s.events.push(e);
    this.s.unsaved = true;
  }

  prompt(content: string | unknown[]): void {
    this.closeModel();
    const messages: Message[] = [...this.run.messages, { role: 'user', content }];
    this.run.checkpoint('before_prompt_build', { messages, ...this.context() });
  }

  openModel(): void {
    if (this.s.modelOpen) return;
    this.beginPending();
    this.run.checkpoint('before_model_call', this.context());
    this.s.modelOpen = true;
  }

  closeModel(): void {
    if (!this.s.modelOpen) return;
    const parts = [...this.s.parts];
    if (this.s.text !== '') parts.unshift({ type: 'text', text: this.s.text });
    const content = parts.length === 1 && this.s.text !== '' ? this.s.text : parts;
    const toolCalls = parts.some((p) => p.type === 'tool_call');
    this.run.checkpoint('after_model_call', {
      messages: [...this.run.messages, { role: 'assistant', content }],
      finishReason: toolCalls ? 'tool_calls' : 'stop',
      ...this.context(),
    });
    this.s.modelOpen = false;
    this.s.text = '';
    this.s.parts = [];
  }

  /** Begins every call asked for and not begun yet (before the next model call, at the end of a stream). */
  beginPending(): void {
    for (const id of [...this.s.pending.keys()]) this.begin(id);
  }

  private begin(id: string): void {
    const call = this.s.pending.get(id);
    if (!call) return;
    this.s.pending.delete(id);
    const configured = journalToolOf(call.toolName, this.s.tools, this.s.fallback);
    const policy = call.policy ?? configured.replayPolicy;
    this.run.beginTool(call.toolName, call.args, {
      sideEffectLevel: call.level ?? configured.sideEffectLevel,
      ...(policy ? { replayPolicy: policy } : {}),
      toolCallId: id,
    });
    this.s.open.set(id, call.toolName);
  }

  appendText(text: string): void {
    this.s.text += text;
  }

  toolCall(id: string, title: string, input: unknown): void {
    if (this.s.pending.has(id) || this.s.open.has(id)) return;
    if (!this.s.modelOpen) this.openModel();
    this.s.parts.push({ type: 'tool_call', toolCallId: id, toolName: title, args: input ?? {} });
    this.s.pending.set(id, { toolName: title, args: input ?? {} });
  }

  confirm(id: string, toolName: string, input: Record<string, unknown>, at: number): void {
    this.closeModel();
    const pending = this.s.pending.get(id);
    if (this.s.open.has(id)) {
      // Begun already (the update order of another adapter): the decision is still recorded with it.
    } else {
      this.s.pending.set(id, { ...(pending ?? { args: input }), toolName, args: input, policy: 'manual_confirm' });
      this.begin(id);
    }
    this.s.confirming.set(id, toolName);
    this.event({ type: 'tool_confirm', toolCallId: id, toolName, input, at });
  }

  askUser(id: string, questions: unknown[], at: number): void {
    this.closeModel();
    if (!this.s.open.has(id)) {
      this.s.pending.delete(id);
      this.s.pending.set(id, { toolName: 'ask_user', args: { questions }, policy: 'manual_confirm', level: 'none' });
      this.begin(id);
    }
    this.event({ type: 'ask_user', toolCallId: id, questions, at });
  }

  update(id: string, status: string, result: unknown, hasResult: boolean): void {
    const lower = status.toLowerCase();
    const final = SUCCESS.has(lower)
      ? 'success'
      : FAILURE.has(lower)
        ? 'error'
        : CANCELLED.has(lower)
          ? 'cancelled'
          : undefined;
    if (!this.s.open.has(id)) {
      this.closeModel();
      if (!this.s.pending.has(id)) this.s.pending.set(id, { toolName: 'unknown', args: {} });
      this.begin(id);
    }
    if (!final) return;
    this.closeModel();
    const value =
      final === 'success'
        ? hasResult
          ? result
          : null
        : final === 'error'
          ? hasResult
            ? result
            : { message: `the tool call ended ${status}` }
          : hasResult
            ? result
            : `the tool call ended ${status}`;
    this.run.finishTool(id, final, value);
    this.s.open.delete(id);
    this.s.confirming.delete(id);
  }

  approval(id: string, decision: unknown, at: number): void {
    const toolName = this.s.confirming.get(id);
    if (toolName === undefined) {
      throw new OcdbError(
        'ToolCallNotFound',
        `recordApproval: no tool_confirm for ${id} is waiting in run ${this.run.runId}; pass the toolCallId of the tool_confirm update as toolUseId`,
        { runId: this.run.runId, toolCallId: id, path: 'toolUseId' },
      );
    }
    const approved = !isDenial(decision);
    this.event({ type: 'approval', toolCallId: id, toolName, decision, approved, at });
    this.s.confirming.delete(id);
    this.run.checkpoint('before_tool_call', { toolCallId: id, ...this.context() });
    if (!approved) {
      this.run.finishTool(id, 'cancelled', { message: `denied by the user (${JSON.stringify(decision)})`, decision });
      this.s.open.delete(id);
    }
  }

  endOfStream(): void {
    this.closeModel();
    this.beginPending();
  }
}

function parseUpdate(value: unknown, index: number): Update | undefined {
  const head = z.looseObject({ sessionUpdate: z.string() }).safeParse(value);
  if (head.success && !KNOWN.has(head.data.sessionUpdate as Update['sessionUpdate'])) return undefined;
  const parsed = UpdateSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const kind = head.success ? ` (${head.data.sessionUpdate})` : '';
  throw new OcdbError(
    'InvalidInput',
    `recordAcpStream: update ${index}${kind}: ${issue ? `${formatPath(issue.path) || '(root)'}: ${issue.message}` : 'invalid'}`,
    { path: `updates[${index}]${issue && issue.path.length > 0 ? `.${formatPath(issue.path)}` : ''}` },
  );
}

/**
 * Yields every update of `updates` unchanged while recording it into `run` (see the file header). Updates of a
 * kind the seed does not list are passed through and not recorded.
 */
export async function* recordAcpStream<U extends AcpSessionUpdate | { sessionUpdate: string }>(
  run: RunRecorder,
  updates: AsyncIterable<U>,
  options: AcpStreamOptions = {},
): AsyncGenerator<U, void, undefined> {
  const opts = parseWith(AcpStreamOptionsSchema, options, 'recordAcpStream(options)');
  const s = stateOf(run);
  if (opts.tools) s.tools = { ...s.tools, ...opts.tools };
  if (opts.defaultSideEffectLevel) s.fallback = opts.defaultSideEffectLevel;
  const rec = new AcpRecording(run, s);
  if (opts.prompt !== undefined) rec.prompt(opts.prompt);
  let index = 0;
  for await (const raw of updates) {
    const update = parseUpdate(raw, index++);
    if (update) record(rec, update);
    yield raw;
  }
  rec.endOfStream();
}

function record(rec: AcpRecording, u: Update): void {
  const at = Date.now();
  switch (u.sessionUpdate) {
    case 'agent_phase':
      if (u.phase === 'model_responding') rec.openModel();
      else if (u.phase !== 'preparing') rec.closeModel();
      return;
    case 'agent_message_chunk':
      rec.openModel();
      if (typeof u.content.text === 'string') rec.appendText(u.content.text);
      return;
    case 'tool_call':
      rec.toolCall(u.toolCallId, u.title, u.input);
      return;
    case 'tool_confirm':
      rec.confirm(u.toolCallId, u.toolName, u.input, at);
      return;
    case 'ask_user':
      rec.askUser(u.toolCallId, u.questions, at);
      return;
    case 'tool_call_update':
      rec.update(u.toolCallId, u.status, u.result, Object.hasOwn(u, 'result'));
      return;
    case 'log':
      rec.event({ type: 'log', level: u.level, message: u.message, at });
      return;
    default: {
      const unreachable: never = u;
      throw new Error(`unknown update ${String(unreachable)}`);
    }
  }
}

/**
 * Records the decision given to `session.respondApproval(approval)` with the tool_confirm call it answers (a
 * denial finishes the call as cancelled) and returns `approval` unchanged:
 * `await session.respondApproval(recordApproval(run, { toolUseId, decision }))`.
 */
export function recordApproval<A extends { toolUseId: string; decision: unknown }>(run: RunRecorder, approval: A): A {
  const data = AcpApprovalSchema.safeParse(approval);
  if (!data.success) {
    const issue = data.error.issues[0];
    throw new OcdbError(
      'InvalidInput',
      `recordApproval: ${issue ? `${formatPath(issue.path) || '(root)'}: ${issue.message}` : 'invalid'}`,
      { path: issue ? formatPath(issue.path) : '' },
    );
  }
  new AcpRecording(run, stateOf(run)).approval(data.data.toolUseId, data.data.decision, Date.now());
  return approval;
}

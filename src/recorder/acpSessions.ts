/**
 * Records Agent Client Protocol sessions from the JSON-RPC messages an editor and an agent exchange (what
 * `ocdb acp` sees as it passes them through). Each session (`session/new`, `session/load`) is a run:
 *
 *   session/prompt                       the user message of a turn (text blocks joined, else the blocks)
 *   session/update agent_message_chunk   merged into the turn's assistant message; agent_thought_chunk: a
 *                                        `thinking` part of it
 *   tool_call / tool_call_update         the call (side-effect level from its kind) and its end: completed ->
 *                                        success (rawOutput, else content), failed -> error
 *   plan                                 a run event; each entry's status a step state `plan: <content>`
 *   usage_update                         a run event
 *   session/request_permission           the call as manual_confirm; the option the editor chose recorded with
 *                                        it (a reject option or a cancelled request finishes it as cancelled)
 *   the session/prompt response          the end of the turn, with the usage it reports
 *
 * Messages are parsed with zod; one this file cannot read is reported through `onWarning` with where it was, and
 * the proxy passes it on regardless. The shapes are @agentclientprotocol/sdk's (stable v1; `usage` of the prompt
 * response is its unstable field). Depends on model/ and the recorder.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { formatPath, type ReplayPolicy, type RuntimeContextSnapshot, type SideEffectLevel } from '../model';
import { AcpRecording, finalStatusOf } from './acpRecording';
import type { Recorder } from './recorder';

const IdSchema = z.union([z.string(), z.number()]);
const MessageSchema = z.looseObject({
  jsonrpc: z.literal('2.0').optional(),
  id: IdSchema.nullish(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

const ContentSchema = z.looseObject({ type: z.string(), text: z.string().optional() });
const ToolCallFields = {
  toolCallId: z.string().min(1),
  title: z.string().nullish(),
  kind: z.string().nullish(),
  status: z.string().nullish(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  content: z.array(z.unknown()).nullish(),
};
const UpdateSchema = z.discriminatedUnion('sessionUpdate', [
  z.looseObject({ sessionUpdate: z.literal('agent_message_chunk'), content: ContentSchema }),
  z.looseObject({ sessionUpdate: z.literal('agent_thought_chunk'), content: ContentSchema }),
  z.looseObject({ sessionUpdate: z.literal('tool_call'), ...ToolCallFields, title: z.string() }),
  z.looseObject({ sessionUpdate: z.literal('tool_call_update'), ...ToolCallFields }),
  z.looseObject({
    sessionUpdate: z.literal('plan'),
    entries: z.array(z.looseObject({ content: z.string(), status: z.string().optional() })),
  }),
  z.looseObject({ sessionUpdate: z.literal('usage_update'), used: z.number(), size: z.number() }),
]);
const RECORDED_UPDATES = new Set(UpdateSchema.options.map((o) => o.shape.sessionUpdate.value));
const SessionNotificationSchema = z.looseObject({
  sessionId: z.string().min(1),
  update: z.looseObject({ sessionUpdate: z.string() }),
});
const NewSessionRequestSchema = z.looseObject({ cwd: z.string().optional() });
const NewSessionResponseSchema = z.looseObject({ sessionId: z.string().min(1) });
const LoadSessionRequestSchema = z.looseObject({ sessionId: z.string().min(1), cwd: z.string().optional() });
const PromptRequestSchema = z.looseObject({ sessionId: z.string().min(1), prompt: z.array(ContentSchema) });
const PromptResponseSchema = z.looseObject({
  stopReason: z.string(),
  usage: z.looseObject({ inputTokens: z.number(), outputTokens: z.number() }).nullish(),
});
const PermissionRequestSchema = z.looseObject({
  sessionId: z.string().min(1),
  toolCall: z.looseObject(ToolCallFields),
  options: z.array(z.looseObject({ optionId: z.string(), name: z.string().optional(), kind: z.string().optional() })),
});
const PermissionResponseSchema = z.looseObject({
  outcome: z.union([
    z.looseObject({ outcome: z.literal('cancelled') }),
    z.looseObject({ outcome: z.literal('selected'), optionId: z.string() }),
  ]),
});

/** The side-effect level an ACP tool kind suggests (a `tools` option entry beats it). */
export function levelOfToolKind(kind: acp.ToolKind | string | null | undefined): SideEffectLevel | undefined {
  switch (kind) {
    case 'read':
    case 'search':
      return 'read_only';
    case 'think':
    case 'switch_mode':
      return 'none';
    case 'fetch':
      return 'expensive_read';
    case 'edit':
    case 'delete':
    case 'move':
      return 'write';
    case 'execute':
      return 'external_irreversible';
    default:
      return undefined;
  }
}

export interface AcpSessionsOptions {
  /** agentId of the recorded runs (default `acp-agent`). */
  agentId?: string;
  /** The agent's command line, kept in each run's metadata. */
  command?: readonly string[];
  /** Per tool title or glob: side-effect level and replay policy (as the ToolJournal's options). */
  tools?: Record<string, { sideEffectLevel: SideEffectLevel; replayPolicy?: ReplayPolicy }>;
  onWarning?: (message: string) => void;
  now?: () => number;
}

interface Session {
  rec: AcpRecording;
  lastStop?: string;
}

interface Pending {
  method: string;
  params: unknown;
}

type Side = 'editor' | 'agent';

export class AcpSessions {
  private readonly sessions = new Map<string, Session>();
  /** Requests in flight, by `<sender>:<id>`. */
  private readonly requests = new Map<string, Pending>();
  private readonly now: () => number;

  constructor(
    private readonly recorder: Recorder,
    private readonly options: AcpSessionsOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The runs recorded so far, by ACP session id. */
  get runIds(): ReadonlyMap<string, string> {
    return new Map([...this.sessions].map(([id, s]) => [id, s.rec.runId]));
  }

  private warn(where: string, error: z.ZodError | string): void {
    const issue = typeof error === 'string' ? undefined : error.issues[0];
    const what =
      typeof error === 'string'
        ? error
        : `${formatPath(issue?.path ?? []) || '(root)'}: ${issue?.message ?? 'invalid'}`;
    this.options.onWarning?.(`${where}: ${what}; passed on, not recorded`);
  }

  private parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> | undefined {
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    this.warn(where, r.error);
    return undefined;
  }

  /** One line sent by `from` (a JSON-RPC message), as passed through. */
  observe(from: Side, line: string, lineNo: number): void {
    const where = `${from} line ${lineNo}`;
    const trimmed = line.trim();
    if (trimmed === '') return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (e) {
      this.warn(where, `not JSON (${(e as Error).message})`);
      return;
    }
    const msg = this.parse(MessageSchema, value, where);
    if (!msg) return;
    try {
      if (msg.method !== undefined) {
        if (msg.id !== undefined && msg.id !== null) {
          this.requests.set(`${from}:${String(msg.id)}`, { method: msg.method, params: msg.params });
        }
        this.request(from, msg.method, msg.params, `${where} (${msg.method})`);
      } else if (msg.id !== undefined && msg.id !== null) {
        const other: Side = from === 'agent' ? 'editor' : 'agent';
        const key = `${other}:${String(msg.id)}`;
        const pending = this.requests.get(key);
        this.requests.delete(key);
        if (pending && msg.error === undefined) {
          this.response(pending, msg.result, `${where} (response to ${pending.method})`);
        } else if (pending?.method === 'session/request_permission') {
          this.permissionAnswered(pending, { outcome: { outcome: 'cancelled' } }, where);
        }
      }
    } catch (e) {
      this.warn(where, `recording failed: ${(e as Error).message}`);
    }
  }

  private session(sessionId: string, where: string): Session | undefined {
    const s = this.sessions.get(sessionId);
    if (!s) this.warn(where, `session ${sessionId} was not opened through this proxy`);
    return s;
  }

  private request(from: Side, method: string, params: unknown, where: string): void {
    if (from === 'editor' && method === 'session/prompt') {
      const p = this.parse(PromptRequestSchema, params, where);
      if (!p) return;
      const s = this.session(p.sessionId, where);
      if (!s) return;
      const texts = p.prompt.every((b) => b.type === 'text') ? p.prompt.map((b) => b.text ?? '') : undefined;
      s.rec.prompt(texts ? texts.join('\n') : (p.prompt as unknown[]));
      return;
    }
    if (from === 'editor' && method === 'session/cancel') {
      const p = this.parse(z.looseObject({ sessionId: z.string() }), params, where);
      if (p) this.sessions.get(p.sessionId)?.rec.event({ type: 'cancel', at: this.now() });
      return;
    }
    if (from === 'agent' && method === 'session/update') {
      const n = this.parse(SessionNotificationSchema, params, where);
      if (!n || !RECORDED_UPDATES.has(n.update.sessionUpdate as never)) return;
      const u = this.parse(UpdateSchema, n.update, `${where} update`);
      const s = u && this.session(n.sessionId, where);
      if (u && s) this.update(s.rec, u);
      return;
    }
    if (from === 'agent' && method === 'session/request_permission') {
      const p = this.parse(PermissionRequestSchema, params, where);
      const s = p && this.session(p.sessionId, where);
      if (!p || !s) return;
      s.rec.confirm(p.toolCall.toolCallId, p.toolCall.title ?? undefined, p.toolCall.rawInput, this.now(), p.options);
    }
  }

  private update(rec: AcpRecording, u: z.output<typeof UpdateSchema>): void {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
        if (u.content.type === 'text' && u.content.text !== undefined) rec.appendText(u.content.text);
        else rec.appendText(`[${u.content.type}]`);
        return;
      case 'agent_thought_chunk':
        if (u.content.text !== undefined) rec.appendThought(u.content.text);
        return;
      case 'tool_call': {
        const level = levelOfToolKind(u.kind);
        rec.toolCall(u.toolCallId, u.title, u.rawInput ?? {}, level);
        if (u.status && u.status !== 'pending') this.toolUpdate(rec, u);
        return;
      }
      case 'tool_call_update':
        this.toolUpdate(rec, u);
        return;
      case 'plan':
        rec.plan(u.entries, this.now());
        return;
      case 'usage_update':
        rec.event({
          type: 'usage',
          usage: { used: u.used, size: u.size, ...(u.cost ? { cost: u.cost } : {}) },
          at: this.now(),
        });
        return;
      default: {
        const unreachable: never = u;
        throw new Error(`unknown update ${String(unreachable)}`);
      }
    }
  }

  private toolUpdate(
    rec: AcpRecording,
    u: {
      toolCallId: string;
      status?: string | null;
      rawOutput?: unknown;
      content?: unknown[] | null;
      title?: string | null;
    },
  ): void {
    const hasOutput = u.rawOutput !== undefined || (u.content !== undefined && u.content !== null);
    const output = u.rawOutput !== undefined ? u.rawOutput : u.content;
    const final = u.status ? finalStatusOf(u.status) : undefined;
    if (!final && !u.status) return;
    rec.update(u.toolCallId, u.status ?? undefined, output, hasOutput, u.title ?? undefined);
  }

  private response(pending: Pending, result: unknown, where: string): void {
    switch (pending.method) {
      case 'session/new': {
        const r = this.parse(NewSessionResponseSchema, result, where);
        const p = this.parse(NewSessionRequestSchema, pending.params, `${where} request`);
        if (r) this.open(r.sessionId, p?.cwd);
        return;
      }
      case 'session/load': {
        const p = this.parse(LoadSessionRequestSchema, pending.params, `${where} request`);
        if (p && !this.sessions.has(p.sessionId)) this.open(p.sessionId, p.cwd);
        return;
      }
      case 'session/prompt': {
        const p = this.parse(PromptRequestSchema, pending.params, `${where} request`);
        const r = this.parse(PromptResponseSchema, result, where);
        const s = p && this.sessions.get(p.sessionId);
        if (!s || !r) return;
        s.lastStop = r.stopReason;
        s.rec.endTurn(r.usage ? { inputTokens: r.usage.inputTokens, outputTokens: r.usage.outputTokens } : undefined);
        return;
      }
      case 'session/request_permission':
        this.permissionAnswered(pending, result, where);
        return;
      default:
        return;
    }
  }

  private permissionAnswered(pending: Pending, result: unknown, where: string): void {
    const p = this.parse(PermissionRequestSchema, pending.params, `${where} request`);
    const r = this.parse(PermissionResponseSchema, result, where);
    const s = p && this.sessions.get(p.sessionId);
    if (!p || !r || !s || !s.rec.isConfirming(p.toolCall.toolCallId)) return;
    const outcome = r.outcome;
    const option = outcome.outcome === 'selected' ? p.options.find((o) => o.optionId === outcome.optionId) : undefined;
    const decision =
      outcome.outcome === 'selected'
        ? {
            outcome: 'selected',
            optionId: outcome.optionId,
            ...(option?.name ? { name: option.name } : {}),
            ...(option?.kind ? { kind: option.kind } : {}),
          }
        : { outcome: 'cancelled' };
    const approved =
      outcome.outcome === 'selected' && (option?.kind === undefined ? true : option.kind.startsWith('allow'));
    s.rec.approval(p.toolCall.toolCallId, decision, this.now(), approved);
  }

  private open(sessionId: string, cwd: string | undefined): void {
    const agentId = this.options.agentId ?? 'acp-agent';
    const runtimeContext: RuntimeContextSnapshot = {
      user: { userId: 'editor', roleId: 'user', permissions: [] },
      conversation: { sessionId },
      project: {
        projectId: cwd ? (cwd.split(/[\\/]/).filter(Boolean).at(-1) ?? cwd) : 'unknown',
        ...(cwd ? { cwd } : {}),
      },
      task: { taskId: sessionId, workflowId: 'acp', stepStates: {} },
      tools: { availableTools: [] },
      model: { provider: 'acp', model: agentId, promptVersion: 'unknown' },
    };
    const run = this.recorder.startRun({
      agentId,
      sessionId,
      runtimeContext,
      metadata: { source: { format: 'acp', ...(this.options.command ? { command: [...this.options.command] } : {}) } },
    });
    this.sessions.set(sessionId, {
      rec: new AcpRecording(run, this.options.tools ? { tools: this.options.tools } : {}),
    });
  }

  /** Ends every run: completed (cancelled when the last turn was), failed with `error` when the agent failed. */
  close(error?: { message: string }): void {
    for (const s of this.sessions.values()) {
      try {
        if (error) s.rec.end('failed', error);
        else s.rec.end(s.lastStop === 'cancelled' ? 'cancelled' : 'completed');
      } catch (e) {
        this.warn(`session ${s.rec.runId}`, `ending the run failed: ${(e as Error).message}`);
      }
    }
    this.sessions.clear();
  }
}

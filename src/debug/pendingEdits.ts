/**
 * The Pending scope of a live stop and the edits made in it: what the agent is about to do at the checkpoint it
 * stopped on (before a tool call: the tool, its arguments and its outcome; before a model call: the system prompt
 * and the messages to be sent; everywhere: the runtime context) and what `setVariable` changed there, turned into
 * the `LiveEdits` the agent applies when the user continues (src/debug/README.md, "Live debugging"). Every edit is checked when it is
 * made (a message list must stay messages, the context a context), so a wrong value is refused naming its path.
 * Pure: no store, no DAP.
 */
import { z } from 'zod';
import {
  MessageSchema,
  OcdbError,
  RuntimeContextSnapshotSchema,
  formatPath,
  parseWith,
  type CheckpointBoundary,
  type LiveEdits,
  type Message,
  type RuntimeContextSnapshot,
} from '../model';
import type { PathSegment } from './stagedEdits';

/** What the agent is about to do at a live stop, as recorded in the checkpoint it stopped on. */
export interface PendingBase {
  boundary: CheckpointBoundary;
  toolName?: string;
  toolCallId?: string;
  /** before_tool_call: the arguments the tool is about to run with. */
  args?: unknown;
  runtimeContext: RuntimeContextSnapshot;
  /** before_model_call: the system prompt and the conversation about to be sent. */
  systemPrompt?: string;
  messages?: readonly Message[];
}

/** What `outcome` shows while the tool is still to run. */
export const TOOL_RUNS = '(the tool runs; set a value to skip it and return that)';

type ToolOutcome = NonNullable<LiveEdits['toolOutcome']>;

const MessagesSchema = z.array(MessageSchema);

function plain<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** `root` with `value` at `path` (copied on the way; an object key may be new, an array index must exist). */
export function setIn(root: unknown, path: readonly PathSegment[], value: unknown, where: string): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [PathSegment, ...PathSegment[]];
  if (Array.isArray(root)) {
    const i = typeof head === 'number' ? head : Number(head);
    if (!Number.isInteger(i) || i < 0 || i >= root.length) {
      throw new OcdbError(
        'InvalidInput',
        `${where}: index ${String(head)} is not in the list (0 to ${root.length - 1}).`,
        {
          path: where,
        },
      );
    }
    const copy = [...(root as unknown[])];
    copy[i] = setIn(copy[i], rest, value, where);
    return copy;
  }
  if (root !== null && typeof root === 'object') {
    const o = root as Record<string, unknown>;
    return { ...o, [String(head)]: setIn(o[String(head)], rest, value, where) };
  }
  throw new OcdbError('InvalidInput', `${where}: ${String(head)} is inside a value that is not an object or a list.`, {
    path: where,
  });
}

/** `{ outcome, value }` as typed, or a plain value: the tool's successful result. */
export function toolOutcomeOf(value: unknown): ToolOutcome {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o);
    if ((o.outcome === 'success' || o.outcome === 'error') && keys.every((k) => k === 'outcome' || k === 'value')) {
      return { outcome: o.outcome, value: o.value ?? null };
    }
  }
  return { outcome: 'success', value };
}

/** The edits made at one live stop; `view()` is the Pending scope, `edits()` what the agent gets. */
export class PendingEdits {
  private args: unknown;
  private outcome: ToolOutcome | undefined;
  private context: RuntimeContextSnapshot | undefined;
  private systemPrompt: string | undefined;
  private messages: Message[] | undefined;
  private readonly paths: string[] = [];

  constructor(readonly base: PendingBase) {}

  get isTool(): boolean {
    return this.base.boundary === 'before_tool_call';
  }

  get isModel(): boolean {
    return this.base.boundary === 'before_model_call';
  }

  /** The Pending scope: the state after the edits so far. */
  view(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.isTool) {
      if (this.base.toolName) out.tool = this.base.toolName;
      if (this.base.toolCallId) out.toolCallId = this.base.toolCallId;
      out.args = this.args ?? this.base.args ?? null;
      out.outcome = this.outcome ?? TOOL_RUNS;
    }
    if (this.isModel) {
      out.systemPrompt = this.systemPrompt ?? this.base.systemPrompt ?? '';
      out.messages = this.messages ?? [...(this.base.messages ?? [])];
    }
    out.runtimeContext = this.context ?? this.base.runtimeContext;
    return out;
  }

  /** True when something was edited. */
  get edited(): boolean {
    return this.paths.length > 0;
  }

  /**
   * Sets `value` at `path` of the Pending scope (`['args', 'orderId']`); returns the value now there. InvalidInput
   * naming the path for a field that cannot be edited here or a value of the wrong shape.
   */
  set(path: readonly PathSegment[], value: unknown): unknown {
    const where = formatPath(path);
    const [head, ...rest] = path;
    const now = this.view();
    switch (head) {
      case 'args':
        if (!this.isTool) break;
        this.args = plain(setIn(now.args, rest, value, where));
        break;
      case 'outcome': {
        if (!this.isTool) break;
        const base = this.outcome ?? { outcome: 'success', value: null };
        this.outcome = rest.length === 0 ? toolOutcomeOf(value) : toolOutcomeOf(setIn(base, rest, value, where));
        break;
      }
      case 'systemPrompt':
        if (!this.isModel) break;
        if (rest.length > 0 || typeof value !== 'string') {
          throw new OcdbError(
            'InvalidInput',
            `${where}: the system prompt is text (type it in quotes as JSON, or plain).`,
            {
              path: where,
            },
          );
        }
        this.systemPrompt = value;
        break;
      case 'messages':
        if (!this.isModel) break;
        this.messages = parseWith(MessagesSchema, plain(setIn(now.messages, rest, value, where)), 'messages', [
          'messages',
        ]);
        break;
      case 'runtimeContext':
        this.context = parseWith(
          RuntimeContextSnapshotSchema,
          plain(setIn(now.runtimeContext, rest, value, where)),
          'runtime context',
          ['runtimeContext'],
        );
        break;
      default:
        break;
    }
    if (!this.touched(head)) {
      throw new OcdbError(
        'InvalidInput',
        `${where} cannot be edited at ${this.base.boundary}: edit ${this.editable().join(', ')}.`,
        { path: where },
      );
    }
    if (!this.paths.includes(where)) this.paths.push(where);
    let at: unknown = this.view();
    for (const seg of path) at = (at as Record<PathSegment, unknown> | undefined)?.[seg];
    return at;
  }

  private touched(head: PathSegment | undefined): boolean {
    return head !== undefined && this.editable().includes(String(head));
  }

  /** The fields of the Pending scope that can be edited at this boundary. */
  editable(): string[] {
    if (this.isTool) return ['args', 'outcome', 'runtimeContext'];
    if (this.isModel) return ['systemPrompt', 'messages', 'runtimeContext'];
    return ['runtimeContext'];
  }

  /** The edits for the agent (undefined when nothing was edited). */
  edits(editedBy: string): LiveEdits | undefined {
    if (!this.edited) return undefined;
    const out: LiveEdits = { editedBy, paths: [...this.paths] };
    if (this.args !== undefined) out.toolArgs = this.args;
    if (this.outcome !== undefined) out.toolOutcome = this.outcome;
    if (this.context !== undefined) out.runtimeContext = this.context;
    if (this.systemPrompt !== undefined) out.systemPrompt = this.systemPrompt;
    if (this.messages !== undefined) out.messages = this.messages;
    return out;
  }
}

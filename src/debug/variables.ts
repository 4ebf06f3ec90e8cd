/**
 * Scopes and variables of a frame: at a live stop first Pending (what the agent is about to do, editable:
 * pendingEdits.ts), then Checkpoint (boundary, step, time, model,
 * prompt version, finish reason, usage), Messages, Runtime Context (with the
 * staged edits applied), Tool Ledger (args, result, error, side effect,
 * policy, duration) and Artifacts. Children load lazily through variable
 * references handed out per stop; arrays are paged (`indexedVariables`), and
 * a long array asked for whole (a client that does not page) is answered in
 * index ranges (`[0 … 99]`: UNPAGED_ITEMS);
 * long strings are shortened in the value and whole on expand / copy
 * (evaluateName). Returns plain DAP-shaped objects; no transport.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  OcdbError,
  applyContextPatch,
  messageText,
  type Checkpoint,
  type Message,
  type ToolCallRecord,
  toolOwnMs,
} from '../model';
import { excerpt } from '../replay/transcript';
import { lazyList } from '../store';
import { filePreview, isFileVariable } from './filesScope';
import type { FrameRef } from './frames';
import type { StagedPatch } from './protocol';
import type { PathSegment } from './stagedEdits';

export const SCOPES = ['checkpoint', 'messages', 'runtimeContext', 'toolLedger', 'artifacts'] as const;
/** The scopes of every frame, `pending` of a live stop, `files` of a run whose tools change files (filesScope.ts). */
export type ScopeKind = (typeof SCOPES)[number] | 'pending' | 'files';

const SCOPE_NAMES: Record<ScopeKind, string> = {
  pending: 'Pending',
  checkpoint: 'Checkpoint',
  files: 'Files',
  messages: 'Messages',
  runtimeContext: 'Runtime Context',
  toolLedger: 'Tool Ledger',
  artifacts: 'Artifacts',
};

/** Strings longer than this are shortened in `value` (whole on expand and copy). */
export const LONG_STRING = 200;

/**
 * An array longer than this asked for without `count` (a client that does not page: Emacs dap-mode asks for every
 * child) is answered as index ranges of this many items, nested by the same factor for longer ones (`[0 … 9999]`
 * holds `[0 … 99]` …), the synthetic `virtual` variables DAP has for this and the chunks VS Code makes itself: the
 * Messages of a 10k-checkpoint run are 50 ranges, not 4,951 variables. A client that pages gets the items it asks for.
 */
export const UNPAGED_ITEMS = 100;

interface Container {
  ref: FrameRef;
  /** An index range of the array `value` (a `[a … b]` group of an unpaged request): its items [from, to). */
  range?: { from: number; to: number };
  scope: ScopeKind;
  value: unknown;
  /** Expression that evaluates to `value` (undefined for synthetic values). */
  evaluateName?: string;
  /** Path inside the runtime context (Runtime Context scope only): what setVariable edits. */
  contextPath?: PathSegment[];
  /** A long string shown whole as one child. */
  fullText?: boolean;
  /** The scope itself (its children are the scope's fields). */
  scopeRoot?: boolean;
  /** Path inside the Pending scope of a live stop: what setVariable edits there (its value is read anew each time). */
  pendingPath?: PathSegment[];
}

/** The Pending scope of a live stop: its current value (edits applied). */
export interface PendingSource {
  view(): Record<string, unknown>;
}

function isIdentifier(k: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k);
}

function childName(parent: string | undefined, key: PathSegment): string | undefined {
  if (parent === undefined) return undefined;
  if (typeof key === 'number') return `${parent}[${key}]`;
  return isIdentifier(key) ? `${parent}.${key}` : `${parent}.${JSON.stringify(key)}`;
}

/** ledgerView of stored (frozen) records: one view each, frozen too, so its preview is worked out once. */
const ledgerViews = new WeakMap<ToolCallRecord, Record<string, unknown>>();

function ledgerView(t: ToolCallRecord): Record<string, unknown> {
  if (!Object.isFrozen(t)) return viewOfRecord(t);
  let view = ledgerViews.get(t);
  if (!view) ledgerViews.set(t, (view = Object.freeze(viewOfRecord(t))));
  return view;
}

function viewOfRecord(t: ToolCallRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    toolName: t.toolName,
    toolCallId: t.toolCallId,
    args: t.args,
    sideEffectLevel: t.sideEffectLevel,
    replayPolicy: t.replayPolicy,
  };
  if (t.result !== undefined) view.result = t.result;
  if (t.error !== undefined) view.error = t.error;
  const own = toolOwnMs(t);
  if (own !== undefined) view.durationMs = own;
  if (t.heldMs) view.heldByDebuggerMs = t.heldMs;
  view.startedAt = new Date(t.startedAt).toISOString();
  return view;
}

/** The one-line value of `v` as the Variables view shows it. */
export function previewValue(v: unknown, scope?: ScopeKind): string {
  if (typeof v === 'object' && v !== null && Object.isFrozen(v)) {
    // a stored item (frozen: it cannot change) reads the same at every step that shows it
    let byValue = previews.get(scope);
    if (!byValue) previews.set(scope, (byValue = new WeakMap()));
    let text = byValue.get(v);
    if (text === undefined) byValue.set(v, (text = preview(v, scope)));
    return text;
  }
  return preview(v, scope);
}

/** previewValue of frozen values, by the scope that shows them. */
const previews = new Map<ScopeKind | undefined, WeakMap<object, string>>();

function preview(v: unknown, scope?: ScopeKind): string {
  if (typeof v === 'string') {
    const shown = v.length > LONG_STRING ? `${v.slice(0, LONG_STRING)}… (${v.length} chars)` : v;
    return JSON.stringify(shown);
  }
  if (v === undefined) return 'undefined';
  if (v === null || typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return `Array(${v.length})`;
  const o = v as Record<string, unknown>;
  if (scope === 'messages' && typeof o.role === 'string') {
    const m = o as Message;
    const who = m.role === 'tool' && m.toolName ? `tool ${m.toolName}` : m.role;
    return `${who}: ${excerpt(messageText(m), 80)}`;
  }
  if (scope === 'files' && isFileVariable(o)) return filePreview(o);
  if (scope === 'toolLedger' && typeof o.toolName === 'string' && 'sideEffectLevel' in o) {
    const outcome = o.error !== undefined ? `✗ ${excerpt(o.error, 50)}` : `→ ${excerpt(o.result, 50)}`;
    return `${o.toolName}(${excerpt(o.args, 40)}) ${outcome} [${String(o.sideEffectLevel)}]`;
  }
  const keys = Object.keys(o);
  return `{${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}}`;
}

/** The menu context VS Code gives a file's variable of the Files scope (`debugProtocolVariableMenuContext`). */
export const FILE_VARIABLE_CONTEXT = 'agentFile';

/** VS Code's extension of a DAP variable: the value of its `debugProtocolVariableMenuContext` context key. */
type FileMenuVariable = DebugProtocol.Variable & { __vscodeVariableMenuContext?: string };

export class Variables {
  private next = 1;
  private readonly containers = new Map<number, Container>();

  constructor(
    private readonly load: (ref: FrameRef) => Checkpoint,
    private readonly staged: (ref: FrameRef) => StagedPatch | undefined,
    private readonly pending: (ref: FrameRef) => PendingSource | undefined = () => undefined,
    private readonly files: (ref: FrameRef) => Record<string, unknown> | undefined = () => undefined,
  ) {}

  /** Forgets every handle (on each stop: references are valid while stopped at one place). */
  reset(): void {
    this.containers.clear();
  }

  private handle(c: Container): number {
    const id = this.next++;
    this.containers.set(id, c);
    return id;
  }

  container(reference: number): Container | undefined {
    return this.containers.get(reference);
  }

  /** The container of a reference of this stop; an unknown reference, or one of an earlier stop, is an error. */
  require(reference: number): Container {
    const c = this.containers.get(reference);
    if (!c) {
      throw new OcdbError(
        'InvalidInput',
        `variablesReference ${reference} is not a variable of this stop: references last until the next stop.`,
        { path: 'variablesReference' },
      );
    }
    return c;
  }

  /** The value a scope shows for the checkpoint of `ref`. */
  scopeValue(ref: FrameRef, scope: ScopeKind): unknown {
    const cp = this.load(ref);
    switch (scope) {
      case 'checkpoint': {
        const s = ref.view.summaries[ref.index];
        const o: Record<string, unknown> = {
          boundary: cp.boundary,
          stepIndex: cp.stepIndex,
          checkpointIndex: ref.index,
          checkpointId: cp.checkpointId,
          runId: cp.runId,
          time: new Date(cp.createdAt).toISOString(),
        };
        // a live debugger's hold at the stop before (at an after_model_call: before the model was called), apart
        // from the model call's time, named as the Tool Ledger names a tool's
        if (cp.heldMs) o.heldByDebuggerMs = cp.heldMs;
        if (s?.toolName) o.toolName = s.toolName;
        if (cp.toolCallId) o.toolCallId = cp.toolCallId;
        if (cp.model) o.model = cp.model;
        if (cp.promptVersion) o.promptVersion = cp.promptVersion;
        if (cp.finishReason) o.finishReason = cp.finishReason;
        if (cp.usage) o.usage = cp.usage;
        if (cp.systemPrompt !== undefined) o.systemPrompt = cp.systemPrompt;
        const staged = this.staged(ref);
        if (staged && staged.checkpointId === cp.checkpointId) o.stagedContextPatch = staged.contextPatch;
        return o;
      }
      case 'messages':
        return cp.messages;
      case 'runtimeContext': {
        const staged = this.staged(ref);
        return staged && staged.checkpointId === cp.checkpointId
          ? applyContextPatch(cp.runtimeContext, staged.contextPatch)
          : cp.runtimeContext;
      }
      case 'toolLedger': {
        // Mapped on access, like the snapshot itself is read: a page of the ledger costs the page.
        const ledger = cp.toolLedgerSnapshot;
        return lazyList(ledger.length, (i) => ledgerView(ledger[i] as ToolCallRecord));
      }
      case 'artifacts':
        return cp.artifactRefs ?? [];
      case 'pending':
        return this.pending(ref)?.view() ?? {};
      case 'files':
        return this.files(ref) ?? {};
      default: {
        const unreachable: never = scope;
        throw new Error(`unknown scope ${String(unreachable)}`);
      }
    }
  }

  /** The value of a container now: a Pending one is read again (edits since it was handed out show). */
  valueOf(c: Container): unknown {
    if (!c.pendingPath) return c.value;
    let v: unknown = this.pending(c.ref)?.view();
    for (const seg of c.pendingPath) v = (v as Record<PathSegment, unknown> | undefined)?.[seg];
    return v;
  }

  /** The five scopes of a frame; at a live stop, Pending first. */
  scopes(ref: FrameRef): DebugProtocol.Scope[] {
    const pending = this.pending(ref);
    const out: DebugProtocol.Scope[] = [];
    if (pending) {
      const value = pending.view();
      out.push({
        name: SCOPE_NAMES.pending,
        variablesReference: this.handle({ ref, scope: 'pending', value, scopeRoot: true, pendingPath: [] }),
        namedVariables: Object.keys(value).length,
        expensive: false,
        presentationHint: 'locals',
      });
    }
    return out.concat(this.recordedScopes(ref, pending === undefined));
  }

  private recordedScopes(ref: FrameRef, checkpointIsLocals: boolean): DebugProtocol.Scope[] {
    // a coding agent's files come right after the checkpoint: what the user came to check
    const files = this.files(ref);
    const kinds: ScopeKind[] = files ? ['checkpoint', 'files', ...SCOPES.slice(1)] : [...SCOPES];
    return kinds.map((scope) => {
      const value = this.scopeValue(ref, scope);
      const root = scope === 'checkpoint' || scope === 'files' ? '' : scope;
      const c: Container = { ref, scope, value, evaluateName: root === '' ? undefined : root, scopeRoot: true };
      if (scope === 'runtimeContext') c.contextPath = [];
      const out: DebugProtocol.Scope = {
        name: SCOPE_NAMES[scope],
        variablesReference: this.handle(c),
        expensive: false,
      };
      if (Array.isArray(value)) out.indexedVariables = value.length;
      else out.namedVariables = Object.keys(value as object).length;
      if (scope === 'checkpoint' && checkpointIsLocals) out.presentationHint = 'locals';
      return out;
    });
  }

  /** Evaluate-name of a Checkpoint-scope field (`time` is `createdAt` in expressions). */
  private static checkpointFieldExpr(key: string): string | undefined {
    if (key === 'time') return 'createdAt';
    if (key === 'stagedContextPatch' || key === 'heldByDebuggerMs') return undefined;
    return key;
  }

  /** A ledger entry's field as expressions name it: the view's `heldByDebuggerMs` is the record's `heldMs`. */
  private static ledgerFieldExpr(parent: Container, key: PathSegment): PathSegment {
    const entry = parent.scope === 'toolLedger' && /^toolLedger\[\d+\]$/.test(parent.evaluateName ?? '');
    return entry && key === 'heldByDebuggerMs' ? 'heldMs' : key;
  }

  /** A DAP variable for `value` named `name` inside `parent`. */
  toVariable(parent: Container, name: string, key: PathSegment, value: unknown): DebugProtocol.Variable {
    const evaluateName =
      parent.scope === 'checkpoint' && parent.scopeRoot
        ? Variables.checkpointFieldExpr(String(key))
        : childName(parent.evaluateName, Variables.ledgerFieldExpr(parent, key));
    const child: Container = { ref: parent.ref, scope: parent.scope, value, evaluateName };
    if (parent.contextPath) child.contextPath = [...parent.contextPath, key];
    if (parent.pendingPath) child.pendingPath = [...parent.pendingPath, key];
    const v: DebugProtocol.Variable = {
      name,
      value: previewValue(
        value,
        parent.scope === 'messages' || parent.scope === 'toolLedger' || parent.scope === 'files'
          ? parent.scope
          : undefined,
      ),
      variablesReference: 0,
    };
    // VS Code's Variables view offers the file commands (open, changes, restore) on a file of the Files scope
    if (parent.scope === 'files' && parent.scopeRoot && isFileVariable(value))
      (v as FileMenuVariable).__vscodeVariableMenuContext = FILE_VARIABLE_CONTEXT;
    if (evaluateName) v.evaluateName = evaluateName;
    if (typeof value === 'string' && value.length > LONG_STRING) {
      v.variablesReference = this.handle({ ...child, fullText: true });
      v.namedVariables = 1;
    } else if (value !== null && typeof value === 'object') {
      v.variablesReference = this.handle(child);
      if (Array.isArray(value)) v.indexedVariables = value.length;
      else v.namedVariables = Object.keys(value).length;
    }
    v.type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    return v;
  }

  /** The evaluate response of `value`: whole text for copy (clipboard), else a previewed, expandable value. */
  evaluateResult(
    ref: FrameRef,
    expression: string,
    value: unknown,
    context: string | undefined,
  ): DebugProtocol.EvaluateResponse['body'] {
    if (context === 'clipboard') {
      return { result: typeof value === 'string' ? value : JSON.stringify(value, null, 2), variablesReference: 0 };
    }
    const root: Container = { ref, scope: 'runtimeContext', value: undefined };
    const v = this.toVariable(root, expression, expression, value);
    return {
      result: v.value,
      type: v.type,
      variablesReference: v.variablesReference,
      namedVariables: v.namedVariables,
      indexedVariables: v.indexedVariables,
    };
  }

  /**
   * Children of `reference`; arrays honour `start`/`count` (paging, relative to an index range's first item), and
   * `filter` (an array has no named children, an object no indexed ones). An array asked for without `count` and
   * longer than UNPAGED_ITEMS answers index ranges.
   */
  variables(reference: number, start?: number, count?: number, filter?: 'indexed' | 'named'): DebugProtocol.Variable[] {
    const c = this.containers.get(reference);
    if (!c) return [];
    const value = this.valueOf(c);
    if (c.fullText) {
      return filter === 'indexed'
        ? []
        : [{ name: 'text', value: String(value), variablesReference: 0, evaluateName: c.evaluateName }];
    }
    if (Array.isArray(value)) {
      if (filter === 'named') return [];
      const first = c.range?.from ?? 0;
      const end = Math.min(value.length, c.range?.to ?? value.length);
      const from = Math.min(end, first + Math.max(0, start ?? 0));
      if ((count === undefined || count <= 0) && end - from > UNPAGED_ITEMS) return this.ranges(c, from, end);
      const to = count !== undefined && count > 0 ? Math.min(end, from + count) : end;
      const out: DebugProtocol.Variable[] = [];
      for (let i = from; i < to; i++) out.push(this.toVariable(c, String(i), i, value[i]));
      return out;
    }
    if (value !== null && typeof value === 'object') {
      if (filter === 'indexed') return [];
      return Object.entries(value as Record<string, unknown>).map(([k, v]) => this.toVariable(c, k, k, v));
    }
    return [];
  }

  /** Items [from, end) of array container `c` as index ranges of UNPAGED_ITEMS (or a power of it: at most that many). */
  private ranges(c: Container, from: number, end: number): DebugProtocol.Variable[] {
    let size = UNPAGED_ITEMS;
    while (end - from > size * UNPAGED_ITEMS) size *= UNPAGED_ITEMS;
    const out: DebugProtocol.Variable[] = [];
    for (let a = from; a < end; a += size) {
      const b = Math.min(end, a + size);
      out.push({
        name: `[${a} … ${b - 1}]`,
        value: `${b - a} items`,
        variablesReference: this.handle({ ...c, range: { from: a, to: b } }),
        indexedVariables: b - a,
        presentationHint: { kind: 'virtual' },
      });
    }
    return out;
  }
}

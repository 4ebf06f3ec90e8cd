/**
 * Breakpoints over a recorded run and the rule that says where one hits:
 * source breakpoints on transcript lines, function breakpoints on tool names
 * (globs) with conditions over args/result, data breakpoints on
 * runtime-context paths (hit where the value differs from the previous
 * checkpoint), and the exception filters (tool error, irreversible side
 * effect, replay divergence, model stopped for length). Conditions, hit
 * conditions and log messages use the expression language of evaluate.ts.
 * Pure: checkpoints come through `CheckpointAccess`; no store, no DAP.
 */
import {
  HAZARDOUS_LEVELS,
  OcdbError,
  canonicalJson,
  errorMessage,
  type Checkpoint,
  type ToolCallRecord,
} from '../model';
import type { CheckpointSummary } from '../store';
import {
  checkpointState,
  compileExpression,
  evaluateExpression,
  interpolate,
  isTruthy,
  type EvalState,
} from './evaluate';
import { checkpointAtLine, type Transcript } from './transcript';

export const EXCEPTION_FILTERS = [
  { filter: 'toolError', label: 'Tool error', description: 'Stop after a tool call that failed' },
  {
    filter: 'irreversibleSideEffect',
    label: 'Irreversible side effect',
    description: 'Stop before a tool with write or external_irreversible effects runs',
  },
  {
    filter: 'replayDivergence',
    label: 'Replay divergence',
    description: 'Stop where a replayed run diverged from its recording',
  },
  {
    filter: 'modelLength',
    label: 'Model stopped for length',
    description: 'Stop after a model turn that ended because it hit its token limit',
  },
] as const;
export type ExceptionFilter = (typeof EXCEPTION_FILTERS)[number]['filter'];

/** Finish reasons that mean "cut off by the token limit" across providers. */
const LENGTH_REASONS = new Set(['length', 'max_tokens', 'max_output_tokens', 'MAX_TOKENS']);

/** How breakpoints see one run. */
export interface CheckpointAccess {
  runId: string;
  summaries: readonly CheckpointSummary[];
  /** The full checkpoint at `index` (the caller caches). */
  load(index: number): Checkpoint;
  /** A call of the run's whole ledger by id (its final result), read alone: not the ledger up to it. */
  toolCall(toolCallId: string): ToolCallRecord | undefined;
  /** The checkpoint a replay diverged at, when the run records one. */
  divergenceCheckpointId?: string;
  /** What the stop says: "diverged at step 5 · system prompt" (model/divergence.ts), when the run records it. */
  divergenceText?: string;
}

export interface BreakpointOptions {
  condition?: string;
  hitCondition?: string;
  logMessage?: string;
}

export interface BreakpointResult {
  id: number;
  verified: boolean;
  message?: string;
  /** 0-based transcript line (source breakpoints). */
  line?: number;
}

export type StopReason = 'breakpoint' | 'function breakpoint' | 'data breakpoint' | 'exception';

export interface Stop {
  reason: StopReason;
  description: string;
  breakpointIds: number[];
  exception?: { filter: ExceptionFilter; description: string; details?: unknown };
}

interface Armed extends BreakpointOptions {
  id: number;
  hits: number;
  verified: boolean;
}
interface SourceBp extends Armed {
  checkpointIndex: number;
}
interface FunctionBp extends Armed {
  pattern: string;
  matches: (toolName: string) => boolean;
}
interface DataBp extends Armed {
  path: string;
}

/**
 * Whether `text` matches the `*` / `?` glob as a whole. Greedy with one resume point (the last `*` seen), never a
 * regular expression: at most glob × text steps, so a pattern of many `*` cannot backtrack exponentially and hang
 * the adapter (a function breakpoint's name is typed by the user, or sent by any DAP client).
 */
export function globMatches(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const c = glob[g];
    if (c === '*') {
      star = g++;
      resume = t;
    } else if (g < glob.length && (c === '?' || c === text[t])) {
      g++;
      t++;
    } else if (star >= 0) {
      g = star + 1;
      t = ++resume;
    } else return false;
  }
  while (glob[g] === '*') g++;
  return g === glob.length;
}

/**
 * Whether the `hits`-th hit satisfies `hitCondition`: `5` or `==5` (exactly
 * the 5th), `>=5`, `>5`, `<5`, `<=5`, `%5` (every 5th).
 */
export function hitConditionMet(hitCondition: string, hits: number): boolean {
  const m = /^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$/.exec(hitCondition);
  if (!m) {
    throw new OcdbError(
      'InvalidInput',
      `Hit condition \`${hitCondition}\`: expected a count such as 3, >=3, >3, <3, <=3 or %3.`,
      { path: 'hitCondition' },
    );
  }
  const n = Number(m[2]);
  switch (m[1] ?? '==') {
    case '==':
      return hits === n;
    case '>=':
      return hits >= n;
    case '<=':
      return hits <= n;
    case '>':
      return hits > n;
    case '<':
      return hits < n;
    default:
      return n > 0 && hits % n === 0;
  }
}

/** Value at a dotted path (`user.roleId`, `task.stepStates.plan`) of a runtime context. */
export function valueAtPath(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const key of path.split('.').filter((k) => k.length > 0)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Strips an optional `runtimeContext.` prefix: data breakpoints are always on the runtime context. */
export function contextPath(dataId: string): string {
  return dataId.replace(/^runtimeContext\.?/, '');
}

function validate(options: BreakpointOptions): string | undefined {
  try {
    if (options.condition) compileExpression(options.condition);
    if (options.hitCondition) hitConditionMet(options.hitCondition, 0);
    if (options.logMessage) {
      for (const m of options.logMessage.matchAll(/\{([^{}]+)\}/g)) compileExpression(m[1] as string);
    }
    return undefined;
  } catch (e) {
    return errorMessage(e);
  }
}

export class BreakpointSet {
  private nextId = 1;
  private readonly source = new Map<string, SourceBp[]>();
  private functions: FunctionBp[] = [];
  private data: DataBp[] = [];
  private filters = new Set<ExceptionFilter>();

  private arm(options: BreakpointOptions): Armed {
    return { ...options, id: this.nextId++, hits: 0, verified: true };
  }

  /** Replaces the source breakpoints of `runId`'s transcript; lines are 0-based. */
  setSourceBreakpoints(
    runId: string,
    transcript: Pick<Transcript, 'lines'>,
    specs: readonly (BreakpointOptions & { line: number })[],
  ) {
    const armed: SourceBp[] = [];
    const results: BreakpointResult[] = specs.map((spec) => {
      const bp = this.arm(spec);
      const at = checkpointAtLine(transcript, spec.line);
      const problem = validate(spec);
      if (!at || problem) {
        return {
          id: bp.id,
          verified: false,
          line: spec.line,
          message: problem ?? `Line ${spec.line + 1} has no checkpoint: put breakpoints on lines starting with [n].`,
        };
      }
      armed.push({ ...bp, checkpointIndex: at.checkpointIndex });
      return { id: bp.id, verified: true, line: at.line };
    });
    this.source.set(runId, armed);
    return results;
  }

  /**
   * Replaces the function breakpoints (tool-name globs); `toolNames` are the names the run calls (undefined: not
   * known yet, a live run that may call any tool — every breakpoint is verified).
   */
  setFunctionBreakpoints(
    specs: readonly (BreakpointOptions & { name: string })[],
    toolNames: ReadonlySet<string> | undefined,
  ): BreakpointResult[] {
    this.functions = [];
    return specs.map((spec) => {
      const glob = spec.name.trim();
      const bp: FunctionBp = { ...this.arm(spec), pattern: spec.name, matches: (name) => globMatches(glob, name) };
      const problem = validate(spec);
      if (problem) return { id: bp.id, verified: false, message: problem };
      this.functions.push(bp);
      if (toolNames === undefined) return { id: bp.id, verified: true };
      const matches = [...toolNames].some((n) => bp.matches(n));
      return matches
        ? { id: bp.id, verified: true }
        : {
            id: bp.id,
            verified: false,
            message: `The run never calls a tool matching \`${spec.name}\` (it calls ${[...toolNames].sort().join(', ') || 'no tools'}).`,
          };
    });
  }

  /** Replaces the data breakpoints; each `dataId` is a runtime-context path. */
  setDataBreakpoints(specs: readonly (BreakpointOptions & { dataId: string })[]): BreakpointResult[] {
    this.data = [];
    return specs.map((spec) => {
      const bp: DataBp = { ...this.arm(spec), path: contextPath(spec.dataId) };
      const problem =
        validate(spec) ?? (bp.path === '' ? 'A data breakpoint needs a runtime-context path.' : undefined);
      if (problem) return { id: bp.id, verified: false, message: problem };
      this.data.push(bp);
      return { id: bp.id, verified: true };
    });
  }

  setExceptionFilters(filters: readonly string[]): void {
    const known = new Set<string>(EXCEPTION_FILTERS.map((f) => f.filter));
    const unknown = filters.filter((f) => !known.has(f));
    if (unknown.length > 0) {
      throw new OcdbError(
        'InvalidInput',
        `Unknown exception filter ${unknown.join(', ')}; known: ${[...known].join(', ')}.`,
        { path: 'filters' },
      );
    }
    this.filters = new Set(filters as ExceptionFilter[]);
  }

  /** True when no breakpoint of any kind is set (continue can jump straight to the end). */
  get isEmpty(): boolean {
    let sources = 0;
    for (const list of this.source.values()) sources += list.length;
    return sources === 0 && this.functions.length === 0 && this.data.length === 0 && this.filters.size === 0;
  }

  /**
   * Checks the checkpoint at `index`: returns the stop it causes (if any) and
   * the log-point messages it prints. Counts hits of breakpoints whose
   * condition holds.
   */
  check(access: CheckpointAccess, index: number): { stop?: Stop; logs: string[] } {
    const summary = access.summaries[index] as CheckpointSummary;
    const logs: string[] = [];
    let state: EvalState | undefined;
    const stateOf = (): EvalState =>
      (state ??= checkpointState(access.load(index), index, (id) => access.toolCall(id)));
    const hit: { bp: Armed; reason: StopReason; description: string }[] = [];
    const consider = (bp: Armed, reason: StopReason, description: string) => {
      if (bp.condition && !isTruthy(safeEval(bp.condition, stateOf()))) return;
      bp.hits++;
      if (bp.hitCondition && !hitConditionMet(bp.hitCondition, bp.hits)) return;
      if (bp.logMessage) logs.push(interpolate(bp.logMessage, stateOf()));
      else hit.push({ bp, reason, description });
    };

    for (const bp of this.source.get(access.runId) ?? []) {
      if (bp.checkpointIndex === index) consider(bp, 'breakpoint', `Breakpoint at [${index}] ${summary.boundary}`);
    }
    if (summary.boundary === 'before_tool_call' && summary.toolName) {
      for (const bp of this.functions) {
        if (bp.matches(summary.toolName)) consider(bp, 'function breakpoint', `Tool ${summary.toolName}`);
      }
    }
    if (this.data.length > 0 && index > 0) {
      const now = access.load(index).runtimeContext;
      const before = access.load(index - 1).runtimeContext;
      for (const bp of this.data) {
        const a = valueAtPath(before, bp.path);
        const b = valueAtPath(now, bp.path);
        if (canonicalJson(a ?? null) !== canonicalJson(b ?? null)) {
          consider(bp, 'data breakpoint', `runtimeContext.${bp.path} changed: ${short(a)} → ${short(b)}`);
        }
      }
    }
    const first = hit[0];
    if (first) {
      return {
        logs,
        stop: { reason: first.reason, description: first.description, breakpointIds: hit.map((h) => h.bp.id) },
      };
    }
    const exception = this.exceptionAt(access, index);
    return exception ? { logs, stop: { ...exception, breakpointIds: [] } } : { logs };
  }

  private exceptionAt(access: CheckpointAccess, index: number): Omit<Stop, 'breakpointIds'> | undefined {
    if (this.filters.size === 0) return undefined;
    const s = access.summaries[index] as CheckpointSummary;
    const call = s.toolCallId ? access.toolCall(s.toolCallId) : undefined;
    const make = (filter: ExceptionFilter, description: string, details?: unknown) => ({
      reason: 'exception' as const,
      description,
      exception: { filter, description, details },
    });
    if (this.filters.has('toolError') && s.boundary === 'after_tool_call' && call?.error !== undefined) {
      return make('toolError', `Tool ${call.toolName} failed: ${short(call.error)}`, call.error);
    }
    if (
      this.filters.has('irreversibleSideEffect') &&
      s.boundary === 'before_tool_call' &&
      call &&
      HAZARDOUS_LEVELS.has(call.sideEffectLevel)
    ) {
      return make('irreversibleSideEffect', `Tool ${call.toolName} (${call.sideEffectLevel}) is about to run`, {
        args: call.args,
        replayPolicy: call.replayPolicy,
      });
    }
    if (this.filters.has('replayDivergence') && access.divergenceCheckpointId === s.checkpointId) {
      const what = access.divergenceText ?? 'diverged from its recording';
      return make('replayDivergence', `The run ${what} ([${index}] ${s.boundary})`);
    }
    if (
      this.filters.has('modelLength') &&
      s.boundary === 'after_model_call' &&
      LENGTH_REASONS.has(s.finishReason ?? '')
    ) {
      return make('modelLength', `The model stopped for length (finish reason ${s.finishReason})`);
    }
    return undefined;
  }
}

function safeEval(expression: string, state: EvalState): unknown {
  try {
    return evaluateExpression(expression, state);
  } catch {
    return false; // a condition that cannot be evaluated here (e.g. a type error) does not stop
  }
}

function short(v: unknown): string {
  const text = v === undefined ? 'undefined' : (JSON.stringify(v) ?? String(v));
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * The checkpoint where a replay diverged, as far as the store tells. The fork
 * runner stores a failed run's error as `{ code: 'diverged', message,
 * divergence: { stepIndex, sourceCheckpointId, ... } }` (an OcdbError
 * `Diverged` turned into JSON); `metadata.divergence` of the same shape is
 * read too (a run that went on with a real model). The place is the
 * checkpoint named by id when this run has it (`forkCheckpointId`: the
 * fork's own prompt checkpoint), else this run's last
 * before_model_call of the divergent step (the prompt that differed), else
 * its last checkpoint.
 */
export function divergenceCheckpointId(
  run: { error?: unknown; metadata: Record<string, unknown> },
  summaries: readonly CheckpointSummary[],
): string | undefined {
  const rec = (v: unknown): Record<string, unknown> | undefined =>
    typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  const err = rec(run.error);
  const code = typeof err?.code === 'string' ? err.code.toLowerCase() : undefined;
  const fromError = code === 'diverged' || err?.name === 'Diverged';
  const where =
    (fromError ? (rec(err?.divergence) ?? rec(rec(err?.details)?.divergence) ?? err) : undefined) ??
    rec(run.metadata.divergence);
  if (!where) return undefined;
  const ids = [where.forkCheckpointId, where.checkpointId, where.sourceCheckpointId].filter(
    (c): c is string => typeof c === 'string',
  );
  const own = ids.find((id) => summaries.some((s) => s.checkpointId === id));
  if (own) return own;
  const step = typeof where.stepIndex === 'number' ? where.stepIndex : undefined;
  const calls = summaries.filter((s) => s.boundary === 'before_model_call');
  const atStep = step === undefined ? undefined : calls.filter((s) => s.stepIndex === step).at(-1);
  return (atStep ?? calls.at(-1) ?? summaries.at(-1))?.checkpointId;
}

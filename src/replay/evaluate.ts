/**
 * The safe expression language of the debugger (watch, repl, hover,
 * breakpoint conditions, log points): JMESPath (the JMESPath Community
 * edition, which has negative indexes, comparisons, `&&` `||` `!`,
 * `contains()` and custom functions) over the state of one checkpoint, plus
 * a `tool()` function and two conveniences for people who write conditions
 * the way they write code: bare numbers (`usage.outputTokens > 100`) and
 * double-quoted strings (`user.roleId == "auditor"`) are literals. Nothing is
 * ever run with JS eval. Pure: no I/O, no DAP.
 */
import * as jmespath from '@jmespath-community/jmespath';
import { OcdbError, errorMessage, type Checkpoint, type ToolCallRecord } from '../model';

/** JSON as the evaluator sees it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What an expression sees: the fields of the checkpoint plus derived ones. */
export interface EvalState {
  runId: string;
  checkpointId: string;
  checkpointIndex: number;
  boundary: string;
  stepIndex: number;
  messages: unknown[];
  runtimeContext: unknown;
  toolLedger: ToolCallRecord[];
  systemPrompt: string | null;
  model: unknown;
  promptVersion: string | null;
  finishReason: string | null;
  usage: unknown;
  artifacts: unknown[];
  createdAt: number;
  toolCallId: string | null;
  /** The tool call of a tool boundary (from the run's full ledger, so `result` is known before the call). */
  toolCall: ToolCallRecord | null;
  toolName: string | null;
  args: unknown;
  result: unknown;
  error: unknown;
}

/**
 * Builds the evaluation state of `cp`. `runCall` finds a call of the run's whole ledger by id: a before_tool_call
 * checkpoint's own call is looked up there so conditions may test its result (the recording knows it).
 */
export function checkpointState(
  cp: Checkpoint,
  index: number,
  runCall?: (toolCallId: string) => ToolCallRecord | undefined,
): EvalState {
  const own = cp.toolCallId
    ? (runCall?.(cp.toolCallId) ?? cp.toolLedgerSnapshot.find((t) => t.toolCallId === cp.toolCallId))
    : undefined;
  return {
    runId: cp.runId,
    checkpointId: cp.checkpointId,
    checkpointIndex: index,
    boundary: cp.boundary,
    stepIndex: cp.stepIndex,
    messages: cp.messages,
    runtimeContext: cp.runtimeContext,
    toolLedger: cp.toolLedgerSnapshot,
    systemPrompt: cp.systemPrompt ?? null,
    model: cp.model ?? null,
    promptVersion: cp.promptVersion ?? null,
    finishReason: cp.finishReason ?? null,
    usage: cp.usage ?? null,
    artifacts: cp.artifactRefs ?? [],
    createdAt: cp.createdAt,
    toolCallId: cp.toolCallId ?? null,
    toolCall: own ?? null,
    toolName: own?.toolName ?? null,
    args: own?.args ?? null,
    result: own?.result ?? null,
    error: own?.error ?? null,
  };
}

/** A run's calls by id, and the latest of a tool name (RunView: each record read alone). */
export interface ToolCallLookup {
  toolCall(toolCallId: string): ToolCallRecord | undefined;
  lastCallOf(toolName: string): ToolCallRecord | undefined;
}

/** The ledger `tool()` reads during one (synchronous) search, built on first use. */
let activeLedger: () => readonly ToolCallRecord[] = () => [];

/** A call by id, else the latest call of that tool name, else undefined. */
export function findToolCall(ledger: readonly ToolCallRecord[], nameOrId: string): ToolCallRecord | undefined {
  const byId = ledger.find((t) => t.toolCallId === nameOrId);
  if (byId) return byId;
  for (let i = ledger.length - 1; i >= 0; i--) if (ledger[i]?.toolName === nameOrId) return ledger[i];
  return undefined;
}

function ensureToolFunction(): void {
  if (jmespath.isRegistered('tool')) return;
  jmespath.registerFunction(
    'tool',
    (resolved) => {
      const key = resolved[0];
      const found = typeof key === 'string' ? findToolCall(activeLedger(), key) : undefined;
      return (found ?? null) as unknown as JsonValue;
    },
    [{ types: [jmespath.TYPE_STRING] }],
  );
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function prevNonSpace(src: string, i: number): string {
  for (let k = i - 1; k >= 0; k--) if (!/\s/.test(src[k] as string)) return src[k] as string;
  return '';
}
function nextNonSpace(src: string, i: number): string {
  for (let k = i; k < src.length; k++) if (!/\s/.test(src[k] as string)) return src[k] as string;
  return '';
}

/**
 * Rewrites the two conveniences into standard JMESPath: a bare number that is
 * not an index or slice bound becomes a JSON literal, and a double-quoted text
 * that is not part of a path (no `.` before it, no `.`/`[` after it) becomes a
 * string literal. Quoted regions are copied untouched.
 */
export function desugar(expression: string): string {
  let out = '';
  let i = 0;
  while (i < expression.length) {
    const ch = expression[i] as string;
    if (ch === "'" || ch === '`' || ch === '"') {
      let j = i + 1;
      while (j < expression.length && expression[j] !== ch) j += expression[j] === '\\' ? 2 : 1;
      const quoted = expression.slice(i, j + 1);
      const isPathPart = prevNonSpace(expression, i) === '.' || ['.', '['].includes(nextNonSpace(expression, j + 1));
      out += ch === '"' && !isPathPart ? '`' + quoted.replace(/`/g, '\\`') + '`' : quoted;
      i = j + 1;
      continue;
    }
    const before = expression[i - 1] ?? '';
    if (/[-\d]/.test(ch) && !/[\w$]/.test(before)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(expression);
      const prev = prevNonSpace(expression, i);
      if (m) {
        const literal = !['[', ':'].includes(prev) && !/[\w$]/.test(expression[i + m[0].length] ?? '');
        out += literal ? '`' + m[0] + '`' : m[0];
        i += m[0].length;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}

/** Checks that `expression` parses; throws InvalidInput naming the problem. */
export function compileExpression(expression: string): void {
  try {
    jmespath.compile(desugar(expression));
  } catch (e) {
    throw new OcdbError('InvalidInput', `Expression \`${expression}\`: ${errorMessage(e)}`, {
      path: 'expression',
      expression,
    });
  }
}

/**
 * The calls `tool()` looks in: the checkpoint's ledger, with a tool boundary's own call in it (at its
 * before_tool_call the snapshot does not hold it yet, or holds it unanswered) — so `tool("issue_refund")` at that
 * call's own before_tool_call is that call, as `toolCall` is.
 */
function ledgerOf(state: EvalState): readonly ToolCallRecord[] {
  const own = state.toolCall;
  if (!own) return state.toolLedger;
  return [...state.toolLedger.filter((t) => t.toolCallId !== own.toolCallId), own];
}

/** `messages.length`, `toolLedger[0].args.items.length`: the path before a final `.length`. */
const LENGTH_PROPERTY = /^\s*(.+?)\s*\.\s*length\s*$/s;

/**
 * JMESPath has no `.length` property: `messages.length` is null. When the path before it is an array, a string or
 * an object, say so and name the function that counts it.
 */
function lengthHint(expression: string, state: EvalState): void {
  const m = LENGTH_PROPERTY.exec(expression);
  const base = m?.[1];
  if (!base) return;
  let value: unknown;
  try {
    value = jmespath.search(state as unknown as JsonValue, desugar(base));
  } catch {
    return;
  }
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) return;
  if (!Array.isArray(value) && typeof value === 'object' && 'length' in value) return; // a key of its own
  const what = Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : 'an object';
  throw new OcdbError(
    'InvalidInput',
    `Expression \`${expression}\`: ${base} is ${what} and has no .length property here (JMESPath); write length(${base}).`,
    { path: 'expression', expression, hint: `length(${base})` },
  );
}

/** Evaluates `expression` over `state`; syntax and type errors become InvalidInput. */
export function evaluateExpression(expression: string, state: EvalState): unknown {
  ensureToolFunction();
  const previous = activeLedger;
  // read only when tool() is called: a condition that does not call it never reads the ledger
  activeLedger = () => ledgerOf(state);
  try {
    const value = jmespath.search(state as unknown as JsonValue, desugar(expression));
    if (value === null) lengthHint(expression, state);
    return value;
  } catch (e) {
    if (e instanceof OcdbError) throw e;
    throw new OcdbError('InvalidInput', `Expression \`${expression}\`: ${errorMessage(e)}`, {
      path: 'expression',
      expression,
    });
  } finally {
    activeLedger = previous;
  }
}

/** JMESPath truthiness: false, null, '', [] and {} are false; everything else is true. */
export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/**
 * What hovering `word` shows, if it names a tool call: a tool call id or a
 * tool name of the ledger evaluates to that call's result (or its error).
 */
export function hoverToolResult(word: string, calls: ToolCallLookup): { found: boolean; value?: unknown } {
  const key = word.trim();
  const call = calls.toolCall(key) ?? calls.lastCallOf(key);
  if (!call) return { found: false };
  return { found: true, value: call.error !== undefined ? { error: call.error } : call.result };
}

/** Interpolates `{expression}` parts of a log message; a failing part shows its error in place. */
export function interpolate(message: string, state: EvalState): string {
  return message.replace(/\{([^{}]+)\}/g, (_m, expr: string) => {
    try {
      const v = evaluateExpression(expr, state);
      return typeof v === 'string' ? v : JSON.stringify(v);
    } catch (e) {
      return `<${errorMessage(e)}>`;
    }
  });
}

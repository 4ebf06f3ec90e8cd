/**
 * The MCP tool `search_run`: finds where in a run a text appears — in the messages (each at the checkpoint that
 * added it), the tool calls (name, arguments, result, error) and the runtime context (where it changed) — or
 * where a debugger expression is true (as a conditional breakpoint would stop). Scans a window of checkpoints per
 * call and says where the next call goes on, so a 20,000-checkpoint run is searched in bounded steps; a message
 * is read once, where it was added (the store knows which messages two checkpoints share). Read-only.
 */
import { z } from 'zod';
import { OcdbError, canonicalJson, messageText, type Message } from '../model';
import { compileExpression, isTruthy } from '../replay/evaluate';
import type { CheckpointSummary, RunStore } from '../store';
import { fitItems, type ClipReport } from './bounded';
import { checkpointRange, expressionAt } from './checkpointTools';
import { defineTool } from './toolContext';

const SCOPES = ['messages', 'tools', 'context'] as const;
type Scope = (typeof SCOPES)[number];

const SearchRunInput = z
  .object({
    runId: z.string().min(1).describe('The run id.'),
    text: z.string().min(1).max(200).optional().describe('Case-insensitive text to find.'),
    expression: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe(
        'Instead of text: a debugger expression true at the checkpoints to find, e.g. toolName == "issue_refund" && args.amount > 100, or runtimeContext.user.roleId == "auditor".',
      ),
    in: z
      .array(z.enum(SCOPES))
      .min(1)
      .optional()
      .describe('With text: where to look (default all): messages, tools (name, args, result, error), context.'),
    offset: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Checkpoint index the scan starts at: the nextOffset of a page.'),
    scan: z
      .number()
      .int()
      .min(1)
      .max(20_000)
      .default(2_000)
      .describe('Checkpoints scanned by this call at most (about a thousand a second).'),
    limit: z.number().int().min(1).max(50).default(20).describe('Hits per answer.'),
  })
  .strict();

/** Around the first match of `needle` (lower case) in `text`: an excerpt of ~200 characters. */
export function excerptAround(text: string, needle: string): string | undefined {
  const at = text.toLowerCase().indexOf(needle);
  if (at < 0) return undefined;
  const from = Math.max(0, at - 80);
  const to = Math.min(text.length, at + needle.length + 120);
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}

/** The first dotted path of `value` whose key or scalar value holds `needle` (lower case). */
function pathOf(value: unknown, needle: string): string | undefined {
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '' }];
  while (stack.length > 0) {
    const { v, path } = stack.pop() as { v: unknown; path: string };
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v).reverse();
      for (const [k, child] of entries) {
        const p = Array.isArray(v) ? `${path}[${k}]` : path === '' ? k : `${path}.${k}`;
        if (!Array.isArray(v) && k.toLowerCase().includes(needle)) return p;
        stack.push({ v: child, path: p });
      }
    } else if (String(v).toLowerCase().includes(needle)) return path;
  }
  return undefined;
}

function hitAt(s: CheckpointSummary, extra: Record<string, unknown>): Record<string, unknown> {
  return { checkpointIndex: s.index, checkpointId: s.checkpointId, step: s.stepIndex, boundary: s.boundary, ...extra };
}

/** Text hits of one checkpoint: the messages it added, its tool call, its context when it changed. */
function textHits(
  store: RunStore,
  runId: string,
  s: CheckpointSummary,
  shared: number,
  needle: string,
  scopes: ReadonlySet<Scope>,
  contextSeen: { text?: string },
): Record<string, unknown>[] {
  const hits: Record<string, unknown>[] = [];
  const needView = (scopes.has('messages') && s.messageCount > shared) || scopes.has('context');
  const cp = needView ? store.getCheckpointView(s.checkpointId) : undefined;
  if (cp && scopes.has('messages')) {
    for (let i = shared; i < cp.messages.length; i++) {
      const m = cp.messages[i] as Message;
      const text = `${messageText(m)}${typeof m.content === 'string' ? '' : `\n${JSON.stringify(m.content)}`}`;
      const excerpt = excerptAround(text, needle);
      if (excerpt !== undefined) hits.push(hitAt(s, { where: `message ${i} (${m.role})`, excerpt }));
    }
  }
  if (scopes.has('tools') && s.boundary === 'before_tool_call' && s.toolCallId !== undefined) {
    const call = store.getToolCall(runId, s.toolCallId);
    for (const [part, value] of [
      ['toolName', call.toolName],
      ['args', call.args],
      ['result', call.result],
      ['error', call.error],
    ] as const) {
      if (value === undefined) continue;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      const excerpt = excerptAround(text, needle);
      if (excerpt !== undefined) {
        hits.push(hitAt(s, { where: `tool call ${call.toolCallId} (${call.toolName}) ${part}`, excerpt }));
      }
    }
  }
  if (cp && scopes.has('context')) {
    const text = canonicalJson(cp.runtimeContext);
    if (text !== contextSeen.text) {
      contextSeen.text = text;
      const path = pathOf(cp.runtimeContext, needle);
      if (path !== undefined) {
        hits.push(hitAt(s, { where: `runtimeContext.${path}`, excerpt: excerptAround(text, needle) }));
      }
    }
  }
  return hits;
}

export const searchRunTool = defineTool({
  name: 'search_run',
  title: 'Search a run',
  description:
    'Finds where a text appears in a run — the messages (at the checkpoint that added each), the tool calls (name, arguments, result, error) and the runtime context (where it changed) — or the checkpoints where a debugger expression is true. Each hit names its checkpoint index and id, step and boundary. Scans `scan` checkpoints per call; nextOffset says where to go on.',
  input: SearchRunInput,
  readOnly: true,
  run(ctx, args) {
    if ((args.text === undefined) === (args.expression === undefined)) {
      throw new OcdbError('InvalidInput', 'search_run: give either text or expression (one of them).', {
        path: args.text === undefined ? 'text' : 'expression',
      });
    }
    if (args.expression !== undefined) compileExpression(args.expression);
    const store = ctx.store();
    const total = store.getRun(args.runId).checkpointCount;
    const withPrevious = checkpointRange(
      store,
      args.runId,
      Math.max(0, args.offset - 1),
      args.scan + (args.offset > 0 ? 1 : 0),
    );
    let previous = args.offset > 0 ? withPrevious[0] : undefined;
    const window = args.offset > 0 ? withPrevious.slice(1) : withPrevious;
    const scopes = new Set<Scope>(args.in ?? SCOPES);
    const needle = args.text?.toLowerCase();
    const report: ClipReport = { clipped: false };
    const hits: Record<string, unknown>[] = [];
    const contextSeen: { text?: string } = {};
    let scannedTo = args.offset;
    for (const s of window) {
      if (needle !== undefined) {
        const shared =
          previous && scopes.has('messages') ? store.sharedMessageCount(previous.checkpointId, s.checkpointId) : 0;
        hits.push(...textHits(store, args.runId, s, shared, needle, scopes, contextSeen));
      } else if (args.expression !== undefined) {
        const cp = store.getCheckpointView(s.checkpointId);
        const value = expressionAt(store, cp, s.index, args.expression, report);
        if (isTruthy(value)) hits.push(hitAt(s, { value }));
      }
      previous = s;
      scannedTo = s.index + 1;
      if (hits.length >= args.limit) break;
    }
    const fitted = fitItems(hits, 0, ctx.maxChars - 1_500, report);
    // hits that did not fit: go on from the checkpoint of the first one left out
    const leftOut = hits[fitted.items.length] as { checkpointIndex?: number } | undefined;
    const nextOffset = leftOut?.checkpointIndex ?? (scannedTo < total ? scannedTo : undefined);
    if (nextOffset !== undefined) report.clipped = true;
    return {
      body: {
        runId: args.runId,
        hits: fitted.items,
        scanned: { fromIndex: args.offset, toIndex: (leftOut?.checkpointIndex ?? scannedTo) - 1, checkpoints: total },
        ...(nextOffset !== undefined ? { nextOffset } : {}),
        next: 'read_checkpoints {runId, offset: <checkpointIndex>, limit: 1, detail: "state"} shows a hit whole.',
      },
      report,
      ...(nextOffset !== undefined
        ? { hint: `Call search_run again with offset ${nextOffset} to go on searching from there.` }
        : {}),
    };
  },
});

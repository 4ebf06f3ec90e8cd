/**
 * The MCP tool that reads checkpoints: `read_checkpoints` — a range of a run's checkpoints as facts, or as state
 * (system prompt, context, the messages each added, the tool call of a tool boundary), optionally with the value
 * of a debugger expression at each. Reads each checkpoint's view (messages read item by item), so a page of a
 * 20,000-checkpoint run costs the page. Read-only.
 */
import { z } from 'zod';
import { OcdbError, type Checkpoint, type Message, type ToolCallRecord } from '../model';
import { checkpointState, compileExpression, evaluateExpression } from '../replay/evaluate';
import type { CheckpointSummary, RunStore } from '../store';
import { DEFAULT_CLIP, SMALL_CLIP, clip, fitItems, type ClipLimits, type ClipReport } from './bounded';
import { callLine, checkpointLine } from './shapes';
import { defineTool } from './toolContext';

const STATE_CLIP: ClipLimits = { maxString: 1_500, maxItems: 30, maxDepth: 6 };
/** Messages a checkpoint's state shows by default: those it added, at most this many (the newest). */
const NEW_MESSAGES = 8;

/** The index of `checkpointId` in `runId` (CheckpointNotFound, saying where to look, otherwise). */
export function checkpointIndexOf(store: RunStore, runId: string, checkpointId: string): number {
  const s = store.getCheckpointSummary(checkpointId);
  if (s.runId !== runId) {
    throw new OcdbError('CheckpointNotFound', `Checkpoint ${checkpointId} belongs to run ${s.runId}, not ${runId}.`, {
      runId,
      checkpointId,
      path: 'checkpointId',
    });
  }
  return s.index;
}

/** The summaries of `[offset, offset + limit)`; CheckpointNotFound naming the run's range when none is there. */
export function checkpointRange(store: RunStore, runId: string, offset: number, limit: number): CheckpointSummary[] {
  const run = store.getRun(runId);
  const list = store.listCheckpoints(runId, { offset, limit });
  if (list.length === 0 && run.checkpointCount > 0) {
    throw new OcdbError(
      'CheckpointNotFound',
      `Run ${runId} has ${run.checkpointCount} checkpoints (indexes 0-${run.checkpointCount - 1}); offset ${offset} is past its end.`,
      { runId, path: 'offset' },
    );
  }
  return list;
}

function messageLine(m: Message, index: number, report: ClipReport): Record<string, unknown> {
  return {
    index,
    role: m.role,
    ...(m.toolName !== undefined ? { toolName: m.toolName } : {}),
    ...(m.toolCallId !== undefined ? { toolCallId: m.toolCallId } : {}),
    content: clip(m.content, DEFAULT_CLIP, report),
  };
}

/** The messages `[from, to)` of a checkpoint's conversation (read item by item). */
function messagePage(cp: Checkpoint, from: number, to: number, report: ClipReport): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = Math.max(0, from); i < Math.min(to, cp.messages.length); i++) {
    out.push(messageLine(cp.messages[i] as Message, i, report));
  }
  return out;
}

export interface StateOptions {
  /** Messages before this checkpoint (the previous checkpoint's count): those after it are "new". */
  previousMessageCount: number;
  messageOffset?: number;
  messageLimit?: number;
  expression?: string;
  /** How much of the expression's value is shown. */
  valueLimits?: ClipLimits;
}

/** One checkpoint as state: facts, prompt, context, the messages it added (or a page), its tool call. */
export function checkpointStateBody(
  store: RunStore,
  summary: CheckpointSummary,
  options: StateOptions,
  report: ClipReport,
): Record<string, unknown> {
  const cp = store.getCheckpointView(summary.checkpointId);
  const total = cp.messages.length;
  let messages: Record<string, unknown>;
  if (options.messageOffset !== undefined) {
    const limit = options.messageLimit ?? 20;
    const items = messagePage(cp, options.messageOffset, options.messageOffset + limit, report);
    const next = options.messageOffset + items.length;
    if (next < total) report.clipped = true;
    messages = { total, offset: options.messageOffset, items, ...(next < total ? { nextMessageOffset: next } : {}) };
  } else {
    // a conversation that shrank (compaction) starts again: show its newest messages
    const from = options.previousMessageCount <= total ? options.previousMessageCount : 0;
    const shownFrom = Math.max(from, total - NEW_MESSAGES);
    if (shownFrom > from) report.clipped = true;
    messages = {
      total,
      new: total - from,
      items: messagePage(cp, shownFrom, total, report),
      ...(shownFrom > from ? { earlierNew: `${shownFrom - from} more new messages: pass messageOffset ${from}` } : {}),
    };
  }
  let call: ToolCallRecord | undefined;
  if (cp.toolCallId !== undefined) {
    try {
      call = store.getToolCall(cp.runId, cp.toolCallId);
    } catch {
      call = cp.toolLedgerSnapshot.find((t) => t.toolCallId === cp.toolCallId);
    }
  }
  const body: Record<string, unknown> = {
    ...checkpointLine(summary),
    ...(cp.model ? { model: cp.model } : {}),
    ...(cp.promptVersion !== undefined ? { promptVersion: cp.promptVersion } : {}),
    ...(cp.systemPrompt !== undefined ? { systemPrompt: clip(cp.systemPrompt, STATE_CLIP, report) } : {}),
    runtimeContext: clip(cp.runtimeContext, STATE_CLIP, report),
    messages,
    ...(call
      ? { toolCall: callLine(call, { index: summary.index, step: summary.stepIndex }, report, DEFAULT_CLIP) }
      : {}),
    ledgerSize: cp.toolLedgerSnapshot.length,
    ...(cp.artifactRefs && cp.artifactRefs.length > 0
      ? {
          artifacts: cp.artifactRefs
            .slice(0, 20)
            .map((a) => ({ name: a.artifactId, version: a.version, type: a.type })),
        }
      : {}),
  };
  if (options.expression !== undefined) {
    body.value = expressionAt(store, cp, summary.index, options.expression, report, options.valueLimits);
  }
  return body;
}

/** The value of a debugger expression at one checkpoint (the run's calls looked up by id for `tool()`). */
export function expressionAt(
  store: RunStore,
  cp: Checkpoint,
  index: number,
  expression: string,
  report: ClipReport,
  limits: ClipLimits = SMALL_CLIP,
): unknown {
  const lookup = (id: string): ToolCallRecord | undefined => {
    try {
      return store.getToolCall(cp.runId, id);
    } catch {
      return undefined;
    }
  };
  return clip(evaluateExpression(expression, checkpointState(cp, index, lookup)) ?? null, limits, report);
}

const ReadCheckpointsInput = z
  .object({
    runId: z.string().min(1).describe('The run id.'),
    offset: z.number().int().min(0).optional().describe('Index of the first checkpoint (0-based; default 0).'),
    checkpointId: z.string().min(1).optional().describe('Start at this checkpoint id instead of an index.'),
    limit: z.number().int().min(1).max(50).default(10).describe('Checkpoints to read.'),
    detail: z
      .enum(['summary', 'state'])
      .default('summary')
      .describe(
        "summary: boundary, step, tool, tokens, message count, a live debugger's hold. state: also the system prompt, runtime context, the messages the checkpoint added and its tool call (args, result, error).",
      ),
    expression: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe(
        'A debugger expression (JMESPath over the checkpoint: runtimeContext.user.roleId, toolName, args, result, tool("name"), length(messages)) evaluated at each checkpoint.',
      ),
    messageOffset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('detail "state": show the conversation from this message index instead of the new messages only.'),
    messageLimit: z.number().int().min(1).max(50).optional().describe('With messageOffset: messages to show.'),
  })
  .strict();

export const readCheckpointsTool = defineTool({
  name: 'read_checkpoints',
  title: 'Read checkpoints',
  description:
    'Reads a range of a run\'s checkpoints (the states recorded before/after each prompt, model call and tool call): index, checkpoint id, step, boundary, tool, tokens, and heldByDebuggerMs where a live debugger held the agent at the stop before (at an after_model_call: before the model was called; not the model\'s time); with detail "state" also the system prompt, runtime context, the messages each added and the tool call with its arguments and result. Optionally evaluates a debugger expression at each. Page with offset/limit.',
  input: ReadCheckpointsInput,
  readOnly: true,
  run(ctx, args) {
    const store = ctx.store();
    if (args.expression !== undefined) compileExpression(args.expression);
    const offset =
      args.checkpointId !== undefined ? checkpointIndexOf(store, args.runId, args.checkpointId) : (args.offset ?? 0);
    const report: ClipReport = { clipped: false };
    const total = store.getRun(args.runId).checkpointCount;
    // one before the range too: its message count says which messages the first checkpoint added
    const withPrevious = checkpointRange(store, args.runId, Math.max(0, offset - 1), args.limit + (offset > 0 ? 1 : 0));
    const previous = offset > 0 ? withPrevious[0] : undefined;
    const range = offset > 0 ? withPrevious.slice(1) : withPrevious;
    // an expression's value gets the room the range leaves it: one checkpoint shows up to 8,000 characters of it
    const valueLimits: ClipLimits = {
      ...STATE_CLIP,
      maxString: Math.max(160, Math.min(8_000, Math.floor((ctx.maxChars - 2_000) / Math.max(1, range.length) / 2))),
    };
    const items: Record<string, unknown>[] = [];
    let prevCount = previous?.messageCount ?? 0;
    for (const s of range) {
      if (args.detail === 'state') {
        items.push(
          checkpointStateBody(
            store,
            s,
            {
              previousMessageCount: prevCount,
              ...(args.messageOffset !== undefined ? { messageOffset: args.messageOffset } : {}),
              ...(args.messageLimit !== undefined ? { messageLimit: args.messageLimit } : {}),
              ...(args.expression !== undefined ? { expression: args.expression, valueLimits } : {}),
            },
            report,
          ),
        );
      } else {
        const line = checkpointLine(s);
        if (args.expression !== undefined) {
          const cp = store.getCheckpointView(s.checkpointId);
          line.value = expressionAt(store, cp, s.index, args.expression, report, valueLimits);
        }
        items.push(line);
      }
      prevCount = s.messageCount;
    }
    const fitted = fitItems(items, offset, ctx.maxChars - 1_000, report, total);
    return {
      body: { runId: args.runId, checkpoints: fitted.items, page: fitted.page },
      report,
      hint:
        fitted.page.nextOffset !== undefined
          ? `Call read_checkpoints with offset ${fitted.page.nextOffset} for the next checkpoints.`
          : 'A value cut with "…[+N]" shows more read alone: limit 1 with an expression naming it (e.g. result.items[3]), or messageOffset/messageLimit for messages.',
    };
  },
});

/**
 * The MCP tool `tool_calls`: a run's tool ledger — every call in the order begun, with its side-effect level,
 * replay policy, step and checkpoint, duration, outcome, arguments and result or error (clipped) — paged and
 * filtered by tool and outcome; one call by id shows more of it. Reads each record only when it is shown or
 * filtered on. Read-only.
 */
import { z } from 'zod';
import { OcdbError, type ToolCallRecord } from '../model';
import { DEFAULT_CLIP, fitItems, type ClipReport } from './bounded';
import { callLine, callOutcome, callPlaces } from './shapes';
import { defineTool } from './toolContext';

const OUTCOMES = ['success', 'error', 'cancelled', 'running'] as const;

const ToolCallsInput = z
  .object({
    runId: z.string().min(1).describe('The run id.'),
    toolCallId: z.string().min(1).optional().describe('One call by its id: shown with more of its args and result.'),
    toolName: z.string().min(1).optional().describe('Only calls of this tool.'),
    outcome: z.enum(OUTCOMES).optional().describe('Only calls that ended this way.'),
    offset: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('Calls (of those that match) to skip: the nextOffset of a page.'),
    limit: z.number().int().min(1).max(100).default(20).describe('Calls per page.'),
  })
  .strict();

export const toolCallsTool = defineTool({
  name: 'tool_calls',
  title: 'Tool ledger',
  description:
    'The tool calls of a run in the order they began: toolCallId, tool name, side-effect level (none, read_only, expensive_read, write, external_irreversible), replay policy, step, checkpoint index, duration, outcome (success, error, cancelled, running), arguments and result or error. Filter by toolName or outcome ("error" lists the failures); page with offset/limit; toolCallId shows one call.',
  input: ToolCallsInput,
  readOnly: true,
  run(ctx, args) {
    const store = ctx.store();
    const report: ClipReport = { clipped: false };
    const places = callPlaces(store.listCheckpoints(args.runId));
    if (args.toolCallId !== undefined) {
      const call = store.getToolCall(args.runId, args.toolCallId);
      return {
        body: { runId: args.runId, call: callLine(call, places.get(call.toolCallId), report, DEFAULT_CLIP) },
        report,
        hint: 'A value cut with "…[+N]" shows more through read_checkpoints {limit: 1, expression: "result.<path>"} at its checkpoint.',
      };
    }
    const facts = store.listToolCallFacts(args.runId);
    const records = store.listToolCallsView(args.runId);
    const matched: ToolCallRecord[] = [];
    let count = 0;
    const n = Math.min(facts.length, records.length);
    for (let i = 0; i < n; i++) {
      // the name is known without reading the record; the outcome needs it
      if (args.toolName !== undefined && facts[i]?.toolName !== args.toolName) continue;
      const record = args.outcome !== undefined || count >= args.offset ? (records[i] as ToolCallRecord) : undefined;
      if (args.outcome !== undefined && record && callOutcome(record) !== args.outcome) continue;
      if (count >= args.offset && matched.length < args.limit && record) matched.push(record);
      count++;
      // without an outcome filter the total is known from the facts alone: stop reading once the page is full
      if (args.outcome === undefined && matched.length >= args.limit) {
        count +=
          args.toolName === undefined
            ? n - i - 1
            : facts.slice(i + 1, n).filter((f) => f.toolName === args.toolName).length;
        break;
      }
    }
    if (args.toolName !== undefined && count === 0 && !facts.some((f) => f.toolName === args.toolName)) {
      const names = [...new Set(facts.map((f) => f.toolName))].slice(0, 30);
      throw new OcdbError(
        'ToolCallNotFound',
        `Run ${args.runId} never called ${args.toolName}; its tools are: ${names.join(', ') || '(none)'}.`,
        { runId: args.runId, path: 'toolName' },
      );
    }
    const lines = matched.map((r) => callLine(r, places.get(r.toolCallId), report));
    const fitted = fitItems(lines, args.offset, ctx.maxChars - 1_000, report, count);
    return {
      body: { runId: args.runId, calls: fitted.items, page: fitted.page },
      report,
      hint:
        fitted.page.nextOffset !== undefined
          ? `Call tool_calls again with offset ${fitted.page.nextOffset} for the next calls; toolCallId shows one call with more of it.`
          : 'toolCallId shows one call with more of its arguments and result.',
    };
  },
});

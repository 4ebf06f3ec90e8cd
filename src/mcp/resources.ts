/**
 * What the MCP server offers besides tools: runs as resources — `ocdb://run/<runId>` (the run's summary) and
 * `ocdb://run/<runId>/checkpoint/<index>` (one checkpoint's state) — and one prompt, "find why this run failed",
 * that walks an agent through the tools. The same bodies as the tools, the same cap and redaction; a resource
 * that is not there is the protocol's "resource not found" error, saying which ids exist.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { errorMessage, isOcdbError, redactText, runStatusText } from '../model';
import { answerText, type ClipReport } from './bounded';
import { checkpointRange, checkpointStateBody } from './checkpointTools';
import { runSummaryBody } from './runTools';
import type { ToolContext } from './toolContext';

/** JSON-RPC's "resource not found" (MCP specification, resources: error handling). */
const RESOURCE_NOT_FOUND = -32002;
/** Runs `resources/list` names: the newest, as a client lists them for a person to pick. */
const LISTED_RUNS = 50;

export const RUN_URI_PREFIX = 'ocdb://run/';

export function runUri(runId: string): string {
  return `${RUN_URI_PREFIX}${encodeURIComponent(runId)}`;
}

function variable(value: string | string[] | undefined, name: string): string {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw === '') throw new McpError(RESOURCE_NOT_FOUND, `The URI names no ${name}.`);
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new McpError(RESOURCE_NOT_FOUND, `The ${name} in the URI is not valid percent-encoding.`);
  }
}

/** Runs `read` and turns an error of the core into the protocol's error, saying what to do. */
function asResource(uri: URL, read: () => string) {
  try {
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: read() }] };
  } catch (e) {
    if (e instanceof McpError) throw e;
    const message = redactText(errorMessage(e));
    if (isOcdbError(e, 'RunNotFound') || isOcdbError(e, 'CheckpointNotFound')) {
      throw new McpError(RESOURCE_NOT_FOUND, `${message} resources/list (or the find_runs tool) names the runs.`);
    }
    throw new McpError(-32603, message);
  }
}

export function registerResources(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'run',
    new ResourceTemplate(`${RUN_URI_PREFIX}{runId}`, {
      list: () => {
        const { runs } = ctx.store().listRuns({ limit: LISTED_RUNS });
        return {
          resources: runs.map((r) => ({
            uri: runUri(r.runId),
            name: r.runId,
            title: `${r.runId} (${runStatusText(r)})`,
            description: `${r.agentId}: ${runStatusText(r)}, ${r.stepCount} steps, ${r.checkpointCount} checkpoints`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Agent run',
      description: 'A recorded agent run: status, failure, tool errors, tools, forks, steps (as run_summary).',
      mimeType: 'application/json',
    },
    (uri, vars) =>
      asResource(uri, () => {
        const report: ClipReport = { clipped: false };
        const body = runSummaryBody(ctx.store(), variable(vars.runId, 'run id'), ctx.maxChars, report);
        return answerText(
          body,
          report,
          ctx.maxChars,
          'The tools read_checkpoints and tool_calls page through the rest.',
        );
      }),
  );
  server.registerResource(
    'checkpoint',
    new ResourceTemplate(`${RUN_URI_PREFIX}{runId}/checkpoint/{index}`, { list: undefined }),
    {
      title: 'Checkpoint',
      description: 'One checkpoint of a run by index: prompt, context, the messages it added, its tool call.',
      mimeType: 'application/json',
    },
    (uri, vars) =>
      asResource(uri, () => {
        const runId = variable(vars.runId, 'run id');
        const index = Number(variable(vars.index, 'checkpoint index'));
        if (!Number.isSafeInteger(index) || index < 0) {
          throw new McpError(RESOURCE_NOT_FOUND, `The checkpoint index in ${uri.href} is not a whole number ≥ 0.`);
        }
        const store = ctx.store();
        const report: ClipReport = { clipped: false };
        const [previous, summary] =
          index > 0 ? checkpointRange(store, runId, index - 1, 2) : [undefined, ...checkpointRange(store, runId, 0, 1)];
        if (!summary) throw new McpError(RESOURCE_NOT_FOUND, `Run ${runId} has no checkpoint ${index}.`);
        const body = checkpointStateBody(store, summary, { previousMessageCount: previous?.messageCount ?? 0 }, report);
        return answerText(body, report, ctx.maxChars, 'read_checkpoints pages through the messages (messageOffset).');
      }),
  );
}

export const FAILURE_PROMPT = 'find_why_run_failed';

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    FAILURE_PROMPT,
    {
      title: 'Find why this run failed',
      description: 'Walks through a failed agent run with the debugger tools and explains where and why it failed.',
      argsSchema: { runId: z.string().optional().describe('The run (default: the newest failed run).') },
    },
    ({ runId }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              runId
                ? `Find out why the agent run ${runId} failed, using the ocdb tools.`
                : 'Find the agent runs that failed (find_runs with status "failed", then "crashed"), pick the newest, and find out why it failed, using the ocdb tools.',
              '1. run_summary: its status, error, and the step, checkpoint and tool call it failed at.',
              '2. tool_calls with outcome "error": every call that failed, with arguments and errors.',
              '3. read_checkpoints with detail "state" from a few checkpoints before the failure: what the model saw and decided.',
              '4. search_run for the error text or an identifier, to see where it first appeared.',
              'Answer: the step and the tool call it failed at, the error, the cause as the checkpoints show it, and what would avoid it. If a change of context might, plan_fork and fork_run in "captured" mode (no tool is executed) and compare_runs with the fork.',
            ].join('\n'),
          },
        },
      ],
    }),
  );
}

/**
 * The MCP server of `ocdb mcp`, on the official SDK: the tools of mcpTools.ts (listed with their zod inputs as
 * JSON Schema, called through one handler that validates with the core's located errors, bounds and redacts every
 * answer, and turns every failure into a tool error saying what to do — the server never crashes on a call), the
 * run and checkpoint resources and the failure prompt (resources.ts). Transport-agnostic: `ocdb mcp` connects
 * it to stdio, the tests to the SDK's in-memory pair.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { OcdbError, assertJsonInput, errorMessage, isOcdbError, parseWith, redactText } from '../model';
import { DEFAULT_MAX_ANSWER_CHARS, answerText } from './bounded';
import { MCP_TOOLS } from './mcpTools';
import { registerPrompts, registerResources } from './resources';
import { ServerStore, type McpTool } from './toolContext';
import { toolError, type ToolAnswer } from './toolErrors';

export interface OcdbMcpServerOptions {
  /** The resolved store location. */
  storeLocation: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  maxAnswerChars?: number;
  /** The server's version, as the client's server list shows it. */
  version?: string;
  /** Where faults of the server itself are written (stderr for `ocdb mcp`); never the protocol stream. */
  log?: (line: string) => void;
  /** The tools (default MCP_TOOLS): tests add one that fails. */
  tools?: readonly McpTool[];
}

export interface OcdbMcpServer {
  server: McpServer;
  /** Waits for a running write, closes the store and the connection. */
  close(): Promise<void>;
}

function instructions(storeLabel: string, maxChars: number): string {
  return [
    `Agent Time Travel's run store at ${storeLabel}: recorded LLM agent runs, with a checkpoint at every prompt, model call and tool call, and a ledger of every tool call with its side-effect level.`,
    'Why did a run fail: find_runs {status: "failed"} → run_summary (the step, checkpoint and tool call it failed at) → read_checkpoints / tool_calls / search_run around it.',
    'What if: plan_fork, then fork_run in "captured" mode — no model is called and no tool is executed (tools are answered from the recording); it reports "diverged at step N" where the change alters the prompt — then compare_runs.',
    'Never put a tool in acknowledge that the user did not name: those re-run writes or irreversible actions.',
    `Answers are capped at ${maxChars} characters; "truncated": true comes with a hint (nextOffset) saying how to get the rest.`,
  ].join('\n');
}

/**
 * A schema in the dialect every client reads: a `type` list becomes `anyOf` branches of one type each, and a value
 * schema with no keyword at all (any JSON value) the explicit `true` (clients that map tool schemas onto a
 * single-type subset, as Gemini's function declarations do, reject the other spellings).
 */
function portable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portable);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (
      key === 'additionalProperties' &&
      value !== null &&
      typeof value === 'object' &&
      Object.keys(value).length === 0
    ) {
      out[key] = true;
    } else out[key] = portable(value);
  }
  if (Array.isArray(out.type)) {
    const { type, ...rest } = out;
    return { ...rest, anyOf: (type as unknown[]).map((t) => ({ type: t })) };
  }
  return out;
}

/** JSON Schema of a tool's input, as tools/list sends it. */
function inputSchemaOf(tool: McpTool): { type: 'object'; [key: string]: unknown } {
  const { $schema: _schema, ...schema } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
  return { ...(portable(schema) as Record<string, unknown>), type: 'object' };
}

export function createOcdbMcpServer(options: OcdbMcpServerOptions): OcdbMcpServer {
  const maxChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
  const ctx = new ServerStore({
    location: options.storeLocation,
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    maxChars,
  });
  const tools = options.tools ?? MCP_TOOLS;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const log = options.log ?? (() => undefined);
  const server = new McpServer(
    { name: 'ocdb', title: 'Agent Time Travel', version: options.version ?? '0.0.0' },
    { instructions: instructions(ctx.storeLabel, maxChars), capabilities: { tools: {}, resources: {}, prompts: {} } },
  );

  const listed = tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: inputSchemaOf(t),
    annotations: { title: t.title, readOnlyHint: t.readOnly, destructiveHint: false, openWorldHint: false },
  }));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolAnswer> => {
    const { name } = request.params;
    const tool = byName.get(name);
    try {
      if (!tool) {
        throw new OcdbError(
          'InvalidInput',
          `Unknown tool ${name}: this server's tools are ${[...byName.keys()].join(', ')}.`,
          {
            path: 'name',
          },
        );
      }
      const raw: unknown = request.params.arguments ?? {};
      assertJsonInput(raw, name);
      const args = parseWith(tool.input, raw, name);
      const result = await tool.run(ctx, args, extra.signal);
      return { content: [{ type: 'text', text: answerText(result.body, result.report, maxChars, result.hint) }] };
    } catch (e) {
      if (!isOcdbError(e))
        log(`ocdb mcp: ${name}: ${redactText(e instanceof Error ? (e.stack ?? e.message) : errorMessage(e))}`);
      return toolError(e);
    }
  });
  registerResources(server, ctx);
  registerPrompts(server);

  return {
    server,
    async close() {
      await ctx.close();
      await server.close();
    },
  };
}

/**
 * How anything thrown while answering a tool call reaches the agent: an MCP tool error (`isError: true`, so the
 * model reads it and can correct itself) whose text says what was wrong and what to call next — never a crashed
 * server nor a stack trace. One mapping from the core's error codes, in one place; secrets redacted.
 */
import { errorMessage, isOcdbError, redactValue, type ErrorCode } from '../model';

/** An answer of a tool, as the MCP SDK sends it. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/** What to do next, by error code: the words that follow the core's own message. */
const NEXT: Partial<Record<ErrorCode, string>> = {
  InvalidInput: 'Correct the argument named above and call again.',
  RunNotFound: 'Call find_runs to list the run ids of this store.',
  CheckpointNotFound: 'Call read_checkpoints with the run id (no offset) to see its checkpoint indexes and ids.',
  ToolCallNotFound: 'Call tool_calls with the run id to list its tool call ids.',
  ForkNotFound: 'Call find_runs with mode "fork" to list the forks.',
  ArtifactNotFound: 'Call run_summary to see the artifacts the run holds.',
  ForkRejected:
    'Nothing was created. Answer the tools from the recording instead (toolPolicy {"*": "reuse_result"}, or mock_result with toolMocks), or — only if the user asked for it — name each tool in toolPolicy and in acknowledge. "*" never unlocks an external_irreversible tool.',
  StoreUnavailable: 'Check the store location this server was started with (ocdb mcp --store).',
  StoreLocked: 'Another process holds the store; call again in a moment.',
  ModelEndpointError: 'Check the endpoint the user configured (OCDB_MODEL_BASE_URL), or fork with model "captured".',
  ImportFailed: 'Check the path and the format (format "auto" sniffs it).',
};

/** The error as the agent reads it: `{ error: { code, message, next, ... } }`, redacted. */
export function toolError(e: unknown): ToolAnswer {
  let body: Record<string, unknown>;
  if (isOcdbError(e)) {
    const path = typeof e.details.path === 'string' ? e.details.path : undefined;
    body = {
      code: e.code,
      message: e.message,
      ...(path !== undefined ? { path } : {}),
      ...(Array.isArray(e.details.issues) ? { issues: e.details.issues.slice(0, 10) } : {}),
      ...(e.code === 'ForkRejected' && Array.isArray(e.details.hazards) ? { hazards: e.details.hazards } : {}),
      ...(NEXT[e.code] ? { next: NEXT[e.code] } : {}),
    };
  } else {
    body = {
      code: 'Internal',
      message: errorMessage(e),
      next: 'This is a fault of the server, not of the arguments; the server goes on answering other calls.',
    };
  }
  return { content: [{ type: 'text', text: JSON.stringify({ error: redactValue(body) }) }], isError: true };
}

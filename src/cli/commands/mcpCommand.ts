/**
 * `ocdb mcp`: the Model Context Protocol server over stdio (src/mcp/), for coding agents (Claude Code, Codex,
 * Cursor, Gemini CLI, VS Code's agent mode) to find, read, search, compare and fork runs. stdout carries only
 * MCP messages; faults of the server go to stderr. `--print-config <client>` prints the one-line setup instead.
 * Resolves when the client closes the connection.
 */
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { OcdbError } from '../../model';
import { DEFAULT_MAX_ANSWER_CHARS, MIN_MAX_ANSWER_CHARS } from '../../mcp/bounded';
import { MCP_CLIENTS, clientConfig, type McpLaunch } from '../../mcp/clientConfig';
import { createOcdbMcpServer } from '../../mcp/mcpServer';
import { resolveStorePath } from '../../store';
import { EXIT, STORE_HELP, STORE_OPTION, parseCommandArgs, type CliCommand } from '../cliCommand';

/**
 * How this `ocdb` is started again from a client: node and the bundle's absolute path when it runs as the bundle
 * (dist/cli.js, also behind an npm bin link), else `ocdb` from the PATH.
 */
function selfLaunch(args: string[]): McpLaunch {
  const script = process.argv[1];
  if (script) {
    try {
      const real = realpathSync(script);
      if (basename(real) === 'cli.js') return { command: process.execPath, args: [real, ...args] };
    } catch {
      // not a file we can name: fall back to the PATH
    }
  }
  return { command: 'ocdb', args };
}

function maxChars(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ANSWER_CHARS;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < MIN_MAX_ANSWER_CHARS) {
    throw new OcdbError(
      'InvalidInput',
      `--max-answer-chars ${value}: expected a whole number ≥ ${MIN_MAX_ANSWER_CHARS}.`,
      {
        path: 'max-answer-chars',
      },
    );
  }
  return n;
}

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'run the MCP server over stdio for coding agents (Claude Code, Codex, Cursor, Gemini, VS Code)',
  help: [
    'Usage: ocdb mcp [--store <path|url>] [--max-answer-chars <n>]',
    '       ocdb mcp --print-config <client> [--store <path|url>]',
    '',
    'Speaks the Model Context Protocol on stdin/stdout: tools to find runs, summarise one, read and search',
    'its checkpoints, page its tool ledger, compare two runs, plan and create forks (tools answered from the',
    'recording; a write or irreversible tool only when named), import traces; runs as ocdb://run/<id>',
    'resources; a "find why this run failed" prompt. Every answer is capped and redacted.',
    `  --print-config <c>        print the one-line setup for ${MCP_CLIENTS.join(', ')}`,
    `  --max-answer-chars <n>    characters one answer holds at most (default ${DEFAULT_MAX_ANSWER_CHARS})`,
    'Real / override model forks use the endpoint in OCDB_MODEL_BASE_URL (key in the variable OCDB_MODEL_API_KEY_ENV names).',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values } = parseCommandArgs(
      args,
      { ...STORE_OPTION, 'print-config': { type: 'string' }, 'max-answer-chars': { type: 'string' } },
      false,
    );
    const store = resolveStorePath(values.store, io.env, io.cwd);
    const limit = maxChars(values['max-answer-chars']);
    if (values['print-config'] !== undefined) {
      const launch = selfLaunch(['mcp', '--store', store]);
      io.out(clientConfig(values['print-config'], launch));
      return EXIT.ok;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- version of the installed package
    const version = String((require('../../../package.json') as { version: string }).version);
    const mcp = createOcdbMcpServer({
      storeLocation: store,
      env: io.env,
      cwd: io.cwd,
      maxAnswerChars: limit,
      version,
      log: (line) => io.err(line),
    });
    const transport = new StdioServerTransport();
    await new Promise<void>((resolve, reject) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      mcp.server.connect(transport).catch(reject);
    });
    await mcp.close();
    return EXIT.ok;
  },
};

/**
 * `ocdb mcp --print-config <client>`: the one-line setup (and the file entry it writes) that starts this server
 * for each MCP client we document — Claude Code, Codex, Cursor, Gemini CLI and VS Code. The launch command is
 * what runs `ocdb mcp` on this machine (an absolute node and script path), so the printed line works as pasted.
 * Pure: no I/O.
 */
import { OcdbError } from '../model';

export const MCP_CLIENTS = ['claude', 'codex', 'cursor', 'gemini', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** The name the server is registered under in every client's configuration. */
export const MCP_SERVER_NAME = 'ocdb';

/** How to start the server: a program and its arguments (`ocdb mcp --store <store>` spelled out). */
export interface McpLaunch {
  command: string;
  args: string[];
}

export function isMcpClient(name: string): name is McpClient {
  return (MCP_CLIENTS as readonly string[]).includes(name);
}

/** A word for a POSIX shell: as is when it is plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

function tomlString(s: string): string {
  return JSON.stringify(s); // a JSON string is a valid TOML basic string
}

/** The setup text for `client`: the command to paste, then the configuration file entry it amounts to. */
export function clientConfig(client: string, launch: McpLaunch): string {
  if (!isMcpClient(client)) {
    throw new OcdbError(
      'InvalidInput',
      `--print-config ${client}: expected one of ${MCP_CLIENTS.join(', ')} (the client you start the server from).`,
      { path: 'print-config' },
    );
  }
  const launchWords = [launch.command, ...launch.args];
  const entry = { command: launch.command, args: launch.args };
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  switch (client) {
    case 'claude':
      return [
        '# Claude Code: run once (add --scope project to share it through .mcp.json)',
        commandLine(['claude', 'mcp', 'add', MCP_SERVER_NAME, '--', ...launchWords]),
        '',
        '# or in .mcp.json:',
        json({ mcpServers: { [MCP_SERVER_NAME]: entry } }),
      ].join('\n');
    case 'codex':
      return [
        '# Codex: run once (writes ~/.codex/config.toml)',
        commandLine(['codex', 'mcp', 'add', MCP_SERVER_NAME, '--', ...launchWords]),
        '',
        '# or in ~/.codex/config.toml:',
        `[mcp_servers.${MCP_SERVER_NAME}]`,
        `command = ${tomlString(launch.command)}`,
        `args = [${launch.args.map(tomlString).join(', ')}]`,
      ].join('\n');
    case 'cursor':
      return [
        '# Cursor: put this in ~/.cursor/mcp.json (every project) or .cursor/mcp.json (this project)',
        json({ mcpServers: { [MCP_SERVER_NAME]: entry } }),
      ].join('\n');
    case 'gemini':
      return [
        '# Gemini CLI: run once (writes ~/.gemini/settings.json)',
        commandLine(['gemini', 'mcp', 'add', '--scope', 'user', MCP_SERVER_NAME, launch.command, '--', ...launch.args]),
        '',
        '# or in ~/.gemini/settings.json:',
        json({ mcpServers: { [MCP_SERVER_NAME]: entry } }),
      ].join('\n');
    case 'vscode':
      return [
        '# VS Code: the Agent Time Travel extension registers this server for agent mode by itself.',
        '# Without the extension, run once:',
        commandLine(['code', '--add-mcp', JSON.stringify({ name: MCP_SERVER_NAME, ...entry })]),
        '',
        '# or in .vscode/mcp.json:',
        json({ servers: { [MCP_SERVER_NAME]: { type: 'stdio', ...entry } } }),
      ].join('\n');
    default: {
      const unreachable: never = client;
      return String(unreachable);
    }
  }
}

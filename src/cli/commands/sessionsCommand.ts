/**
 * `ocdb sessions`: the coding-agent sessions (Claude Code, Codex, Gemini CLI) kept on this machine for a
 * workspace, newest first, with Claude Code's subagents under their session; nothing is imported (`ocdb import
 * <file>` does, and continues a session imported before).
 */
import { OcdbError, byteSize } from '../../model';
import {
  AGENT_NAMES,
  SESSIONS_HOME_ENV,
  SESSION_AGENTS,
  ageText,
  discoverSessions,
  type DiscoveredSession,
  type SessionAgent,
} from '../../importers/sessions';
import { EXIT, parseCommandArgs, type CliCommand } from '../cliCommand';
import { table } from '../format';

const isAgent = (v: string): v is SessionAgent => (SESSION_AGENTS as readonly string[]).includes(v);

function jsonOf(s: DiscoveredSession): Record<string, unknown> {
  return {
    agent: s.agent,
    sessionId: s.sessionId,
    title: s.title,
    file: s.file,
    bytes: s.bytes,
    modifiedAt: new Date(s.modifiedAt).toISOString(),
    subagents: s.subagents.map(jsonOf),
  };
}

export const sessionsCommand: CliCommand = {
  name: 'sessions',
  summary: 'list the Claude Code, Codex and Gemini CLI sessions of a workspace (newest first)',
  help: [
    'Usage: ocdb sessions [--agent claude|codex|gemini] [--json] [--workspace <dir>] [--home <dir>] [--folder <dir>]...',
    '',
    'Lists the sessions each coding agent keeps for the workspace: Claude Code (~/.claude/projects/<path>/, subagents',
    'indented under their session), Codex (~/.codex/sessions/**, by the cwd of session_meta) and Gemini CLI',
    '(~/.gemini/tmp/<project hash>/chats/). Import one with `ocdb import <file>`; importing it again later adds',
    'what the session wrote since.',
    '  --agent <a>       only this agent: claude | codex | gemini',
    '  --json            print a JSON array (subagents in each session\'s "subagents")',
    '  --workspace <d>   the workspace folder (default: the current folder)',
    `  --home <d>        the home folder holding .claude, .codex, .gemini (default: $${SESSIONS_HOME_ENV}, else yours)`,
    '  --folder <d>      also list the session files under this folder (any workspace); repeatable',
  ].join('\n'),
  async run({ args, io }) {
    const { values } = parseCommandArgs(
      args,
      {
        agent: { type: 'string' },
        json: { type: 'boolean' },
        workspace: { type: 'string' },
        home: { type: 'string' },
        folder: { type: 'string', multiple: true },
      },
      false,
    );
    if (values.agent !== undefined && !isAgent(values.agent)) {
      throw new OcdbError('InvalidInput', `--agent: expected ${SESSION_AGENTS.join(' | ')} (got ${values.agent})`, {
        path: 'agent',
      });
    }
    const workspace = values.workspace ?? io.cwd;
    const sessions = discoverSessions({
      workspace,
      ...(values.home !== undefined ? { home: values.home } : {}),
      ...(values.agent !== undefined ? { agents: [values.agent] } : {}),
      extraFolders: values.folder ?? [],
      env: io.env,
    });
    if (values.json) {
      io.out(JSON.stringify(sessions.map(jsonOf), null, 2));
      return EXIT.ok;
    }
    if (sessions.length === 0) {
      io.out(`No ${values.agent ? AGENT_NAMES[values.agent] : 'coding agent'} sessions for ${workspace}.`);
      return EXIT.ok;
    }
    const now = Date.now();
    const rows: string[][] = [];
    for (const s of sessions) {
      rows.push([AGENT_NAMES[s.agent], ageText(s.modifiedAt, now), byteSize(s.bytes), s.title, s.file]);
      for (const sub of s.subagents)
        rows.push(['  └ subagent', ageText(sub.modifiedAt, now), byteSize(sub.bytes), sub.title, sub.file]);
    }
    io.out(table(['AGENT', 'WRITTEN', 'SIZE', 'TITLE', 'FILE'], rows));
    return EXIT.ok;
  },
};

/** Finding a workspace's coding-agent sessions on disk (Claude Code, Codex, Gemini CLI) without importing them. */
export {
  AGENT_NAMES,
  SESSIONS_HOME_ENV,
  SESSION_AGENTS,
  SessionDiscovery,
  ageText,
  claudeProjectDirName,
  discoverSessions,
  geminiProjectHash,
  sessionRoots,
  sessionsHome,
  type DiscoverOptions,
  type DiscoveredSession,
  type SessionAgent,
  type SessionRoot,
} from './discoverSessions';

/**
 * How the "Coding agent sessions" section of the Runs view looks: the
 * section, and each session found on disk (titled by its summary or first
 * prompt; agent, age and size in the description so sessions are told apart
 * at a narrow side bar; subagents nested under their session). Pure: no
 * vscode import, so unit tests check what a user sees.
 */
import { byteSize } from '../model';
import { AGENT_NAMES, ageText, type DiscoveredSession, type SessionAgent } from '../importers/sessions';
import { COMMANDS, ITEM_CONTEXT } from './ids';
import { mdCode, mdText } from './markdownText';
import type { NodeView } from './runsTreeModel';

const AGENT_ICONS: Record<SessionAgent, NodeView['icon']> = {
  claude: { id: 'sparkle', color: 'charts.orange' },
  codex: { id: 'terminal', color: 'charts.blue' },
  gemini: { id: 'star-full', color: 'charts.purple' },
};

export const SESSIONS_SECTION_LABEL = 'Coding agent sessions';

/** The section: collapsed when the store has runs of its own (they come first to the eye), open when it has none. */
export function sessionsSectionView(sessions: DiscoveredSession[], storeHasRuns: boolean): NodeView {
  const counts = new Map<SessionAgent, number>();
  for (const s of sessions) counts.set(s.agent, (counts.get(s.agent) ?? 0) + 1);
  return {
    label: SESSIONS_SECTION_LABEL,
    description: `${sessions.length}`,
    tooltip: [
      `**${SESSIONS_SECTION_LABEL}** of this workspace, newest first: ${[...counts]
        .map(([a, n]) => `${n} ${AGENT_NAMES[a]}`)
        .join(', ')}.`,
      '',
      'Open one to import and replay it; it is imported only then, and again (what it wrote since) when it grows.',
    ].join('\n'),
    icon: { id: 'history' },
    contextValue: ITEM_CONTEXT.sessions,
    collapsible: storeHasRuns ? 'collapsed' : 'expanded',
  };
}

/** One session (or a subagent of one): a click imports it and starts its replay. */
export function sessionView(
  session: DiscoveredSession,
  now: number,
  options: { subagent: boolean; followed: boolean; live?: boolean },
): NodeView {
  const parts = [
    // first: at a narrow side bar the end of the description is cut
    ...(options.live ? ['live'] : []),
    options.subagent ? 'subagent' : AGENT_NAMES[session.agent],
    ageText(session.modifiedAt, now),
    byteSize(session.bytes),
  ];
  if (options.followed) parts.push('followed');
  const tooltip = [
    `**${mdText(session.title)}**`,
    '',
    `${options.subagent ? 'Subagent of a ' : ''}${AGENT_NAMES[session.agent]} session ${mdCode(session.sessionId)} · ${byteSize(session.bytes)} · written ${new Date(session.modifiedAt).toLocaleString()}`,
    '',
    mdCode(session.file),
    '',
    ...(options.live ? ['Live: its file is still being written (it grew in the last minute).', ''] : []),
    options.followed
      ? 'Imported: what the session writes is imported as it grows.'
      : 'Click to import and replay it (opening it again later adds what it wrote since).',
  ];
  if (!options.subagent && session.subagents.length > 0)
    tooltip.push('', `${session.subagents.length} subagent${session.subagents.length > 1 ? 's' : ''}`);
  return {
    label: session.title,
    description: parts.join(' · '),
    tooltip: tooltip.join('\n'),
    icon: options.live
      ? { id: 'circle-filled', color: 'charts.red' }
      : options.subagent
        ? { id: 'person', color: AGENT_ICONS[session.agent].color }
        : AGENT_ICONS[session.agent],
    contextValue: ITEM_CONTEXT.session,
    collapsible: !options.subagent && session.subagents.length > 0 ? 'collapsed' : 'none',
    command: { id: COMMANDS.openSession.id, title: COMMANDS.openSession.title, args: [session.file] },
  };
}

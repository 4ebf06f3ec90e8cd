/**
 * The coding-agent sessions of one workspace, found where each agent keeps
 * them: Claude Code in `~/.claude/projects/<workspace path, every other
 * character than a letter or digit as "-">/` (subagent transcripts nested
 * under their session), Codex in `~/.codex/sessions/**` (a rollout whose
 * `session_meta.cwd` is the workspace or a folder in it), Gemini CLI in
 * `~/.gemini/tmp/<sha256 of the workspace path>/chats/` (or a project folder
 * whose `.project_root` names the workspace). Only the files' first bytes are
 * read (sessionHead.ts); heads are cached by file, size and time, so a
 * refresh re-reads only the files that changed. Nothing is imported here.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { sniffFormat } from '../sniff';
import { claudeHead, codexHead, geminiHead, type SessionHead } from './sessionHead';

export const SESSION_AGENTS = ['claude', 'codex', 'gemini'] as const;
export type SessionAgent = (typeof SESSION_AGENTS)[number];

/** How each agent is named to a user. */
export const AGENT_NAMES: Record<SessionAgent, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
};

/** The environment variable that replaces the home folder the agents' folders are looked for in. */
export const SESSIONS_HOME_ENV = 'OCDB_SESSIONS_HOME';

export interface DiscoveredSession {
  agent: SessionAgent;
  /** Absolute path of the session file. */
  file: string;
  sessionId: string;
  /** The session's summary or first prompt; never a bare id (the agent's name and a short id when it has neither). */
  title: string;
  /** True when the title is the fallback (no summary, no prompt in the file's head). */
  untitled: boolean;
  bytes: number;
  /** Last write of the file (ms since the epoch): the list is newest first by it. */
  modifiedAt: number;
  /** Claude Code subagent transcripts of this session, newest first. */
  subagents: DiscoveredSession[];
}

export interface DiscoverOptions {
  /** The workspace folder whose sessions are wanted. */
  workspace: string;
  /** The home folder holding `.claude`, `.codex`, `.gemini` (default: OCDB_SESSIONS_HOME, else the user's). */
  home?: string;
  agents?: readonly SessionAgent[];
  /** More folders to list session files from (any agent, any workspace). */
  extraFolders?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/** The folder each agent keeps its sessions in, for a workspace (what discovery reads and a watcher watches). */
export interface SessionRoot {
  agent: SessionAgent;
  dir: string;
}

export function sessionsHome(options: Pick<DiscoverOptions, 'home' | 'env'>): string {
  const env = options.env ?? process.env;
  return options.home?.trim() || env[SESSIONS_HOME_ENV]?.trim() || homedir();
}

/** Claude Code's folder name for a project path. */
export function claudeProjectDirName(workspace: string): string {
  return resolve(workspace).replace(/[^a-zA-Z0-9]/g, '-');
}

/** Gemini CLI's project hash: sha256 of the project's absolute path. */
export function geminiProjectHash(workspace: string): string {
  return createHash('sha256').update(resolve(workspace)).digest('hex');
}

/** The folders where this workspace's sessions live (some may not exist). */
export function sessionRoots(options: DiscoverOptions): SessionRoot[] {
  const home = sessionsHome(options);
  const agents = options.agents ?? SESSION_AGENTS;
  const roots: SessionRoot[] = [];
  if (agents.includes('claude'))
    roots.push({ agent: 'claude', dir: join(home, '.claude', 'projects', claudeProjectDirName(options.workspace)) });
  if (agents.includes('codex')) roots.push({ agent: 'codex', dir: join(home, '.codex', 'sessions') });
  if (agents.includes('gemini')) {
    const tmp = join(home, '.gemini', 'tmp');
    const dirs = new Set([join(tmp, geminiProjectHash(options.workspace))]);
    for (const name of listDir(tmp)) {
      const marker = join(tmp, name, '.project_root');
      try {
        if (samePath(readFileSync(marker, 'utf8').trim(), options.workspace)) dirs.add(join(tmp, name));
      } catch {
        // no marker: a project folder named by hash only
      }
    }
    for (const d of dirs) roots.push({ agent: 'gemini', dir: join(d, 'chats') });
  }
  return roots;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function statFile(file: string): Stats | undefined {
  try {
    const st = statSync(file);
    return st.isFile() ? st : undefined;
  } catch {
    return undefined;
  }
}

const samePath = (a: string, b: string): boolean => resolve(a) === resolve(b);
const inside = (child: string, parent: string): boolean => {
  const rel = relative(resolve(parent), resolve(child));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** Session lists by agent, with the heads of files read before (by path, size and time). */
export class SessionDiscovery {
  private readonly heads = new Map<string, { key: string; head: SessionHead }>();

  private head(agent: SessionAgent, file: string, st: Stats): SessionHead {
    const key = `${st.size}:${st.mtimeMs}`;
    const known = this.heads.get(file);
    if (known?.key === key) return known.head;
    let head: SessionHead = {};
    try {
      head = agent === 'claude' ? claudeHead(file) : agent === 'codex' ? codexHead(file) : geminiHead(file, st.size);
    } catch {
      head = {}; // unreadable now (being replaced): listed by its name
    }
    this.heads.set(file, { key, head });
    return head;
  }

  private session(agent: SessionAgent, file: string, st: Stats, head: SessionHead): DiscoveredSession {
    const sessionId = head.sessionId ?? basename(file).replace(/\.(jsonl|json)$/i, '');
    const short = (/[0-9a-f]{8}(?=[^/]*$)/i.exec(sessionId)?.[0] ?? sessionId).slice(0, 8);
    return {
      agent,
      file,
      sessionId,
      title: head.title ?? `${AGENT_NAMES[agent]} session ${short}`,
      untitled: head.title === undefined,
      bytes: st.size,
      modifiedAt: st.mtimeMs,
      subagents: [],
    };
  }

  /** This workspace's sessions of every agent asked for (and of the extra folders), newest first. */
  discover(options: DiscoverOptions): DiscoveredSession[] {
    const out: DiscoveredSession[] = [];
    for (const root of sessionRoots(options)) {
      if (root.agent === 'claude') out.push(...this.claude(root.dir, options.workspace));
      else if (root.agent === 'codex') out.push(...this.codex(root.dir, options.workspace));
      else out.push(...this.gemini(root.dir));
    }
    for (const folder of options.extraFolders ?? []) out.push(...this.folder(folder, options.agents ?? SESSION_AGENTS));
    const seen = new Set<string>();
    return out
      .filter((s) => (seen.has(s.file) ? false : (seen.add(s.file), true)))
      .sort((a, b) => b.modifiedAt - a.modifiedAt);
  }

  private claude(dir: string, workspace: string): DiscoveredSession[] {
    const sessions = new Map<string, DiscoveredSession>();
    const loose: DiscoveredSession[] = [];
    for (const name of listDir(dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const file = join(dir, name);
      const st = statFile(file);
      if (!st) continue;
      const head = this.head('claude', file, st);
      // the folder name is lossy (`/a-b` and `/a/b` share one): the file's own cwd decides when it has one
      if (head.cwd !== undefined && !samePath(head.cwd, workspace) && !inside(head.cwd, workspace)) continue;
      const s = this.session('claude', file, st, head);
      if (head.sidechain && head.parentSessionId) loose.push({ ...s, sessionId: name.replace(/\.jsonl$/, '') });
      else sessions.set(name.replace(/\.jsonl$/, ''), s);
    }
    for (const [id, s] of sessions) {
      const subDir = join(dir, id, 'subagents');
      for (const name of listDir(subDir)) {
        if (!name.endsWith('.jsonl')) continue;
        const file = join(subDir, name);
        const st = statFile(file);
        if (!st) continue;
        const sub = this.session('claude', file, st, this.head('claude', file, st));
        s.subagents.push({ ...sub, sessionId: name.replace(/\.jsonl$/, '') });
      }
    }
    // subagent files beside the sessions (Claude Code 2.0): nested under the session their lines name
    const top = [...sessions.values()];
    for (const s of loose) {
      const parent = this.heads.get(s.file)?.head.parentSessionId;
      const owner = parent !== undefined ? sessions.get(parent) : undefined;
      if (owner) owner.subagents.push(s);
      else top.push(s);
    }
    for (const s of top) {
      s.subagents.sort((a, b) => b.modifiedAt - a.modifiedAt);
      // a session is as new as its newest subagent
      for (const sub of s.subagents) s.modifiedAt = Math.max(s.modifiedAt, sub.modifiedAt);
    }
    return top;
  }

  private codex(dir: string, workspace: string): DiscoveredSession[] {
    const out: DiscoveredSession[] = [];
    const walk = (d: string, depth: number) => {
      for (const name of listDir(d)) {
        const p = join(d, name);
        if (depth < 4 && !name.includes('.')) {
          walk(p, depth + 1);
          continue;
        }
        if (!/\.jsonl$/i.test(name)) continue;
        const st = statFile(p);
        if (!st) continue;
        const head = this.head('codex', p, st);
        if (head.cwd === undefined || !inside(head.cwd, workspace)) continue;
        out.push(this.session('codex', p, st, head));
      }
    };
    walk(dir, 0);
    return out;
  }

  private gemini(dir: string): DiscoveredSession[] {
    const out: DiscoveredSession[] = [];
    for (const name of listDir(dir)) {
      if (!/\.(json|jsonl)$/i.test(name)) continue;
      const file = join(dir, name);
      const st = statFile(file);
      if (!st) continue;
      out.push(this.session('gemini', file, st, this.head('gemini', file, st)));
    }
    return out;
  }

  /** Session files of a folder the user added: each file's agent told by its content. */
  private folder(dir: string, agents: readonly SessionAgent[]): DiscoveredSession[] {
    const out: DiscoveredSession[] = [];
    const walk = (d: string, depth: number) => {
      for (const name of listDir(d)) {
        if (name.startsWith('.') || name === 'node_modules') continue;
        const p = join(d, name);
        let st: Stats;
        try {
          st = statSync(p);
        } catch {
          continue;
        }
        if (st.isDirectory()) {
          if (depth < 4 && name !== 'subagents') walk(p, depth + 1);
          continue;
        }
        if (!st.isFile() || !/\.(jsonl|json)$/i.test(name)) continue;
        const agent = agentOfFile(p);
        if (!agent || !agents.includes(agent)) continue;
        const s = this.session(agent, p, st, this.head(agent, p, st));
        if (agent === 'claude') {
          const subDir = join(dirname(p), basename(p, '.jsonl'), 'subagents');
          for (const sub of listDir(subDir)) {
            const f = join(subDir, sub);
            const sst = statFile(f);
            if (sst && sub.endsWith('.jsonl'))
              s.subagents.push({ ...this.session('claude', f, sst, this.head('claude', f, sst)), sessionId: sub });
          }
        }
        out.push(s);
      }
    };
    walk(dir, 0);
    return out;
  }
}

function agentOfFile(file: string): SessionAgent | undefined {
  try {
    const sniffed = sniffFormat(file);
    if (!('format' in sniffed)) return undefined;
    if (sniffed.format === 'claude-code') return 'claude';
    if (sniffed.format === 'codex') return 'codex';
    if (sniffed.format === 'gemini-cli') return 'gemini';
  } catch {
    // unreadable: not listed
  }
  return undefined;
}

/** One discovery with a fresh cache (the CLI's). */
export function discoverSessions(options: DiscoverOptions): DiscoveredSession[] {
  return new SessionDiscovery().discover(options);
}

/** "just now", "12 min ago", "3 h ago", "5 d ago": how long ago a session was last written. */
export function ageText(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 86400 * 60) return `${Math.floor(s / 86400)} d ago`;
  return new Date(ms).toISOString().slice(0, 10);
}

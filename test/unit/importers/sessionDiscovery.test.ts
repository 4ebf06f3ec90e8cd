/**
 * Finding a workspace's coding-agent sessions in a home folder laid out as each agent lays it out, with real
 * public session files (test/fixtures/importers/README.md): titles a person can tell apart, subagents nested,
 * other workspaces' sessions left out, newest first; and `ocdb sessions` printing the same.
 */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  SessionDiscovery,
  claudeProjectDirName,
  discoverSessions,
  geminiProjectHash,
} from '../../../src/importers/sessions';
import { runCli } from '../../../src/cli/main';
import { FIXTURES } from './helpers';

const FIX = FIXTURES;
const SPOTTER = '/home/USER/projects/spotter-worktrees/spotter-dov';
const SPOTTER_ID = '4d5611e5-241a-462a-8d15-5122611a9569';
const CODEX_WS = '/workspace/synthetic-project';
const CODEX_FILE = 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl';
const GEMINI_FILE = 'session-2025-10-05T07-11-eefc44a3.json';

const homes: string[] = [];
after(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function place(from: string, to: string, mtime: number): string {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(FIX, from), to);
  utimesSync(to, mtime / 1000, mtime / 1000);
  return to;
}

/** A home folder holding the three agents' real sessions, each where its agent writes it. */
function makeHome(): { home: string; claudeDir: string; geminiWs: string } {
  const home = mkdtempSync(join(tmpdir(), 'ocdb-sessions-'));
  homes.push(home);
  const claudeDir = join(home, '.claude/projects', claudeProjectDirName(SPOTTER));
  const t0 = Date.parse('2026-03-01T10:00:00Z');
  place(`claude-code-real/${SPOTTER_ID}.jsonl`, join(claudeDir, `${SPOTTER_ID}.jsonl`), t0);
  place(
    'claude-code-real/spotter-subagent/agent-a2898e3.jsonl',
    join(claudeDir, SPOTTER_ID, 'subagents/agent-a2898e3.jsonl'),
    t0 + 60_000,
  );
  // a session of another project whose folder name would collide (`spotter-dov` vs `spotter/dov`): its cwd says so
  place('claude-code-real/compaction/dag_compact_after_rewind.jsonl', join(claudeDir, 'other.jsonl'), t0 + 1);
  place(`codex/${CODEX_FILE}`, join(home, '.codex/sessions/2026/01/02', CODEX_FILE), t0 - 3_600_000);
  const geminiWs = '/home/USER/projects/rust-tool';
  place(
    `gemini/${GEMINI_FILE}`,
    join(home, '.gemini/tmp', geminiProjectHash(geminiWs), 'chats', GEMINI_FILE),
    t0 - 7_200_000,
  );
  return { home, claudeDir, geminiWs };
}

describe('coding-agent session discovery', () => {
  it('lists a Claude Code session titled by its first prompt, its subagent nested and titled by its task', () => {
    const { home, claudeDir } = makeHome();
    const sessions = discoverSessions({ workspace: SPOTTER, home });
    assert.equal(sessions.length, 1, JSON.stringify(sessions.map((s) => s.file)));
    const [s] = sessions;
    assert.ok(s);
    assert.equal(s.agent, 'claude');
    assert.equal(s.file, join(claudeDir, `${SPOTTER_ID}.jsonl`));
    assert.match(s.title, /^Work on bead spotter-dov\. Run bd show spotter-dov/);
    assert.ok(s.title.length <= 120, s.title);
    assert.equal(s.untitled, false);
    assert.equal(s.subagents.length, 1);
    assert.match(s.subagents[0]?.title ?? '', /^Very thorough exploration\./);
    assert.equal(s.subagents[0]?.sessionId, 'agent-a2898e3');
    // a session is as new as its newest subagent
    assert.equal(s.modifiedAt, s.subagents[0]?.modifiedAt);
  });

  it('finds Codex rollouts by the cwd of session_meta, and Gemini chats by the project hash', () => {
    const { home, geminiWs } = makeHome();
    const codex = discoverSessions({ workspace: CODEX_WS, home });
    assert.deepEqual(
      codex.map((s) => [s.agent, s.title, s.sessionId]),
      [['codex', 'List the synthetic files.', '11111111-1111-4111-8111-111111111111']],
    );
    // a folder inside the workspace is the workspace's too; another folder is not
    assert.equal(discoverSessions({ workspace: '/workspace', home, agents: ['codex'] }).length, 1);
    assert.equal(discoverSessions({ workspace: '/workspace/other', home, agents: ['codex'] }).length, 0);
    const gemini = discoverSessions({ workspace: geminiWs, home });
    assert.deepEqual(
      gemini.map((s) => [s.agent, s.title, s.bytes]),
      [['gemini', '請幫我檢查一下所有代碼是否足夠簡潔 而不是一堆冗餘代碼', 2862]],
    );
  });

  it('titles by the summary Claude Code writes, falls back to the agent and a short id, never a bare UUID', () => {
    const { home, claudeDir } = makeHome();
    const summarised = join(claudeDir, 'f00dfeed-0000-4000-8000-000000000001.jsonl');
    writeFileSync(
      summarised,
      `${JSON.stringify({ type: 'summary', summary: 'Fix the flaky login test', leafUuid: 'x' })}\n` +
        `${JSON.stringify({ type: 'user', cwd: SPOTTER, sessionId: 'f00dfeed-0000-4000-8000-000000000001', message: { role: 'user', content: 'hello' } })}\n`,
    );
    const bare = join(claudeDir, 'deadbeef-0000-4000-8000-000000000002.jsonl');
    writeFileSync(bare, `${JSON.stringify({ type: 'user', cwd: SPOTTER, isMeta: true, message: { content: 'x' } })}\n`);
    const byFile = new Map(discoverSessions({ workspace: SPOTTER, home }).map((s) => [s.file, s]));
    assert.equal(byFile.get(summarised)?.title, 'Fix the flaky login test');
    assert.equal(byFile.get(bare)?.title, 'Claude Code session deadbeef');
    assert.equal(byFile.get(bare)?.untitled, true);
  });

  it('is newest first across agents, and re-reads a file only when it changed', () => {
    const { home, claudeDir } = makeHome();
    const ws = '/home/USER/projects/all';
    // one workspace for all three: move the sessions' homes to it
    const discovery = new SessionDiscovery();
    const extra = [join(home, '.claude/projects'), join(home, '.codex'), join(home, '.gemini')];
    const all = discovery.discover({ workspace: ws, home, extraFolders: extra });
    assert.deepEqual(
      all.map((s) => s.agent),
      ['claude', 'claude', 'codex', 'gemini'],
    );
    assert.ok(all.every((s, i) => i === 0 || (all[i - 1]?.modifiedAt ?? 0) >= s.modifiedAt));
    const file = join(claudeDir, `${SPOTTER_ID}.jsonl`);
    appendFileSync(
      file,
      `${JSON.stringify({ type: 'summary', summary: 'Render subagent transcripts', leafUuid: 'y' })}\n`,
    );
    const again = discovery.discover({ workspace: SPOTTER, home });
    assert.equal(again[0]?.title, 'Render subagent transcripts');
  });

  it('`ocdb sessions` prints the sessions with subagents under them, and --json the same data', async () => {
    const { home } = makeHome();
    const out: string[] = [];
    const io = {
      out: (t: string) => out.push(t),
      err: (t: string) => out.push(t),
      isTty: false,
      env: {},
      cwd: SPOTTER,
    };
    assert.equal(await runCli(['sessions', '--home', home], io), 0);
    const text = out.join('\n');
    assert.match(text, /Claude Code .* Work on bead spotter-dov/);
    assert.match(text, /└ subagent .* Very thorough exploration/);
    out.length = 0;
    assert.equal(await runCli(['sessions', '--home', home, '--json', '--workspace', CODEX_WS], io), 0);
    const json = JSON.parse(out.join('\n')) as { agent: string; title: string; bytes: number }[];
    assert.deepEqual(
      json.map((s) => [s.agent, s.title, s.bytes]),
      [['codex', 'List the synthetic files.', 2664]],
    );
    out.length = 0;
    assert.equal(await runCli(['sessions', '--home', home, '--agent', 'gemini'], io), 0);
    assert.match(out.join('\n'), /No Gemini CLI sessions for/);
    out.length = 0;
    assert.equal(await runCli(['sessions', '--agent', 'cursor'], io), 2);
    assert.match(out.join('\n'), /--agent: expected claude \| codex \| gemini/);
  });
});

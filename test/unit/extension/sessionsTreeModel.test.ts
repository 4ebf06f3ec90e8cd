/**
 * What the "Coding agent sessions" section shows (pure views, no VS Code), and the name an imported coding
 * session's run has in the tree: its title, not an id that looks like every other at 300 px.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiscoveredSession } from '../../../src/importers/sessions';
import { COMMANDS } from '../../../src/extension/ids';
import { runLabel } from '../../../src/extension/runsTreeModel';
import { sessionView, sessionsSectionView } from '../../../src/extension/sessionsTreeModel';
import { importPath } from '../../../src/importers';
import { FIXTURES, REAL_FILE, tempStore } from '../importers/helpers';

const NOW = Date.parse('2026-03-01T12:00:00Z');

function session(over: Partial<DiscoveredSession>): DiscoveredSession {
  return {
    agent: 'claude',
    file: '/home/u/.claude/projects/-w/4d5611e5.jsonl',
    sessionId: '4d5611e5-241a-462a-8d15-5122611a9569',
    title: 'Fix the flaky login test',
    untitled: false,
    bytes: 24837,
    modifiedAt: NOW - 3 * 3600_000,
    subagents: [],
    ...over,
  };
}

describe('sessions tree views', () => {
  it('a session reads title first, then agent, age and size; a click opens it', () => {
    const sub = session({ file: '/x/agent-a.jsonl', title: 'Explore the renderer', modifiedAt: NOW - 120_000 });
    const view = sessionView(session({ subagents: [sub] }), NOW, { subagent: false, followed: false });
    assert.equal(view.label, 'Fix the flaky login test');
    assert.equal(view.description, 'Claude Code · 3 h ago · 24.3 KB');
    assert.equal(view.collapsible, 'collapsed', 'its subagent nests under it');
    assert.deepEqual(view.command, {
      id: COMMANDS.openSession.id,
      title: COMMANDS.openSession.title,
      args: ['/home/u/.claude/projects/-w/4d5611e5.jsonl'],
    });
    assert.match(view.tooltip ?? '', /Click to import and replay/);
    const subView = sessionView(sub, NOW, { subagent: true, followed: true });
    assert.equal(subView.description, 'subagent · 2 min ago · 24.3 KB · followed');
    assert.equal(subView.collapsible, 'none');
    assert.equal(
      sessionView(session({ agent: 'codex' }), NOW, { subagent: false, followed: false }).icon.id,
      'terminal',
    );
  });

  it('the section counts the sessions by agent and opens itself when the store has no runs', () => {
    const list = [session({}), session({ agent: 'gemini' }), session({ agent: 'claude' })];
    const view = sessionsSectionView(list, false);
    assert.equal(view.label, 'Coding agent sessions');
    assert.equal(view.description, '3');
    assert.match(view.tooltip ?? '', /2 Claude Code, 1 Gemini CLI/);
    assert.equal(view.collapsible, 'expanded');
    assert.equal(sessionsSectionView(list, true).collapsible, 'collapsed');
  });

  it('an imported Claude Code session and its subagent are named by their first prompts, not cc-<uuid>', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, REAL_FILE);
      const run = t.store.getRun('cc-4d5611e5-241a-462a-8d15-5122611a9569');
      assert.match(runLabel(run), /^Work on bead spotter-dov\. Run bd show/);
      assert.ok(runLabel(run).length <= 100);
      await importPath(t.store, `${FIXTURES}/gemini/session-2025-10-05T07-11-eefc44a3.json`);
      const gemini = t.store.listRuns({ agentId: undefined }).runs.find((r) => r.runId !== run.runId);
      assert.ok(gemini);
      assert.equal(runLabel(gemini), '請幫我檢查一下所有代碼是否足夠簡潔 而不是一堆冗餘代碼');
      // a run without a title keeps its id
      assert.equal(runLabel({ ...run, metadata: {} }), run.runId);
    } finally {
      t.close();
    }
  });
});

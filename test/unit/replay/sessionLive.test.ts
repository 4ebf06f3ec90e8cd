/**
 * "Live": a session file written within the last minute is being written; the mark goes when it stops growing —
 * in the sessions tree (the description starts with it) and in the transcript's header of its imported run.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { RunView } from '../../../src/replay/runView';
import { SESSION_LIVE_MS, isLiveAt, liveUntil } from '../../../src/replay/sessionLive';
import { sessionView } from '../../../src/extension/sessionsTreeModel';
import type { DiscoveredSession } from '../../../src/importers/sessions';
import { SESSION_FILE, SESSION_ID, tempStore } from '../importers/helpers';

describe('a session still being written', () => {
  it('is live for a minute after its last write, then not', () => {
    const now = 1_000_000_000;
    assert.equal(isLiveAt(now - 1000, now), true);
    assert.equal(isLiveAt(now - SESSION_LIVE_MS - 1, now), false);
    const session = {
      agent: 'claude',
      title: 'Fix the leap year',
      sessionId: SESSION_ID,
      file: '/f.jsonl',
      bytes: 2048,
      modifiedAt: now - 5000,
      subagents: [],
    } as unknown as DiscoveredSession;
    assert.match(
      String(sessionView(session, now, { subagent: false, followed: true, live: true }).description),
      /^live · Claude Code · /,
    );
    assert.doesNotMatch(
      String(sessionView(session, now, { subagent: false, followed: true, live: false }).description),
      /live/,
    );
  });

  it('its imported run’s transcript header says live while the file grows, and not once it stopped', async () => {
    const t = tempStore();
    try {
      const file = path.join(t.dir, `${SESSION_ID}.jsonl`);
      fs.copyFileSync(SESSION_FILE, file);
      await importPath(t.store, file);
      const run = `cc-${SESSION_ID}`;
      assert.ok(liveUntil(t.store.getRun(run)) !== undefined);
      assert.match(
        new RunView(t.store, run).transcript().text.split('\n')[0] ?? '',
        / · live: its file is still being written \(completed so far\) · /,
      );
      const old = (Date.now() - SESSION_LIVE_MS - 5000) / 1000;
      fs.utimesSync(file, old, old);
      assert.equal(liveUntil(t.store.getRun(run)), undefined);
      const header = new RunView(t.store, run).transcript().text.split('\n')[0] ?? '';
      assert.doesNotMatch(header, /still being written/);
      assert.match(header, / · completed · /);
    } finally {
      t.close();
    }
  });
});

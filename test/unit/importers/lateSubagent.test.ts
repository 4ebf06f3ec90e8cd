/**
 * A Claude Code sub-agent whose file (`<session>/subagents/agent-*.jsonl`) appears after its session was imported —
 * a live session starts a sub-agent later: importing the session again imports the sub-agent and lists it under its
 * session (the session run's `metadata.subagents`, which the Runs view nests by), whether the session's own file
 * grew meanwhile or not; a third import changes nothing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { subagentRunIds } from '../../../src/extension/runsTreeModel';
import { SESSION_FILE, SESSION_ID, tempStore } from './helpers';

const RUN = `cc-${SESSION_ID}`;
const SUBAGENTS = path.join(path.dirname(SESSION_FILE), SESSION_ID, 'subagents');

describe('a sub-agent that appears after its session was imported', () => {
  for (const grew of [false, true])
    it(`is imported and listed under its session on the next import${grew ? ' (the session grew too)' : ''}`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-late-subagent-'));
      const t = tempStore();
      try {
        const file = path.join(dir, `${SESSION_ID}.jsonl`);
        const lines = fs.readFileSync(SESSION_FILE, 'utf8').split(/(?<=\n)/);
        // the session up to its sub-agent's result (or whole), without the subagents folder
        const cut = grew ? lines.findIndex((l) => l.includes('"tool_use_id":"toolu_04Task"')) + 1 : lines.length;
        assert.ok(cut > 0);
        fs.writeFileSync(file, lines.slice(0, cut).join(''));
        const first = await importPath(t.store, file);
        assert.equal(first.files[0]?.outcome, 'imported');
        assert.deepEqual(subagentRunIds(t.store.getRun(RUN)), []);
        const before = new Set(t.store.listRuns().runs.map((r) => r.runId));

        fs.cpSync(SUBAGENTS, path.join(dir, SESSION_ID, 'subagents'), { recursive: true });
        if (grew) fs.appendFileSync(file, lines.slice(cut).join(''));
        const second = await importPath(t.store, file);
        assert.equal(second.files[0]?.outcome, 'imported', second.files[0]?.reason);
        const subs = subagentRunIds(t.store.getRun(RUN));
        assert.equal(subs.length, 1, JSON.stringify(t.store.getRun(RUN).metadata.subagents));
        const sub = t.store.getRun(subs[0] as string);
        assert.equal(sub.agentId, 'claude-code/subagent');
        assert.ok(sub.checkpointCount > 0);
        assert.ok(!before.has(sub.runId), 'the sub-agent is a run of its own, new');

        const third = await importPath(t.store, file);
        assert.equal(third.files[0]?.outcome, 'skipped');
        assert.deepEqual(subagentRunIds(t.store.getRun(RUN)), subs);
      } finally {
        t.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
});

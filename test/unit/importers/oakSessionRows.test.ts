/**
 * open-agent-kernel keeps each session's Claude Agent SDK messages as rows (seed 002 §4.4, oak_session_entries:
 * the whole SessionStoreEntry in `entry`, timestamps as numbers, user content as a plain string). A JSON array or
 * JSONL export of those rows imports with the Claude Code importer as the same run a transcript would give.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importFile } from '../../../src/importers';
import { messageText, toolOutcomeOf } from '../../../src/model';
import { tmpStore } from '../../helpers/tmp';

const SEEDS = path.join(__dirname, '..', '..', 'fixtures', 'seeds');

describe('open-agent-kernel session rows', () => {
  for (const name of ['oak-session-entries.json', 'oak-session-entries.jsonl']) {
    it(`imports ${name} (sniffed) as the session's run`, async () => {
      const store = tmpStore();
      const result = await importFile(store, path.join(SEEDS, name), {});
      assert.equal(result.outcome, 'imported', result.reason);
      assert.equal(result.format, 'claude-code');
      const [info] = result.runs;
      assert.ok(info);
      const run = store.exportRun(info.runId);
      assert.equal(run.sessionId, '3b1f9c2e-8a47-4d1e-b6a0-5e2c7d9f1a30');
      assert.equal(run.status, 'completed');
      const messages = run.checkpoints.at(-1)?.messages ?? [];
      assert.deepEqual(
        messages.map((m) => [m.role, messageText(m)]),
        [
          ['user', '帮我看看 orders 集合里今天有多少笔退款？'],
          ['assistant', '我来查询一下 orders 集合。'],
          ['tool', '{"total":7}'],
          ['assistant', '今天共有 7 笔退款。'],
        ],
      );
      assert.deepEqual(
        run.toolLedger.map((r) => [r.toolName, toolOutcomeOf(r)]),
        [['mcp__cloudbase__queryDocuments', 'success']],
      );
      // numeric timestamps (or the row's createdAt) are the run's clock
      assert.equal(run.startedAt, Date.parse('2026-05-28T09:35:25.876Z') + 1500);
      const usage = run.checkpoints.filter((c) => c.usage).map((c) => c.usage?.outputTokens);
      assert.deepEqual(usage, [64, 18]);
    });
  }
});

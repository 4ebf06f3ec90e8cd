/**
 * The summary an append returns is made from what it wrote, not parsed back from the row (parsing was a share of an import's writes): it is
 * the one the store reads back, with the same keys in the same order (a summary is sent as JSON over HTTP).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';

test('the summary an append returns is the one the store reads back', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-summary-'));
  const store = openRunStore(path.join(dir, 'runs.db'), { create: true });
  try {
    const runId = 'r-summary';
    store.createRun({ runId, sessionId: 's', agentId: 'a', mode: 'live', startedAt: 1 });
    const ctx = JSON.parse(JSON.stringify(testContext())) as Parameters<
      typeof store.appendCheckpoint
    >[0]['runtimeContext'];
    const base = { runId, messages: [], toolLedgerSnapshot: [], runtimeContext: ctx, createdAt: 5 };
    const appended = [
      store.appendCheckpoint({ ...base, checkpointId: `${runId}#0`, boundary: 'before_model_call', stepIndex: 0 }),
      store.appendCheckpoint({
        ...base,
        checkpointId: `${runId}#1`,
        boundary: 'after_model_call',
        stepIndex: 0,
        messages: [{ role: 'assistant', content: 'hi' }],
        finishReason: 'stop',
        usage: { inputTokens: 3, outputTokens: 4, cached: { read: 1 } },
        promptVersion: 'v2',
      }),
    ];
    for (const summary of appended) {
      const read = store.getCheckpointSummary(summary.checkpointId);
      assert.deepEqual(summary, read);
      assert.deepEqual(Object.keys(summary), Object.keys(read), 'the same keys in the same order');
    }
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';

/** Records `steps` ReAct steps (a model call and a ~1 KB tool result each) into the recorder's run. */
async function record(
  file: string,
  steps: number,
): Promise<{ close: () => void; runId: string; append: (text: string) => void }> {
  const recorder = openRecorder({ store: file, heartbeatMs: 0 });
  const run = recorder.startRun({
    agentId: 'a',
    runtimeContext: testContext(),
    messages: [{ role: 'user', content: 'go' }],
  });
  const tool = run.tool('search', { sideEffectLevel: 'read_only' }, (a: { i: number }) => ({
    text: `r${a.i} `.repeat(200),
  }));
  for (let i = 0; i < steps; i++) {
    await run.modelCall({}, async () => ({ message: { role: 'assistant', content: `step ${i} `.repeat(100) } }));
    await tool({ i });
  }
  return {
    close: () => (run.end(), recorder.close()),
    runId: run.runId,
    append: (text) => void run.checkpoint('before_prompt_build', { messages: [{ role: 'user', content: text }] }),
  };
}

test("the SDK's store copies its WAL into the database in a thread of its own, and its close leaves no WAL", async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'walcp-')), 'runs.db');
  const { close, runId, append } = await record(file, 60);
  assert.ok(statSync(`${file}-wal`).size > 1_000_000, 'the recording went to the WAL');
  // the agent idle: its store's file stops changing once every committed page is copied in
  const settled = async (): Promise<number> => {
    let size = statSync(file).size;
    for (let i = 0; i < 20; i++) {
      await sleep(150);
      const now = statSync(file).size;
      if (now === size && i > 2) break;
      size = now;
    }
    return size;
  };
  const idle = await settled();
  // one commit of ~200 KB of new pages, far below any autocheckpoint: the writer's commit does not copy it ...
  const big = randomBytes(150_000).toString('base64');
  append(big);
  const afterCommit = statSync(file).size;
  // ... the store's own thread does, while the agent waits
  const later = await settled();
  assert.ok(later > afterCommit + 100_000, `the file grew from ${afterCommit} to ${later} bytes (idle: ${idle})`);
  close();
  assert.equal(existsSync(`${file}-wal`), false, 'closed, the store has no WAL left');
  const store = openRunStore(file, { create: false });
  assert.equal(store.getRun(runId).status, 'completed');
  assert.equal(store.listCheckpoints(runId).length, 60 * 4 + 2);
  store.close();
});

test('a store opened without background checkpoints leaves its WAL to its commits', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'walcp-')), 'runs.db');
  const store = openRunStore(file);
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const run = recorder.startRun({ agentId: 'a', runtimeContext: testContext() });
  for (let i = 0; i < 100; i++)
    run.checkpoint('before_model_call', { messages: [{ role: 'user', content: `m${i} `.repeat(300) }] });
  const dbBefore = statSync(file).size;
  await sleep(300);
  assert.equal(statSync(file).size, dbBefore, 'no thread copied the WAL');
  run.end();
  recorder.close();
  store.close();
});

/**
 * Checkpoint rows of schema 7, on the engine of the test run: a checkpoint id is found by itself
 * whatever it is — a UUID (stored as its 16 bytes), an uppercase UUID, an id of exactly 16 bytes, one that is not
 * ASCII (stored as text) — through every read, a fork from it and the store's refusal of a second use; a run's
 * head (system prompt, model, prompt version, context, artifacts) is one row for all the checkpoints that share it,
 * and reads back per checkpoint when it changes; usages, boundaries and ids read back exactly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ForkService } from '../../../src/fork/forkService';
import type { Checkpoint, DebugRun } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import {
  BOUNDARY_CODES,
  boundaryOf,
  checkpointIdOf,
  checkpointKey,
  usageColumn,
  usageOf,
} from '../../../src/store/rowCodec';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const IDS = [
  '3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c',
  'ABCDEF01-2345-4678-9ABC-DEF012345678',
  'sixteen-bytes-id',
  'ünïcödé-sixteen!',
  'abcdef01-2345-4678-9abc-def01234567g',
  '0123456789abcdef0123456789abcdef',
  'cp-7',
];

test('a checkpoint id reads back as it was, on both column kinds', () => {
  for (const bytesOnly of [false, true]) {
    for (const id of [...IDS, 'x', 'ff', '\u00ff'.repeat(8), 'a'.repeat(17)]) {
      assert.equal(checkpointIdOf(checkpointKey(id, bytesOnly)), id, `${id} (${bytesOnly ? 'bytes' : 'text'})`);
    }
    const keys = new Set(IDS.map((id) => Buffer.from(checkpointKey(id, true)).toString('hex')));
    assert.equal(keys.size, IDS.length, 'no two ids share a key');
  }
  assert.equal(Buffer.from(checkpointKey(IDS[0] as string)).length, 16, 'a UUID is its 16 bytes');
  assert.equal(checkpointKey('sixteen-bytes-id'), 'sixteen-bytes-id', 'other ids are their text on SQLite');
  for (const [name, code] of Object.entries(BOUNDARY_CODES)) assert.equal(boundaryOf(code), name);
  assert.equal(boundaryOf(99), 99, 'an unknown code is left for the schema to refuse');
  for (const usage of [
    { inputTokens: 500, outputTokens: 40 },
    { inputTokens: 10.5, outputTokens: 3 },
    { inputTokens: 1, outputTokens: 2, captured: true },
    { inputTokens: 2 ** 60, outputTokens: 1 },
  ]) {
    assert.deepEqual(usageOf(usageColumn(usage)), usage);
  }
  assert.equal(usageColumn({ inputTokens: 500, outputTokens: 40 }), '[500,40]');
});

async function recordWithHeads(store: ReturnType<typeof tmpStore>): Promise<string> {
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
  const ctx = testContext();
  const run = recorder.startRun({ agentId: 'heads', runtimeContext: ctx, systemPrompt: 'First prompt.' });
  for (let step = 0; step < 3; step++) {
    await run.modelCall({}, () =>
      Promise.resolve({
        message: { role: 'assistant', content: `step ${step}` },
        usage: { inputTokens: 100 + step, outputTokens: 7 },
      }),
    );
  }
  run.checkpoint('before_model_call', { systemPrompt: 'Second prompt.' });
  run.checkpoint('before_model_call', { runtimeContext: { ...ctx, task: { ...ctx.task, taskId: 'task-2' } } });
  await run.modelCall({}, () => Promise.resolve({ message: { role: 'assistant', content: 'done' } }));
  run.end();
  recorder.close();
  return run.runId;
}

test('checkpoints of a run whose prompt and context change read back their own head, usage and boundary', async () => {
  const store = tmpStore();
  const runId = await recordWithHeads(store);
  const checkpoints = store.exportRun(runId).checkpoints;
  const prompts = checkpoints.map((c) => c.systemPrompt);
  assert.deepEqual([...new Set(prompts)], ['First prompt.', 'Second prompt.']);
  const tasks = checkpoints.map((c) => (c.runtimeContext.task as { taskId: string }).taskId);
  assert.deepEqual([...new Set(tasks)], ['task-1', 'task-2']);
  assert.ok(checkpoints.every((c, i) => i === 0 || c.checkpointId !== checkpoints[0]?.checkpointId));
  const usages = store.listCheckpoints(runId).flatMap((s) => (s.usage ? [s.usage] : []));
  assert.deepEqual(usages, [
    { inputTokens: 100, outputTokens: 7 },
    { inputTokens: 101, outputTokens: 7 },
    { inputTokens: 102, outputTokens: 7 },
  ]);
  assert.equal(store.getRun(runId).inputTokens, 303);
  // the same run loaded again under another id: its checkpoints read back as the recording's
  const exported = store.exportRun(runId);
  const copy = {
    ...exported,
    runId: 'copy',
    checkpoints: exported.checkpoints.map((c, i) => ({ ...c, runId: 'copy', checkpointId: `copy-${i}` })),
  } as DebugRun;
  store.loadRun(copy);
  const again = store.exportRun('copy').checkpoints.map((c) => ({ ...c, runId, checkpointId: '' }));
  assert.deepEqual(
    again,
    checkpoints.map((c) => ({ ...c, checkpointId: '' })),
  );
});

test('a checkpoint is found by its id, whether it is a UUID or not', async () => {
  const store = tmpStore();
  const runId = await recordWithHeads(store);
  const recorded = store.exportRun(runId);
  const base = recorded.checkpoints.slice(0, IDS.length);
  assert.equal(base.length, IDS.length);
  const run = {
    ...recorded,
    runId: 'ids',
    checkpoints: base.map((c, i) => ({ ...c, runId: 'ids', checkpointId: IDS[i] as string })),
    toolLedger: [],
  } as DebugRun;
  store.loadRun(run);
  for (const [i, id] of IDS.entries()) {
    const expected = run.checkpoints[i] as Checkpoint;
    assert.deepEqual(store.getCheckpoint(id), expected, `getCheckpoint(${id})`);
    assert.deepEqual(store.getCheckpointView(id).messages.slice(), expected.messages, `view of ${id}`);
    assert.equal(store.getCheckpointSummary(id).index, i, `summary of ${id}`);
    assert.equal(store.getCheckpointSummary(id).checkpointId, id);
    assert.deepEqual(store.getLastMessage(id), expected.messages.at(-1));
  }
  assert.deepEqual(
    store.listCheckpoints('ids').map((s) => s.checkpointId),
    IDS,
  );
  assert.throws(() => store.getCheckpoint(IDS[0]?.toUpperCase() as string), { code: 'CheckpointNotFound' });
  assert.throws(() => store.getCheckpoint('sixteen-bytes-iD'), { code: 'CheckpointNotFound' });
  // a second use of an id is refused, UUID or not
  for (const id of [IDS[0], IDS[2]] as string[]) {
    const dup = {
      ...run,
      runId: `dup-${id}`,
      checkpoints: [{ ...run.checkpoints[0], runId: `dup-${id}`, checkpointId: id }],
    };
    assert.throws(() => store.loadRun(dup), /already used|not unique|unique/);
  }
  // forks from a UUID id and from a 16-byte one continue its state
  for (const id of [IDS[0], IDS[3]] as string[]) {
    const created = new ForkService(store).createReplay('ids', { fromCheckpointId: id });
    const first = store.listCheckpoints(created.runId)[0];
    assert.ok(first);
    assert.deepEqual(store.getCheckpoint(first.checkpointId).messages, store.getCheckpoint(id).messages);
    assert.equal(store.getRun(created.runId).forkFromCheckpointId, id);
  }
});

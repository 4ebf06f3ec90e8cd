/**
 * A Claude Code transcript is written while it is read (memory is not the file's): its runs stream from the mapper to
 * the store, and the writer lets go of what it wrote every few checkpoints (RunWriter.rebase), continuing from the
 * store's stored items. Whatever the interval — every checkpoint, every third, never — every run exports exactly
 * as the plans read whole in memory and written by `writeRunPlan` export, forks, subagents and compactions
 * included; and a transcript that changes between its two reads leaves nothing in the store.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { prepareClaudeCodeSession, readClaudeCodeSession } from '../../../src/importers/claudeCode/importSession';
import { importFile } from '../../../src/importers/importFile';
import { noteGrowable } from '../../../src/importers/growth';
import { StreamedPlans, writeRunPlan } from '../../../src/importers/writePlan';
import type { RunStore } from '../../../src/store';
import { FIXTURES, SESSION_FILE, tempStore } from './helpers';

const SESSIONS = [
  SESSION_FILE,
  path.join(FIXTURES, 'claude-code-real', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl'),
  path.join(FIXTURES, 'claude-code-real', 'compaction', 'dag_compact_after_rewind.jsonl'),
  path.join(FIXTURES, 'claude-code-real', 'sidechain-2.0', '88a8d761-7b9a-4bf1-a8ca-c1febe6bf358.jsonl'),
  path.join(FIXTURES, 'claude-code-real', 'spotter-subagent', 'agent-a2898e3.jsonl'),
];

const options = () => ({
  warnings: [],
  unknownTypes: {},
  sideEffectOf: () => 'read_only' as const,
  skip: (_r: unknown, e: unknown) => {
    throw e;
  },
});

/** Every run of the store, exported (the store's volatile fields taken out). */
function exports(store: RunStore, runIds: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const id of [...runIds].sort()) {
    out[id] = JSON.parse(JSON.stringify(store.exportRun(id)), (key, v: unknown) =>
      key === 'ownerPid' || key === 'ownerHost' || key === 'heartbeatAt' ? undefined : v,
    );
  }
  return out;
}

async function inMemory(file: string): Promise<Record<string, unknown>> {
  const t = tempStore();
  try {
    const read = await readClaudeCodeSession(file, options());
    const bytes = new Map([
      [file, fs.statSync(file).size],
      ...read.extraFiles.map((f) => [f, fs.statSync(f).size] as const),
    ]);
    noteGrowable(read.plans, bytes);
    t.store.transaction(() => read.plans.map((p) => writeRunPlan(t.store, p)));
    return exports(
      t.store,
      read.plans.map((p) => p.runId),
    );
  } finally {
    t.close();
  }
}

async function streamed(file: string, rebaseEvery: number): Promise<Record<string, unknown>> {
  const t = tempStore();
  const prepared = await prepareClaudeCodeSession(file, options());
  try {
    const ids = t.store.transaction(() => {
      const out = new StreamedPlans(t.store, { grows: true, rebaseEvery });
      const read = prepared.build(out);
      const shas = prepared.verify();
      const bytes = new Map([
        [file, fs.statSync(file).size],
        ...read.extraFiles.map((f) => [f, fs.statSync(f).size] as const),
      ]);
      noteGrowable(read.plans, bytes, (p) => out.resumeOf(p), shas);
      for (const plan of read.plans) {
        assert.equal(plan.ops.length, 0, `${plan.runId}: its ops streamed, none kept`);
        out.close(plan);
      }
      return read.plans.map((p) => p.runId);
    });
    return exports(t.store, ids);
  } finally {
    prepared.close();
    t.close();
  }
}

describe('a Claude Code transcript written while it is read', () => {
  for (const file of SESSIONS) {
    it(`${path.relative(FIXTURES, file)}: exports as its plans read whole, whenever the writer lets go`, async () => {
      const want = await inMemory(file);
      assert.ok(Object.keys(want).length > 0);
      for (const every of [1, 3, 0]) assert.deepEqual(await streamed(file, every), want, `rebase every ${every}`);
    });
  }

  it('leaves nothing when the file changes between its two reads', async () => {
    const t = tempStore();
    try {
      const copy = path.join(t.dir, 'session.jsonl');
      const text = fs.readFileSync(SESSION_FILE, 'utf8');
      fs.writeFileSync(copy, text);
      const result = await importFile(t.store, copy, {}, (_f, n) => {
        // Once the first read is done, the file is rewritten (same length, one byte changed).
        if (n === Buffer.byteLength(text)) fs.writeFileSync(copy, text.replace('"user"', '"User"'));
      });
      assert.equal(result.outcome, 'failed');
      assert.match(result.reason ?? '', /changed while it was imported/);
      assert.equal(t.store.listRuns().total, 0);
    } finally {
      t.close();
    }
  });
});

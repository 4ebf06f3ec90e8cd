/** Shared helpers of the importer tests: a fresh store in a temp dir, fixture paths, checkpoint loading. */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach } from 'node:test';
import type { Checkpoint } from '../../../src/model';
import { fileRange, type ByteRange } from '../../../src/importers/fileTail';
import { openRunStore, type SqlRunStore } from '../../../src/store';

export const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'importers');
export const SESSION_ID = '7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11';
export const SESSION_FILE = path.join(FIXTURES, 'claude-code', `${SESSION_ID}.jsonl`);
export const REAL_FILE = path.join(FIXTURES, 'claude-code-real', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl');

export interface TempStore {
  dir: string;
  store: SqlRunStore;
  close(): void;
}

export function tempStore(): TempStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-import-'));
  const store = openRunStore(path.join(dir, 'runs.db'), { create: true });
  return {
    dir,
    store,
    close() {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A maker of temp stores for the tests of a `describe`: every store it made is closed after each test. */
export function tempStores(): () => TempStore {
  const open: TempStore[] = [];
  afterEach(() => {
    for (const t of open.splice(0)) t.close();
  });
  return () => {
    const t = tempStore();
    open.push(t);
    return t;
  };
}

export function checkpoints(store: SqlRunStore, runId: string): Checkpoint[] {
  return store.listCheckpoints(runId).map((c) => store.getCheckpoint(c.checkpointId));
}

/** Lines of a Claude Code JSONL file as objects (test-side reading, independent of the importer). */
export function jsonLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A ByteRange over `file` that notes every range read. */
export function counted(file: string): { read: ByteRange; ranges: [number, number][] } {
  const ranges: [number, number][] = [];
  const inner = fileRange(file);
  return {
    ranges,
    read: (start, length) => {
      ranges.push([start, length]);
      return inner(start, length);
    },
  };
}

/**
 * Every run of the store as exported (its checkpoints each as the sha256 of its JSON: a long run's export is too
 * large for one string), and the files each run's import rebuilt; `dir` in paths replaced by `as`.
 */
export function state(store: SqlRunStore, dir: string, as: string): Record<string, unknown> {
  const text = (v: unknown) => JSON.stringify(v).split(dir).join(as);
  const out: Record<string, unknown> = {};
  for (const run of store.listRuns({ limit: 1000 }).runs) {
    const { checkpoints, ...head } = store.exportRun(run.runId);
    out[run.runId] = {
      head: JSON.parse(text(head)) as unknown,
      checkpoints: checkpoints.map((c) => createHash('sha256').update(text(c)).digest('hex')),
      files: JSON.parse(text(store.getRebuiltFiles(run.runId) ?? null)) as unknown,
    };
  }
  return out;
}

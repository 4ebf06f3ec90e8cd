/** Test helpers: temporary folders and stores that clean up after the test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { openRunStore, type SqliteRunStore } from '../../src/store';

/** A fresh temporary folder, removed when the test file ends. */
export function tmpDir(prefix = 'ocdb-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh store in a temporary folder, closed when the test file ends. */
export function tmpStore(name = 'runs.db'): SqliteRunStore {
  const store = openRunStore(join(tmpDir(), name));
  after(() => store.close());
  return store;
}

/** Test helpers: temporary folders and stores that clean up after the test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { openRunStore, type SqlRunStore } from '../../src/store';
import { tmpLocation } from './engines';

/** A fresh temporary folder, removed when the test file ends. */
export function tmpDir(prefix = 'ocdb-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A fresh store, closed when the test file ends: a file in a temporary folder, or a fresh PostgreSQL schema when
 * the tests run on PostgreSQL (helpers/engines.ts).
 */
export function tmpStore(name = 'runs.db'): SqlRunStore {
  const store = openRunStore(tmpLocation(name));
  after(() => store.close());
  return store;
}

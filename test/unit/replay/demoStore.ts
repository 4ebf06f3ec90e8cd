/** Test helper: the demo store written in-process into a temp folder (real SQLite, real recorder). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore, type SqlRunStore } from '../../../src/store';

export function openDemoStore(): SqlRunStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-replay-'));
  const store = openRunStore(path.join(dir, 'runs.db'));
  writeDemoStore(store);
  return store;
}

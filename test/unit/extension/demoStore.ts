/**
 * A fresh demo store in a temp folder for the extension's pure tests: the
 * same seven runs `ocdb demo` writes (support refund + its auditor fork,
 * failed, cancelled and crashed runs, tool errors).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore, type RunStore } from '../../../src/store';

export function openDemoStore(): { store: RunStore; dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'att-ext-'));
  const store = openRunStore(path.join(dir, 'runs.db'), { create: true });
  writeDemoStore(store);
  return {
    store,
    dir,
    cleanup() {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

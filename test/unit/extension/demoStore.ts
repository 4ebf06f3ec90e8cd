/**
 * A fresh demo store in a temp folder for the extension's pure tests: the
 * same seven runs `ocdb demo` writes (support refund + its auditor fork,
 * failed, cancelled and crashed runs, tool errors).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore, type CheckpointSummary, type RunStore } from '../../../src/store';
import type { EditorCheckpoint } from '../../../src/webview/protocol';

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

/** The fork editor's view of checkpoint `at` of `runId` (what the host posts in its `show` message). */
export function editorCheckpointOf(store: RunStore, runId: string, at: CheckpointSummary): EditorCheckpoint {
  const cp = store.getCheckpoint(at.checkpointId);
  return {
    runId,
    checkpointId: cp.checkpointId,
    checkpointIndex: at.index,
    checkpointCount: store.getRun(runId).checkpointCount,
    boundary: cp.boundary,
    stepIndex: cp.stepIndex,
    agentId: 'support-agent',
    runtimeContext: cp.runtimeContext,
  };
}

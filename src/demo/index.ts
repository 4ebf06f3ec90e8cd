/**
 * The demo store: realistic, deterministic runs of three agents (support,
 * research, coding) recorded through the recorder SDK — every side-effect
 * level and replay policy, tool errors, a failed, a cancelled and a crashed
 * run, and a fork. Every later feature is shown and tested on it.
 */
import { spawnSync } from 'node:child_process';
import type { RunStore } from '../store';
import { cancelledScript, codingScript } from './codingScripts';
import { crashedScript, researchScript } from './researchScripts';
import { playScript } from './scriptedAgent';
import { AUDITOR_FORK_STEP, auditorForkScript, escalationScript, refundScript } from './supportScripts';

export const DEMO_RUN_IDS = [
  'demo-support-refund',
  'demo-support-refund-auditor',
  'demo-support-escalation',
  'demo-research-rag',
  'demo-research-crashed',
  'demo-coding-fix',
  'demo-coding-cancelled',
] as const;

/** A pid that no process has any more: the owner of the crashed demo run. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid ?? 2 ** 22 + 1;
}

/**
 * Writes the demo runs into `store`, replacing earlier demo runs of the same
 * ids. Returns the run ids written.
 */
export function writeDemoStore(store: RunStore): string[] {
  for (const id of DEMO_RUN_IDS) if (store.hasRun(id)) store.deleteRun(id);
  const written: string[] = [];
  written.push(playScript(store, refundScript));
  const from = store
    .listCheckpoints(refundScript.runId)
    .find((c) => c.stepIndex === AUDITOR_FORK_STEP && c.boundary === 'before_prompt_build');
  if (!from) throw new Error('demo: the refund run has no step to fork from');
  const source = store.getCheckpoint(from.checkpointId);
  written.push(playScript(store, auditorForkScript(from.checkpointId, source.messages)));
  written.push(playScript(store, escalationScript));
  written.push(playScript(store, researchScript));
  written.push(playScript(store, crashedScript(deadPid())));
  written.push(playScript(store, codingScript));
  written.push(playScript(store, cancelledScript));
  return written;
}

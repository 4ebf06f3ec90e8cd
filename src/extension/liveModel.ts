/**
 * What live debugging (attach to a running agent) looks like in VS Code, as pure data: the agents a user
 * can pick for "Debug Next Run of Agent…" (from the store's runs, newest first), the words of a live stop
 * ("stopped before lookup_order") and the status-bar text of a live session. The vscode parts (agentPicker.ts,
 * statusBar.ts, the runs tree) only show these. No vscode import.
 */
import type { CheckpointBoundary } from '../model';
import type { RunSummary } from '../store';
import { formatTime } from './format';

/** One agent of the store, as the agent pick lists it. */
export interface AgentChoice {
  agentId: string;
  /** Runs of it among those read (forks included). */
  runCount: number;
  /** Runs of it being recorded now (not crashed). */
  runningCount: number;
  /** When its newest run started. */
  lastStartedAt: number;
}

/** Whether a run is being recorded by a live process now (what Attach needs). */
export function isRecording(run: Pick<RunSummary, 'status' | 'crashed'>): boolean {
  return run.status === 'running' && !run.crashed;
}

/** The agents of `runs` (given newest first, as `listRuns` reads them), newest first, one entry each. */
export function agentChoices(runs: readonly RunSummary[]): AgentChoice[] {
  const byAgent = new Map<string, AgentChoice>();
  for (const run of runs) {
    let choice = byAgent.get(run.agentId);
    if (!choice) {
      choice = { agentId: run.agentId, runCount: 0, runningCount: 0, lastStartedAt: run.startedAt };
      byAgent.set(run.agentId, choice);
    }
    choice.runCount++;
    if (isRecording(run)) choice.runningCount++;
    choice.lastStartedAt = Math.max(choice.lastStartedAt, run.startedAt);
  }
  return [...byAgent.values()].sort((a, b) => b.lastStartedAt - a.lastStartedAt);
}

/** The quick-pick description of an agent: `3 runs · last 2026-12-01 12:00:03 · 1 running`. */
export function agentChoiceDescription(choice: AgentChoice): string {
  const parts = [
    `${choice.runCount} run${choice.runCount === 1 ? '' : 's'}`,
    `last ${formatTime(choice.lastStartedAt)}`,
  ];
  if (choice.runningCount > 0) parts.push(`${choice.runningCount} running`);
  return parts.join(' · ');
}

/** Where a live agent waits, in words: `before lookup_order`, `before the model call`, `at after_tool_call`. */
export function stopPlaceText(checkpoint: { boundary: CheckpointBoundary | string; toolName?: string }): string {
  if (checkpoint.boundary === 'before_tool_call') return `before ${checkpoint.toolName ?? 'a tool call'}`;
  if (checkpoint.boundary === 'before_model_call') return 'before the model call';
  if (checkpoint.boundary === 'after_tool_call' && checkpoint.toolName) return `after ${checkpoint.toolName}`;
  return `at ${checkpoint.boundary}`;
}

/**
 * The status-bar text of an attached session's position. At the run's newest checkpoint of a run still recording,
 * the agent itself waits there: `live · stopped before lookup_order`. Anywhere else the cursor is in what the run
 * already recorded (Step Back while attached): `live · recorded step 0/2 · before_model_call`.
 */
export function livePositionText(
  run: Pick<RunSummary, 'status' | 'crashed' | 'stepCount' | 'checkpointCount'>,
  checkpoint: { index: number; stepIndex: number; boundary: CheckpointBoundary | string; toolName?: string },
): string {
  if (isRecording(run) && checkpoint.index === run.checkpointCount - 1)
    return `live · stopped ${stopPlaceText(checkpoint)}`;
  const step = checkpoint.stepIndex < 0 ? 'end' : `step ${checkpoint.stepIndex}/${run.stepCount}`;
  return `live · recorded ${step} · ${checkpoint.boundary}`;
}

/**
 * The status-bar text of an attached session no agent is stopped in: waiting for an agent's next run, or attached
 * to a run that is running (`live · waiting for support-bot`, `live · attached to 44632b6d…`).
 */
export function liveAttachedText(config: { agentId?: unknown; runId?: unknown }): string {
  if (typeof config.runId === 'string' && config.runId !== '') {
    const id = config.runId.length > 12 ? `${config.runId.slice(0, 8)}…` : config.runId;
    return `live · attached to ${id}`;
  }
  return `live · waiting for ${typeof config.agentId === 'string' ? config.agentId : 'an agent'}`;
}

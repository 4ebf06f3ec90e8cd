/**
 * DebugTarget: what a session debugs, behind one interface — a replayed run (replayTarget.ts) or the runs of an
 * attach (liveTarget.ts). The session (agentReplaySession.ts) translates DAP requests into these calls and never asks
 * which one it holds. Threads, their controllers, moves and stops; no DAP transport, no vscode.
 */
import type { RunView } from '../replay/runView';
import type { FrameRef } from './frames';
import type { PendingEdits } from './pendingEdits';
import type { CustomAnswer, ReplayController, StopInfo, StopRules } from './replayController';

/** A stop to report on `threadId`; `grown`: a run still being recorded, whose transcript source is sent first. */
export interface Arrival {
  threadId: number;
  stop: StopInfo;
  grown?: RunView;
}

/** A forward move that an attached agent makes itself when the cursor is at the stop it waits at. */
export type AgentMove = 'continue' | 'next' | 'stepIn' | 'stepOut';

/**
 * What a step, goto, restart or continue does: the agent goes on (`went` names what was sent; its next stop comes
 * later, unasked), or the cursor of `ctl` moves through the recording and `arrive` turns where it ended into the stop
 * to report.
 */
export type Move = { went: string } | { ctl: ReplayController; arrive(stop: StopInfo): Arrival };

export interface DebugTarget {
  /** Whether a stop or a continue is of every thread (a replay's one thread) or of one (each attached run its own). */
  readonly allThreads: boolean;
  /** The threads to list (DAP `threads`). */
  threads(): { id: number; name: string }[];
  /**
   * The controller of `threadId` (InvalidInput for a thread not of this session), or without one the controller a
   * request without a thread means; InvalidInput when nothing is launched or attached yet.
   */
  controller(threadId?: number): ReplayController;
  /** The controller showing `runId`, if one does. */
  ctlOfRun(runId: string): ReplayController | undefined;
  /** The thread a frame of `runId` belongs to (restart frame moves that thread). */
  threadOfRun(runId: string): number;
  /** The controller whose frames `threadId` shows now; undefined while its agent runs (no frames until it stops). */
  framesOf(threadId: number): ReplayController | undefined;
  /** The runs the session shows (their transcripts are the Loaded Scripts). */
  shownRuns(): RunView[];
  /** The client has sent its breakpoints (`first`: for the first time since the launch): the stop to report, if any. */
  configurationDone(first: boolean): Arrival | undefined;
  /** A move of `threadId`; `agentMove` when the move is one an agent waiting at the cursor makes itself. */
  move(threadId: number, agentMove?: AgentMove): Move;
  /** Pause of `threadId` (checked by `controller` first): the stop to report now, or none (it comes at the next boundary). */
  pause(threadId: number): Arrival | undefined;
  /** The edits of the stop `ref` shows, when an agent waits there (the Pending scope). */
  pendingAt(ref: FrameRef): PendingEdits | undefined;
  /** The session's breakpoints and exception filters. */
  rules(): StopRules;
  /** The tool names a function breakpoint is verified against; undefined: any name (a run may still call any tool). */
  toolNames(): ReadonlySet<string> | undefined;
  /** Why breakpoints on `runId`'s transcript cannot stop anything here, if they cannot. */
  unreachable(runId: string): string | undefined;
  /** The custom requests of protocol.ts that a controller answers (fork, stagedContextPatch). */
  customRequest(command: string, args: unknown): CustomAnswer;
  /** Lets the agents go on (terminate, a client gone): what the session holds afterwards. */
  detach(): DebugTarget;
  /** Closes it all (a new launch or attach, disconnect). */
  close(): void;
}

/** The controller showing `runId`, else the one a request without a thread means. */
export function controllerOfRun(target: DebugTarget, runId: string): ReplayController {
  return target.ctlOfRun(runId) ?? target.controller();
}

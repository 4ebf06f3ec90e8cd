/**
 * ReplayTarget: the DebugTarget (debugTarget.ts) of a launch — one recorded run replayed by one ReplayController on
 * one thread; nothing runs between requests. Before a launch (and after a disconnect) it holds no controller and says
 * so to every request that needs one. No DAP transport, no vscode.
 */
import { OcdbError } from '../model';
import type { RunView } from '../replay/runView';
import type { Arrival, DebugTarget, Move } from './debugTarget';
import type { CustomAnswer, ReplayController, StopRules } from './replayController';

/** The one thread of a replay. */
export const REPLAY_THREAD = 1;

export class ReplayTarget implements DebugTarget {
  readonly allThreads = true;

  /** `grew`: the replayed run, still being recorded, was read again (its transcript source is stale). */
  constructor(
    private readonly ctl: ReplayController | undefined = undefined,
    private readonly grew: (runId: string) => void = () => undefined,
  ) {}

  threads(): { id: number; name: string }[] {
    return [{ id: REPLAY_THREAD, name: this.ctl ? `run ${this.ctl.view.runId}` : 'agent run (not launched)' }];
  }

  controller(threadId?: number): ReplayController {
    if (threadId !== undefined && threadId !== REPLAY_THREAD) {
      throw new OcdbError(
        'InvalidInput',
        `threadId ${threadId} is not a thread of this session: a replay has one thread, ${REPLAY_THREAD}.`,
        { path: 'threadId' },
      );
    }
    if (!this.ctl) throw new OcdbError('InvalidInput', 'No run is loaded yet: launch with a runId first.', {});
    return this.ctl;
  }

  ctlOfRun(): ReplayController | undefined {
    return this.ctl;
  }

  threadOfRun(): number {
    return REPLAY_THREAD;
  }

  framesOf(threadId: number): ReplayController {
    return this.controller(threadId);
  }

  shownRuns(): RunView[] {
    return [this.controller().view];
  }

  /** The first time: stop on entry, or run to the first breakpoint. */
  configurationDone(first: boolean): Arrival | undefined {
    const ctl = this.controller();
    return first ? { threadId: REPLAY_THREAD, stop: ctl.start() } : undefined;
  }

  /** Moves through the recording, read again first when the run is still being recorded and has grown. */
  move(threadId: number): Move {
    const ctl = this.controller(threadId);
    if (ctl.refresh()) this.grew(ctl.view.runId);
    return {
      ctl,
      arrive: (stop) => ({
        threadId: REPLAY_THREAD,
        stop,
        ...(ctl.view.run.status === 'running' ? { grown: ctl.view } : {}),
      }),
    };
  }

  /** A replay rests between requests: it stops where it is. */
  pause(threadId: number): Arrival {
    return { threadId: REPLAY_THREAD, stop: this.controller(threadId).pauseHere('Paused') };
  }

  pendingAt(): undefined {
    return undefined;
  }

  rules(): StopRules {
    return this.controller().rules;
  }

  /** A recorded run's tools are known: a function breakpoint naming none of them is unverified. */
  toolNames(): ReadonlySet<string> {
    return this.controller().view.toolNames();
  }

  unreachable(): undefined {
    return undefined;
  }

  customRequest(command: string, args: unknown): CustomAnswer {
    return this.controller().customRequest(command, args);
  }

  /** Nothing runs in a replay: nothing to let go of. */
  detach(): DebugTarget {
    return this;
  }

  close(): void {
    this.ctl?.close();
  }
}

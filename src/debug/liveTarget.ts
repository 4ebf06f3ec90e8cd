/**
 * LiveTarget: the DebugTarget (debugTarget.ts) of an attach — the runs of a LiveController, one thread each, and the
 * loop (liveLoop.ts) that answers the stops their agents ask. At the stop an agent waits at, a forward move lets the
 * agent go on; before it, moves go through what the run recorded, read-only. No DAP transport, no vscode.
 */
import { OcdbError, errorMessage } from '../model';
import type { RunView } from '../replay/runView';
import type { AgentMove, Arrival, DebugTarget, Move } from './debugTarget';
import type { FrameRef } from './frames';
import { LiveController, type LiveEvent } from './liveController';
import { LiveLoop } from './liveLoop';
import type { PendingEdits } from './pendingEdits';
import { stagedContextPatchRequest } from './protocol';
import type { CustomAnswer, ReplayController, StopRules } from './replayController';
import { ReplayTarget } from './replayTarget';

export class LiveTarget implements DebugTarget {
  readonly allThreads = false;
  private loop: LiveLoop | undefined;

  /** `log` gets a line when detaching fails (the agents then go on when the lease expires). */
  constructor(
    readonly live: LiveController,
    private readonly log: (line: string) => void,
  ) {}

  /** Parses the attach arguments, opens the store and attaches (LiveController.open); the loop starts with `run`. */
  static open(
    args: unknown,
    client: string,
    env: NodeJS.ProcessEnv,
    storeLocation: (location: string) => string,
    log: (line: string) => void,
  ): LiveTarget {
    return new LiveTarget(LiveController.open(args, client, env, Date.now(), storeLocation), log);
  }

  /** Starts answering the agents' stops once `deciding` (configurationDone); `send` gets each event to turn into DAP. */
  run(deciding: () => boolean, send: (e: LiveEvent) => void): void {
    this.loop = new LiveLoop(this.live, deciding, send);
    this.loop.start();
  }

  threads(): { id: number; name: string }[] {
    return this.live.threads.map((t) => ({ id: t.id, name: `run ${t.runId} (${t.agentId})` }));
  }

  /** The controller of `threadId`, else of the thread that stopped last (else the first). */
  controller(threadId?: number): ReplayController {
    const id = threadId ?? this.live.focused ?? this.live.threads[0]?.id;
    if (id === undefined) {
      throw new OcdbError(
        'InvalidInput',
        'No run is attached yet: the session waits for a run of the agent to start.',
        {},
      );
    }
    return this.live.thread(id).ctl;
  }

  ctlOfRun(runId: string): ReplayController | undefined {
    return (this.live.threadOfRun(runId) ?? this.live.threads[0])?.ctl;
  }

  /** The thread of `runId`, else the one that stopped last; else 1, which a move then names as no thread here. */
  threadOfRun(runId: string): number {
    return this.live.threadOfRun(runId)?.id ?? this.live.focused ?? 1;
  }

  /** A running agent has no frames until it stops. */
  framesOf(threadId: number): ReplayController | undefined {
    const ctl = this.controller(threadId);
    return this.live.thread(threadId).held ? ctl : undefined;
  }

  shownRuns(): RunView[] {
    return this.live.threads.map((t) => t.ctl.view);
  }

  /** The loop starts deciding now; the agents' stops come from it. */
  configurationDone(): undefined {
    return undefined;
  }

  /**
   * At the live stop a forward move lets the agent go on with the edits made there (a step stops it again at its next
   * boundary, the stopped event comes when it gets there); elsewhere the cursor moves through what the run recorded,
   * and reaching the live stop again stops there. The thread must be stopped.
   */
  move(threadId: number, agentMove?: AgentMove): Move {
    const ctl = this.controller(threadId);
    const t = this.live.thread(threadId);
    if (agentMove && this.live.atHead(t)) return { went: this.live.resume(t, agentMove, this.live.client) };
    this.live.requireStopped(t);
    return { ctl, arrive: (stop) => ({ threadId: t.id, stop: this.live.arrived(t, stop) }) };
  }

  /** A held agent stops again where the cursor is; a running one at its next boundary (stopped comes then). */
  pause(threadId: number): Arrival | undefined {
    const stop = this.live.pause(this.live.thread(threadId));
    return stop && { threadId, stop };
  }

  pendingAt(ref: FrameRef): PendingEdits | undefined {
    return this.live.pendingAt(ref);
  }

  /** One set for every thread: a breakpoint set once holds for each attached run. */
  rules(): StopRules {
    return this.live.rules;
  }

  /** An attached run may still call any tool: every name is verified. */
  toolNames(): undefined {
    return undefined;
  }

  /** A transcript of a run not attached (yet): its lines cannot be reached by this session. */
  unreachable(runId: string): string | undefined {
    if (this.live.threadOfRun(runId)) return undefined;
    return `Run ${runId} is not attached to this session: breakpoints on its transcript do not stop it. Use function breakpoints (tool names) to stop the attached agents.`;
  }

  customRequest(command: string, args: unknown): CustomAnswer {
    // waiting for an agent's next run: nothing can be staged yet, and the extension asks on every selection
    if (command === stagedContextPatchRequest.command && this.live.threads.length === 0) {
      return { body: { contextPatch: {} } };
    }
    return this.controller().customRequest(command, args);
  }

  /** The agents go on at once (detached); the session holds nothing afterwards. */
  detach(): DebugTarget {
    this.close();
    return new ReplayTarget();
  }

  /** Stops the loop and detaches; a failure is logged, not thrown (the agents go on when the lease expires). */
  close(): void {
    this.loop?.stop();
    this.loop = undefined;
    try {
      this.live.close();
    } catch (e) {
      this.log(`ocdb dap: detaching failed: ${errorMessage(e)} (the agents go on when the lease expires).`);
    }
  }
}

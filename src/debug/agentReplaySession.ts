/**
 * AgentReplaySession: the Debug Adapter of "Replay agent run" and "Attach to agent run" (debug type
 * `agent-replay`). It only translates DAP requests into calls of its DebugTarget (debugTarget.ts: a replayed run,
 * replayTarget.ts, or the runs of an attach, liveTarget.ts) and their answers into DAP responses and events; it never
 * asks which target it holds. This file launches and attaches, moves (steps, continues in slices: continueSearch.ts,
 * pause, goto) and reports stops; the requests that read a stop and set breakpoints are its base's (inspectSession.ts),
 * the transport, the arguments' parsing and the error responses that base's (dapSession.ts). Stepping, matching and
 * evaluation live in src/replay. Usable in-process (the extension's DebugAdapterInlineImplementation) and over stdio
 * (`ocdb dap`). Must not import vscode.
 */
import {
  ContinuedEvent,
  Event,
  InitializedEvent,
  InvalidatedEvent,
  LoadedSourceEvent,
  OutputEvent,
  StoppedEvent,
  TerminatedEvent,
  Thread,
  ThreadEvent,
} from '@vscode/debugadapter';
import type { RunView } from '../replay/runView';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { OcdbError, storeLocationLabel } from '../model';
import { CAPABILITIES } from './capabilities';
import { ContinueSearch } from './continueSearch';
import type { AgentMove, Arrival, DebugTarget } from './debugTarget';
import { fileOfVariable } from './fileOfVariable';
import { InspectSession } from './inspectSession';
import type { LiveEvent } from './liveController';
import { LiveTarget } from './liveTarget';
import { fileOfVariableRequest } from './protocol';
import { ReplayController, type StopInfo } from './replayController';
import { ReplayTarget } from './replayTarget';
import type { RequestArgs } from './requestArgs';
import { TranscriptSources } from './transcriptSources';

export class AgentReplaySession extends InspectSession {
  private clientName = 'ocdb dap';
  private configured = false;
  private readonly search = new ContinueSearch();

  /**
   * `env` resolves the store like the CLI; `log` gets one line per problem of the connection itself (a message
   * that is not JSON): `ocdb dap` writes it to stderr. `storeLocation` maps the launch configuration's store to
   * the location opened (the extension adds a PostgreSQL password kept in SecretStorage; never shown).
   */
  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    log: (line: string) => void = () => undefined,
    private readonly storeLocation: (location: string) => string = (location) => location,
  ) {
    super(log);
  }

  /** Nothing but `pause` / `cancel` / `disconnect` / `terminate` / `threads` runs while a continue is still searching. */
  protected override busyWith(command: string): string | undefined {
    if (!this.search.active || ['pause', 'cancel', 'disconnect', 'terminate', 'threads'].includes(command)) {
      return undefined;
    }
    return `${command}: the replay is running a continue; send pause (or wait for it to stop) first.`;
  }

  /** The client's first request: answers what this adapter can do. */
  protected override initializeRequest(
    response: DebugProtocol.InitializeResponse,
    args: RequestArgs<'initialize'>,
  ): void {
    this.clientSupportsInvalidated = args.supportsInvalidatedEvent === true;
    this.clientName = args.clientName ?? args.clientID ?? 'ocdb dap';
    response.body = CAPABILITIES;
    this.sendResponse(response);
  }

  /**
   * F5 on "Replay agent run": opens the store and the run; `initialized` follows so breakpoints can be mapped. A
   * second launch on the same connection replaces the run: breakpoints and staged edits start afresh, the client
   * sends them again after the new `initialized`, and configurationDone stops again.
   */
  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: DebugProtocol.LaunchRequestArguments) {
    this.handle(response, () => {
      const ctl = ReplayController.open(args, this.env, process.cwd(), this.storeLocation);
      this.begin(new ReplayTarget(ctl, (runId) => this.sources?.forget(runId)), ctl.args.storePath);
      this.sendResponse(response);
      const run = ctl.view.run;
      const where = storeLocationLabel(ctl.args.storePath);
      this.sendEvent(
        new OutputEvent(`Replaying run ${run.runId} (${run.checkpointCount} checkpoints) from ${where}\n`),
      );
      this.sendEvent(new InitializedEvent());
    });
  }

  /**
   * "Attach to agent run": attaches to a running run (`runId`) or to the next runs of an agent (`agentId`); the
   * agents ask at every boundary from now on and wait until configurationDone, when this session starts deciding
   * (liveController.ts). Each attached run is a thread.
   */
  protected override attachRequest(response: DebugProtocol.AttachResponse, args: DebugProtocol.AttachRequestArguments) {
    this.handle(response, () => {
      const target = LiveTarget.open(args, this.clientName, this.env, this.storeLocation, this.log);
      const { runId, agentId, storePath } = target.live.args;
      this.begin(target, storePath);
      this.sendResponse(response);
      const what = runId ? `run ${runId}` : `the next runs of agent ${agentId ?? ''}`;
      this.sendEvent(new OutputEvent(`Attached to ${what} in ${storeLocationLabel(storePath)}\n`));
      this.sendEvent(new InitializedEvent());
      target.run(
        () => this.configured && !this.search.active,
        (e) => this.sendLive(e),
      );
    });
  }

  /** A launch or attach replaces what the session held: its frames, variables, sources and breakpoints start afresh. */
  private begin(target: DebugTarget, storePath: string): void {
    this.target.close();
    this.target = target;
    this.configured = false;
    this.search.abandon();
    this.frames.reset();
    this.vars.reset();
    this.sources = new TranscriptSources(
      storePath,
      (p) => this.convertDebuggerPathToClient(p),
      (p) => this.convertClientPathToDebugger(p),
      (source, reason) => this.sendEvent(new LoadedSourceEvent(reason, source)),
    );
  }

  /** What an attach tells unasked: runs starting and ending (threads), agents stopping, console lines, the end. */
  private sendLive(e: LiveEvent): void {
    switch (e.kind) {
      case 'thread':
        // a run that ended: its transcript's header says how (not `running` until the session stops)
        if (e.reason === 'exited' && e.thread.ctl.refresh()) this.rewriteTranscript(e.thread.ctl.view);
        this.sendEvent(new ThreadEvent(e.reason, e.thread.id));
        return;
      case 'stopped':
        this.report({ threadId: e.thread.id, stop: e.stop, grown: e.thread.ctl.view });
        return;
      case 'continued':
        this.sendEvent(new ContinuedEvent(e.thread.id, false));
        return;
      case 'grew':
        // running on after Continue: its transcript (the header's count, the new lines) follows it
        this.sources?.refresh(e.thread.ctl.view);
        return;
      case 'output':
        this.sendEvent(new OutputEvent(`${e.text}\n`, e.category));
        return;
      case 'ended':
        this.sendEvent(new OutputEvent(`The attached ${e.why}: the session ends.\n`));
        this.target = this.target.detach();
        this.sendEvent(new TerminatedEvent());
        return;
      default: {
        const unreachable: never = e;
        throw new Error(`unknown live event ${String(unreachable)}`);
      }
    }
  }

  /** The client is gone without a disconnect (`ocdb dap`'s stdin closed): let the attached agents go on at once. */
  release(): void {
    this.search.abandon();
    this.target = this.target.detach();
  }

  /** The client has sent every breakpoint: stop on entry or run to the first hit (attached: start deciding). */
  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.handle(response, () => {
      const stop = this.target.configurationDone(!this.configured);
      this.configured = true;
      this.sendResponse(response);
      if (stop) this.report(stop);
    });
  }

  /** Sends a stop: the transcript of a run still being recorded first (loadedSource, when it grew), then `stopped`. */
  private report(arrival: Arrival): void {
    const { stop, threadId } = arrival;
    if (arrival.grown) this.sourceOf(arrival.grown);
    // one thread stopping all: the ids of the last stop go; otherwise other threads' stay valid
    if (this.target.allThreads) {
      this.frames.reset();
      this.vars.reset();
    }
    for (const line of stop.logs) this.sendEvent(new OutputEvent(`${line}\n`, 'console'));
    const event = new StoppedEvent(stop.reason, threadId) as DebugProtocol.StoppedEvent;
    event.body.description = stop.description;
    event.body.text = stop.exception?.description;
    event.body.allThreadsStopped = this.target.allThreads;
    if (stop.hitBreakpointIds.length > 0) event.body.hitBreakpointIds = stop.hitBreakpointIds;
    this.sendEvent(event);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = { threads: this.target.threads().map((t) => new Thread(t.id, t.name)) };
    this.sendResponse(response);
  }

  /** A run that changed after its thread left: its transcript file written again (no controller needed). */
  private rewriteTranscript(view: RunView): void {
    this.sources?.forget(view.runId);
    this.sources?.sourceOf(view);
  }

  // ---- execution -----------------------------------------------------------------------------

  /**
   * A step, goto or restart frame of `threadId` (for restart frame, a function: the thread of the frame it names). The target
   * moves its cursor (`fn`) and the stop is reported; or, for a step an agent waiting at the cursor makes itself
   * (`agentMove`), the agent goes on and its next stop comes later.
   */
  private move(
    response: DebugProtocol.Response,
    threadId: number | (() => number),
    fn: (ctl: ReplayController) => StopInfo,
    agentMove?: AgentMove,
  ): void {
    this.handle(response, () => {
      const move = this.target.move(typeof threadId === 'number' ? threadId : threadId(), agentMove);
      if ('went' in move) {
        this.sendResponse(response);
        this.sendEvent(new OutputEvent(`${move.went}\n`, 'console'));
        return;
      }
      const arrival = move.arrive(fn(move.ctl));
      this.sendResponse(response);
      this.report(arrival);
    });
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: RequestArgs<'next'>): void {
    this.move(response, args.threadId, (c) => c.step('next'), 'next');
  }
  protected override stepBackRequest(response: DebugProtocol.StepBackResponse, args: RequestArgs<'stepBack'>): void {
    this.move(response, args.threadId, (c) => c.step('back'));
  }
  /** Step Into; with a targetId of stepInTargets, into that tool call of the current step. */
  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: RequestArgs<'stepIn'>): void {
    const targetId = args.targetId;
    this.move(
      response,
      args.threadId,
      (c) => (targetId === undefined ? c.step('stepIn') : c.stepInto(targetId)),
      targetId === undefined ? 'stepIn' : undefined,
    );
  }
  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: RequestArgs<'stepOut'>): void {
    this.move(response, args.threadId, (c) => c.step('stepOut'), 'stepOut');
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: RequestArgs<'continue'>): void {
    response.body = { allThreadsContinued: this.target.allThreads };
    this.resume(response, args.threadId, 'forward');
  }
  protected override reverseContinueRequest(
    response: DebugProtocol.ReverseContinueResponse,
    args: RequestArgs<'reverseContinue'>,
  ): void {
    this.resume(response, args.threadId, 'backward');
  }

  /**
   * Continue / reverse continue: searches for the next hit (continueSearch.ts) and answers when it stops; until then
   * `pause` stops it where it got to (stopped `pause`), and `cancel` of this request answers it `cancelled` (then
   * stopped `pause` there too). Continue at the stop an agent waits at lets the agent go on.
   */
  private resume(response: DebugProtocol.Response, threadId: number, direction: 'forward' | 'backward'): void {
    this.handle(response, () => {
      const move = this.target.move(threadId, direction === 'forward' ? 'continue' : undefined);
      if ('went' in move) {
        this.sendResponse(response);
        this.sendEvent(new OutputEvent(`${move.went}\n`, 'console'));
        return;
      }
      this.search.start(move.ctl, direction, response.request_seq, (end) => {
        if ('error' in end) {
          this.fail(response, end.error);
          return;
        }
        if (end.cancelled) {
          response.success = false;
          response.message = 'cancelled';
        }
        this.sendResponse(response);
        this.report(move.arrive(end.stop));
      });
    });
  }

  /**
   * Pause. A replay rests between requests, so pause answers and sends stopped (`pause`) where it is; during a long
   * continue it stops that continue where it got to. Attached, a running agent stops at its next boundary.
   */
  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: RequestArgs<'pause'>): void {
    this.handle(response, () => {
      this.target.controller(args.threadId);
      this.sendResponse(response);
      if (this.search.pause()) return;
      const stop = this.target.pause(args.threadId);
      if (stop) this.report(stop);
    });
  }

  /** Cancel: a continue still searching answers `cancelled`; any other request has already been answered. */
  protected override cancelRequest(response: DebugProtocol.CancelResponse, args: RequestArgs<'cancel'>): void {
    this.search.cancel(args?.requestId);
    this.sendResponse(response);
  }

  protected override gotoRequest(response: DebugProtocol.GotoResponse, args: RequestArgs<'goto'>): void {
    this.move(response, args.threadId, (c) => c.jump(args.targetId - 1, 'goto'));
  }

  protected override restartFrameRequest(
    response: DebugProtocol.RestartFrameResponse,
    args: RequestArgs<'restartFrame'>,
  ): void {
    const threadOfFrame = () => this.target.threadOfRun(this.refOf(args.frameId).view.runId);
    this.move(response, threadOfFrame, (c) => {
      const ref = this.refOf(args.frameId);
      if (ref.view.runId !== c.view.runId) {
        throw new OcdbError('InvalidInput', 'Only frames of the replayed run can be restarted.', { path: 'frameId' });
      }
      return c.jump(ref.index, 'restart');
    });
  }

  // ---- custom requests -----------------------------------------------------------------------

  /**
   * The custom requests of protocol.ts. `fork` {checkpointId?, forkConfig?, acknowledgedTools?} creates a fork run
   * through ForkService and answers {runId, forkRequestId}; the `runsChanged` event follows. `stagedContextPatch`
   * {clear?} answers the edits staged with setVariable; the extension asks when "Fork from this checkpoint" opens
   * the Context & Fork editor, and clears them after the editor forked with them. `fileOfVariable` names the file a
   * Files-scope variable shows.
   */
  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    this.handle(response, () => {
      if (command === fileOfVariableRequest.command) {
        response.body = fileOfVariable(args, (reference) => this.vars.require(reference));
        this.sendResponse(response);
        return;
      }
      const answer = this.target.customRequest(command, args);
      response.body = answer.body;
      this.sendResponse(response);
      if (answer.event) this.sendEvent(new Event(answer.event.event, answer.event.body));
      // the Variables view still shows the dropped edits in the Runtime Context: have the client read it again
      if (answer.stagedCleared && this.clientSupportsInvalidated) this.sendEvent(new InvalidatedEvent(['variables']));
    });
  }

  /**
   * Stop (VS Code's square): nothing runs in a replay, so the session ends: `terminated`, then the client
   * disconnects. Attached, the agents are let go (detached: they go on unstopped); they are never killed.
   */
  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.search.abandon();
    this.target = this.target.detach();
    this.sendResponse(response);
    this.sendEvent(new TerminatedEvent());
  }

  /** Disconnect: ends the session; attached, the agents go on at once (detached). */
  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    this.search.abandon();
    this.target.close();
    this.target = new ReplayTarget();
    this.sendResponse(response);
    this.shutdown(); // ends the process only when running over stdio (not inline or as a server)
  }
}

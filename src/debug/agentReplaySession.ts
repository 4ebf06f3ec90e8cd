/**
 * AgentReplaySession: the Debug Adapter of "Replay agent run" (debug type
 * `agent-replay`). It only translates DAP requests into ReplayController
 * calls and the answers into DAP responses and events; stepping, matching and
 * evaluation live in src/replay and the helpers beside this file. Usable
 * in-process (the extension's DebugAdapterInlineImplementation) and over
 * stdio (`ocdb dap`). Must not import vscode.
 */
import {
  InitializedEvent,
  InvalidatedEvent,
  LoggingDebugSession,
  OutputEvent,
  StoppedEvent,
  TerminatedEvent,
  Thread,
  Event,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { OcdbError } from '../model';
import { checkpointAtLine } from '../replay/transcript';
import type { RunView } from '../replay/runView';
import { toDapError } from './dapErrors';
import { CAPABILITIES } from './capabilities';
import { checkpointLines, dataBreakpointInfo, exceptionInfo, setSourceBreakpoints } from './breakpointMapping';
import { FrameIds, pageFrames, toStackFrame, totalFrames, type FrameRef } from './frames';
import { ReplayController, type StopInfo } from './replayController';
import { parseEditedValue } from './stagedEdits';
import { TranscriptSources } from './transcriptSources';
import { Variables, previewValue } from './variables';

const THREAD_ID = 1;

export class AgentReplaySession extends LoggingDebugSession {
  private ctl: ReplayController | undefined;
  private readonly frames = new FrameIds();
  private readonly vars = new Variables(
    (ref) => ref.view.load(ref.index),
    () => this.ctl?.staged,
  );
  private sources: TranscriptSources | undefined;
  private configured = false;
  private clientSupportsInvalidated = false;

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {
    super();
    this.setDebuggerLinesStartAt1(false);
    this.setDebuggerColumnsStartAt1(true);
  }

  /** Runs `fn`; any error becomes this request's error response (the one place for that). */
  private handle<R extends DebugProtocol.Response>(response: R, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      const err = toDapError(e, response.command);
      this.sendErrorResponse(response, { id: err.id, format: err.format, showUser: err.showUser, variables: {} });
    }
  }

  private controller(): ReplayController {
    if (!this.ctl) throw new OcdbError('InvalidInput', 'No run is loaded yet: launch with a runId first.', {});
    return this.ctl;
  }

  /** The client's first request: answers what this adapter can do. */
  protected override initializeRequest(
    response: DebugProtocol.InitializeResponse,
    args: DebugProtocol.InitializeRequestArguments,
  ): void {
    this.clientSupportsInvalidated = args.supportsInvalidatedEvent === true;
    response.body = CAPABILITIES;
    this.sendResponse(response);
  }

  /** F5 on "Replay agent run": opens the store and the run; `initialized` follows so breakpoints can be mapped. */
  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: DebugProtocol.LaunchRequestArguments) {
    this.handle(response, () => {
      const ctl = ReplayController.open(args, this.env);
      this.ctl?.close();
      this.ctl = ctl;
      this.sources = new TranscriptSources(
        ctl.args.storePath,
        (p) => this.convertDebuggerPathToClient(p),
        (p) => this.convertClientPathToDebugger(p),
      );
      this.sendResponse(response);
      const run = ctl.view.run;
      this.sendEvent(
        new OutputEvent(`Replaying run ${run.runId} (${run.checkpointCount} checkpoints) from ${ctl.args.storePath}\n`),
      );
      this.sendEvent(new InitializedEvent());
    });
  }

  /** The client has sent every breakpoint: stop on entry or run to the first hit. */
  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.handle(response, () => {
      const ctl = this.controller();
      this.sendResponse(response);
      if (!this.configured) {
        this.configured = true;
        this.report(ctl.start());
      }
    });
  }

  private report(stop: StopInfo): void {
    this.frames.reset();
    this.vars.reset();
    for (const line of stop.logs) this.sendEvent(new OutputEvent(`${line}\n`, 'console'));
    const event = new StoppedEvent(stop.reason, THREAD_ID) as DebugProtocol.StoppedEvent;
    event.body.description = stop.description;
    event.body.text = stop.exception?.description;
    event.body.allThreadsStopped = true;
    if (stop.hitBreakpointIds.length > 0) event.body.hitBreakpointIds = stop.hitBreakpointIds;
    this.sendEvent(event);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const name = this.ctl ? `run ${this.ctl.view.runId}` : 'agent run (not launched)';
    response.body = { threads: [new Thread(THREAD_ID, name)] };
    this.sendResponse(response);
  }

  // ---- sources -------------------------------------------------------------------------------

  /** The frame source of a run: its transcript file beside the store (see transcriptFiles.ts for why). */
  private sourceOf(view: RunView): DebugProtocol.Source {
    this.controller();
    return (this.sources as TranscriptSources).sourceOf(view);
  }

  private viewOfSource(source: DebugProtocol.Source): RunView {
    const ctl = this.controller();
    return ctl.viewOf((this.sources as TranscriptSources).runIdOf(source));
  }

  /** Opening a transcript that has no file (read-only fallback). */
  protected override sourceRequest(response: DebugProtocol.SourceResponse, args: DebugProtocol.SourceArguments) {
    this.handle(response, () => {
      const view = this.viewOfSource(args.source ?? { sourceReference: args.sourceReference });
      response.body = { content: view.transcript().text, mimeType: 'text/x-agent-transcript' };
      this.sendResponse(response);
    });
  }

  // ---- breakpoints ---------------------------------------------------------------------------

  /** Gutter breakpoints in a transcript: each line starting with `[n]` is a checkpoint. */
  protected override setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): void {
    this.handle(response, () => {
      const ctl = this.controller();
      const view = this.viewOfSource(args.source);
      const lines = {
        toDebugger: (l: number) => this.convertClientLineToDebugger(l),
        toClient: (l: number) => this.convertDebuggerLineToClient(l),
      };
      response.body = {
        breakpoints: setSourceBreakpoints(ctl.breakpoints, view, ctl.view, args, lines, this.sourceOf(view)),
      };
      this.sendResponse(response);
    });
  }

  /** Where breakpoints can go in a line range: the checkpoint lines. */
  protected override breakpointLocationsRequest(
    response: DebugProtocol.BreakpointLocationsResponse,
    args: DebugProtocol.BreakpointLocationsArguments,
  ): void {
    this.handle(response, () => {
      const view = this.viewOfSource(args.source);
      const from = this.convertClientLineToDebugger(args.line);
      const to = this.convertClientLineToDebugger(args.endLine ?? args.line);
      response.body = {
        breakpoints: checkpointLines(view, from, to).map((l) => ({ line: this.convertDebuggerLineToClient(l) })),
      };
      this.sendResponse(response);
    });
  }

  /** Function breakpoints are tool names (globs like `issue_*`), stopping before the call. */
  protected override setFunctionBreakPointsRequest(
    response: DebugProtocol.SetFunctionBreakpointsResponse,
    args: DebugProtocol.SetFunctionBreakpointsArguments,
  ): void {
    this.handle(response, () => {
      const ctl = this.controller();
      response.body = { breakpoints: ctl.breakpoints.setFunctionBreakpoints(args.breakpoints, ctl.view.toolNames()) };
      this.sendResponse(response);
    });
  }

  protected override setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: DebugProtocol.SetExceptionBreakpointsArguments,
  ): void {
    this.handle(response, () => {
      const filters = [...args.filters, ...(args.filterOptions ?? []).map((f) => f.filterId)];
      this.controller().breakpoints.setExceptionFilters(filters);
      response.body = { breakpoints: filters.map(() => ({ verified: true })) };
      this.sendResponse(response);
    });
  }

  /** "Break on value change" in the Variables view: only Runtime Context values qualify. */
  protected override dataBreakpointInfoRequest(
    response: DebugProtocol.DataBreakpointInfoResponse,
    args: DebugProtocol.DataBreakpointInfoArguments,
  ): void {
    this.handle(response, () => {
      const c = args.variablesReference ? this.vars.container(args.variablesReference) : undefined;
      response.body = dataBreakpointInfo(c?.contextPath, args);
      this.sendResponse(response);
    });
  }

  protected override setDataBreakpointsRequest(
    response: DebugProtocol.SetDataBreakpointsResponse,
    args: DebugProtocol.SetDataBreakpointsArguments,
  ): void {
    this.handle(response, () => {
      response.body = { breakpoints: this.controller().breakpoints.setDataBreakpoints(args.breakpoints) };
      this.sendResponse(response);
    });
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse): void {
    this.handle(response, () => {
      const body = exceptionInfo(this.controller().lastStop);
      if (!body) throw new OcdbError('InvalidInput', 'The session did not stop on an exception filter.', {});
      response.body = body;
      this.sendResponse(response);
    });
  }

  // ---- execution -----------------------------------------------------------------------------

  private move(response: DebugProtocol.Response, fn: (ctl: ReplayController) => StopInfo): void {
    this.handle(response, () => {
      const ctl = this.controller();
      if (ctl.refresh()) this.sources?.forget(ctl.view.runId); // a run still being recorded has grown
      const stop = fn(ctl);
      this.sendResponse(response);
      this.report(stop);
    });
  }

  protected override nextRequest(response: DebugProtocol.NextResponse): void {
    this.move(response, (c) => c.step('next'));
  }
  protected override stepBackRequest(response: DebugProtocol.StepBackResponse): void {
    this.move(response, (c) => c.step('back'));
  }
  protected override stepInRequest(response: DebugProtocol.StepInResponse): void {
    this.move(response, (c) => c.step('stepIn'));
  }
  protected override stepOutRequest(response: DebugProtocol.StepOutResponse): void {
    this.move(response, (c) => c.step('stepOut'));
  }
  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    response.body = { allThreadsContinued: true };
    this.move(response, (c) => c.resume('forward'));
  }
  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse): void {
    this.move(response, (c) => c.resume('backward'));
  }
  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    this.sendResponse(response); // a replay is always stopped between requests
  }

  /** "Run to / jump to line" in a transcript: one target per checkpoint line. */
  protected override gotoTargetsRequest(
    response: DebugProtocol.GotoTargetsResponse,
    args: DebugProtocol.GotoTargetsArguments,
  ): void {
    this.handle(response, () => {
      const ctl = this.controller();
      const view = this.viewOfSource(args.source);
      const at =
        view.runId === ctl.view.runId
          ? checkpointAtLine(view.transcript(), this.convertClientLineToDebugger(args.line))
          : undefined;
      response.body = {
        targets: at
          ? [{ id: at.checkpointIndex + 1, label: `[${at.checkpointIndex}] ${at.boundary}`, line: args.line }]
          : [],
      };
      this.sendResponse(response);
    });
  }

  protected override gotoRequest(response: DebugProtocol.GotoResponse, args: DebugProtocol.GotoArguments): void {
    this.move(response, (c) => c.jump(args.targetId - 1, 'goto'));
  }

  protected override restartFrameRequest(
    response: DebugProtocol.RestartFrameResponse,
    args: DebugProtocol.RestartFrameArguments,
  ): void {
    this.move(response, (c) => {
      const ref = this.frames.get(args.frameId);
      if (!ref || ref.view.runId !== c.view.runId) {
        throw new OcdbError('InvalidInput', 'Only frames of the replayed run can be restarted.', { path: 'frameId' });
      }
      return c.jump(ref.index, 'restart');
    });
  }

  // ---- state ---------------------------------------------------------------------------------

  /** Frames: current checkpoint back to the start (then the parent run's before a fork point), paged. */
  protected override stackTraceRequest(
    response: DebugProtocol.StackTraceResponse,
    args: DebugProtocol.StackTraceArguments,
  ): void {
    this.handle(response, () => {
      const ctl = this.controller();
      const segments = ctl.segments();
      const refs = pageFrames(segments, args.startFrame ?? 0, args.levels ?? 0);
      response.body = {
        stackFrames: refs.map((ref) =>
          toStackFrame(ref, this.frames.idOf(ref), ctl.view, (view, index) => ({
            source: this.sourceOf(view),
            line: this.convertDebuggerLineToClient(view.transcript().lines[index]?.line ?? 0),
          })),
        ),
        totalFrames: totalFrames(segments),
      };
      this.sendResponse(response);
    });
  }

  private refOf(frameId: number | undefined): FrameRef {
    const ref = frameId === undefined ? undefined : this.frames.get(frameId);
    return ref ?? this.controller().current;
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments) {
    this.handle(response, () => {
      response.body = { scopes: this.vars.scopes(this.refOf(args.frameId)) };
      this.sendResponse(response);
    });
  }

  protected override variablesRequest(
    response: DebugProtocol.VariablesResponse,
    args: DebugProtocol.VariablesArguments,
  ): void {
    this.handle(response, () => {
      response.body = { variables: this.vars.variables(args.variablesReference, args.start, args.count) };
      this.sendResponse(response);
    });
  }

  /** Editing a Runtime Context value stages it for the next fork; the recording never changes. */
  protected override setVariableRequest(
    response: DebugProtocol.SetVariableResponse,
    args: DebugProtocol.SetVariableArguments,
  ): void {
    this.handle(response, () => {
      const c = this.vars.container(args.variablesReference);
      if (!c?.contextPath) {
        throw new OcdbError(
          'InvalidInput',
          `${args.name} is not in the Runtime Context: only runtime-context values can be staged for a fork.`,
          { path: 'variablesReference' },
        );
      }
      const key = Array.isArray(c.value) ? Number(args.name) : args.name;
      const value = parseEditedValue(args.value);
      this.controller().stage(c.ref, [...c.contextPath, key], value);
      response.body = { value: previewValue(value) };
      this.sendResponse(response);
    });
  }

  /** Watch, debug console, hover and copy: the safe JMESPath language of src/replay/evaluate.ts. */
  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments) {
    this.handle(response, () => {
      const ref = this.refOf(args.frameId);
      const value = this.controller().evaluate(args.expression, ref, args.context);
      response.body = this.vars.evaluateResult(ref, args.expression, value, args.context);
      this.sendResponse(response);
    });
  }

  // ---- custom requests -----------------------------------------------------------------------

  /**
   * The custom requests of protocol.ts. `fork` {checkpointId?, forkConfig?, acknowledgedTools?} creates a fork run
   * through ForkService and answers {runId, forkRequestId}; the `runsChanged` event follows. `stagedContextPatch`
   * {clear?} answers the edits staged with setVariable; the extension asks when "Fork from this checkpoint" opens
   * the Context & Fork editor, and clears them after the editor forked with them.
   */
  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    this.handle(response, () => {
      const answer = this.controller().customRequest(command, args);
      response.body = answer.body;
      this.sendResponse(response);
      if (answer.event) this.sendEvent(new Event(answer.event.event, answer.event.body));
      // the Variables view still shows the dropped edits in the Runtime Context: have the client read it again
      if (answer.stagedCleared && this.clientSupportsInvalidated) this.sendEvent(new InvalidatedEvent(['variables']));
    });
  }

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.sendResponse(response);
    this.sendEvent(new TerminatedEvent());
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    this.ctl?.close();
    this.ctl = undefined;
    this.sendResponse(response);
    this.shutdown(); // ends the process only when running over stdio (not inline or as a server)
  }
}

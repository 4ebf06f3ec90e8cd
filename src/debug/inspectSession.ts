/**
 * InspectSession: the requests of the adapter's session that read what is stopped and set breakpoints, over its
 * DebugTarget (debugTarget.ts): stack, scopes, variables and their edits, evaluate, completions, step-in and goto
 * targets, transcript sources, and every kind of breakpoint. AgentReplaySession, above it, launches and attaches, moves
 * and reports stops; dapSession.ts, below, is the transport. Must not import vscode.
 */
import { InvalidatedEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { OcdbError } from '../model';
import { checkpointAtLine } from '../replay/transcript';
import type { RunView } from '../replay/runView';
import { checkpointLines, dataBreakpointInfo, exceptionInfo, setSourceBreakpoints } from './breakpointMapping';
import { completionsAt } from './completions';
import { DapSession } from './dapSession';
import { controllerOfRun, type DebugTarget } from './debugTarget';
import { FilesScope } from './filesScope';
import { FrameIds, stackTrace, type FrameRef } from './frames';
import { ReplayTarget } from './replayTarget';
import type { RequestArgs } from './requestArgs';
import type { TranscriptSources } from './transcriptSources';
import { setExpression, setVariable } from './variableEdits';
import { Variables } from './variables';

export abstract class InspectSession extends DapSession {
  /** What the session debugs; before a launch or attach, a replay with no run that says "launch first". */
  protected target: DebugTarget = new ReplayTarget();
  /** Frame ids and variable references, handed out per stop. */
  protected readonly frames = new FrameIds();
  private readonly files = new FilesScope();
  protected readonly vars = new Variables(
    (ref) => ref.view.load(ref.index),
    (ref) => this.target.ctlOfRun(ref.view.runId)?.staged,
    (ref) => this.target.pendingAt(ref),
    (ref) => this.files.value(ref),
  );
  /** The transcripts of the runs shown, made at a launch or attach. */
  protected sources: TranscriptSources | undefined;
  protected clientSupportsInvalidated = false;

  // ---- sources -------------------------------------------------------------------------------

  /** The frame source of a run: its transcript file beside the store (see transcriptFiles.ts for why). */
  protected sourceOf(view: RunView): DebugProtocol.Source {
    this.target.controller();
    return (this.sources as TranscriptSources).sourceOf(view);
  }

  private viewOfSource(source: DebugProtocol.Source): RunView {
    this.target.controller();
    const runId = (this.sources as TranscriptSources).runIdOf(source);
    return controllerOfRun(this.target, runId).viewOf(runId);
  }

  /** Opening a transcript that has no file (read-only fallback). */
  protected override sourceRequest(response: DebugProtocol.SourceResponse, args: RequestArgs<'source'>) {
    this.handle(response, () => {
      const view = this.viewOfSource(
        args.sourceReference > 0 ? { sourceReference: args.sourceReference } : (args.source ?? {}),
      );
      response.body = { content: view.transcript().text, mimeType: 'text/x-agent-transcript' };
      this.sendResponse(response);
    });
  }

  /** The Loaded Scripts view: the transcripts of the runs this session has shown. */
  protected override loadedSourcesRequest(response: DebugProtocol.LoadedSourcesResponse): void {
    this.handle(response, () => {
      for (const view of this.target.shownRuns()) this.sourceOf(view);
      response.body = { sources: (this.sources as TranscriptSources).all() };
      this.sendResponse(response);
    });
  }

  // ---- breakpoints ---------------------------------------------------------------------------

  /** Gutter breakpoints in a transcript: each line starting with `[n]` is a checkpoint. */
  protected override setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: RequestArgs<'setBreakpoints'>,
  ): void {
    this.handle(response, () => {
      const message = this.sources && this.target.unreachable(this.sources.runIdOf(args.source));
      if (message) {
        const specs = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
        response.body = { breakpoints: specs.map((b) => ({ verified: false, line: b.line, message })) };
        this.sendResponse(response);
        return;
      }
      const view = this.viewOfSource(args.source);
      const ctl = controllerOfRun(this.target, view.runId);
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
    args: RequestArgs<'breakpointLocations'>,
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
    args: RequestArgs<'setFunctionBreakpoints'>,
  ): void {
    this.handle(response, () => {
      const breakpoints = this.target.rules().breakpoints;
      response.body = { breakpoints: breakpoints.setFunctionBreakpoints(args.breakpoints, this.target.toolNames()) };
      this.sendResponse(response);
    });
  }

  /** The Breakpoints view's exception filters; a filter option's condition (an expression) narrows where it stops. */
  protected override setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: RequestArgs<'setExceptionBreakpoints'>,
  ): void {
    this.handle(response, () => {
      const options = args.filterOptions ?? [];
      this.target.rules().setExceptionFilters(args.filters, options);
      response.body = { breakpoints: [...args.filters, ...options].map(() => ({ verified: true })) };
      this.sendResponse(response);
    });
  }

  /** "Break on value change" in the Variables view: only Runtime Context values qualify. */
  protected override dataBreakpointInfoRequest(
    response: DebugProtocol.DataBreakpointInfoResponse,
    args: RequestArgs<'dataBreakpointInfo'>,
  ): void {
    this.handle(response, () => {
      const c = args.variablesReference ? this.vars.require(args.variablesReference) : undefined;
      response.body = dataBreakpointInfo(c?.contextPath, args);
      this.sendResponse(response);
    });
  }

  protected override setDataBreakpointsRequest(
    response: DebugProtocol.SetDataBreakpointsResponse,
    args: RequestArgs<'setDataBreakpoints'>,
  ): void {
    this.handle(response, () => {
      response.body = { breakpoints: this.target.rules().breakpoints.setDataBreakpoints(args.breakpoints) };
      this.sendResponse(response);
    });
  }

  protected override exceptionInfoRequest(
    response: DebugProtocol.ExceptionInfoResponse,
    args: RequestArgs<'exceptionInfo'>,
  ): void {
    this.handle(response, () => {
      const body = exceptionInfo(this.target.controller(args.threadId).lastStop);
      if (!body) throw new OcdbError('InvalidInput', 'The session did not stop on an exception filter.', {});
      response.body = body;
      this.sendResponse(response);
    });
  }

  // ---- stepping targets ------------------------------------------------------------------

  /** "Step Into Target…": the tool calls of the current step still ahead. */
  protected override stepInTargetsRequest(
    response: DebugProtocol.StepInTargetsResponse,
    args: RequestArgs<'stepInTargets'>,
  ): void {
    this.handle(response, () => {
      const ref = this.refOf(args.frameId);
      const ctl = controllerOfRun(this.target, ref.view.runId);
      const here = ref.view.runId === ctl.view.runId && ref.index === ctl.cursor.index;
      response.body = { targets: here ? ctl.stepInTargets() : [] };
      this.sendResponse(response);
    });
  }

  /** "Run to / jump to line" in a transcript: one target per checkpoint line. */
  protected override gotoTargetsRequest(
    response: DebugProtocol.GotoTargetsResponse,
    args: RequestArgs<'gotoTargets'>,
  ): void {
    this.handle(response, () => {
      const view = this.viewOfSource(args.source);
      const ctl = controllerOfRun(this.target, view.runId);
      const at =
        view.runId === ctl.view.runId
          ? checkpointAtLine({ lines: view.lines() }, this.convertClientLineToDebugger(args.line))
          : undefined;
      response.body = {
        targets: at
          ? [{ id: at.checkpointIndex + 1, label: `[${at.checkpointIndex}] ${at.boundary}`, line: args.line }]
          : [],
      };
      this.sendResponse(response);
    });
  }

  // ---- state ---------------------------------------------------------------------------------

  /** Frames: current checkpoint back to the start (then the parent run's before a fork point), paged. */
  protected override stackTraceRequest(
    response: DebugProtocol.StackTraceResponse,
    args: RequestArgs<'stackTrace'>,
  ): void {
    this.handle(response, () => {
      const ctl = this.target.framesOf(args.threadId);
      const at = (view: RunView, index: number) => ({
        source: this.sourceOf(view),
        line: this.convertDebuggerLineToClient(view.lines()[index]?.line ?? 0),
      });
      const column = (c: number) => this.convertDebuggerColumnToClient(c);
      response.body = ctl
        ? stackTrace(ctl.segments(), ctl.view, this.frames, args, at, column)
        : { stackFrames: [], totalFrames: 0 };
      this.sendResponse(response);
    });
  }

  /** The frame of `frameId` at this stop (the current checkpoint without one); a frame of an earlier stop is an error. */
  protected refOf(frameId: number | undefined): FrameRef {
    const ctl = this.target.controller(); // before a launch / attach: says so rather than "not a frame"
    return frameId === undefined ? ctl.current : this.frames.require(frameId);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: RequestArgs<'scopes'>) {
    this.handle(response, () => {
      // the label frame (selected in a client that lists frames as lines: Emacs) has nothing to show
      const label = args.frameId !== undefined && this.frames.isLabel(args.frameId);
      response.body = { scopes: label ? [] : this.vars.scopes(this.refOf(args.frameId)) };
      this.sendResponse(response);
    });
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: RequestArgs<'variables'>): void {
    this.handle(response, () => {
      this.vars.require(args.variablesReference);
      response.body = {
        variables: this.vars.variables(args.variablesReference, args.start, args.count, args.filter),
      };
      this.sendResponse(response);
    });
  }

  /** Editing a Runtime Context value stages it for the next fork (variableEdits.ts); the recording never changes. */
  protected override setVariableRequest(
    response: DebugProtocol.SetVariableResponse,
    args: RequestArgs<'setVariable'>,
  ): void {
    this.handle(response, () => {
      response.body = { value: setVariable(this.target, this.vars, args.variablesReference, args.name, args.value) };
      this.sendResponse(response);
    });
  }

  /** Watch, debug console, hover and copy: the safe JMESPath language of src/replay/evaluate.ts. */
  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: RequestArgs<'evaluate'>) {
    this.handle(response, () => {
      const ref = this.refOf(args.frameId);
      const value = controllerOfRun(this.target, ref.view.runId).evaluate(args.expression, ref, args.context);
      response.body = this.vars.evaluateResult(ref, args.expression, value, args.context);
      this.sendResponse(response);
    });
  }

  /** Editing a Watch (or a variable with an evaluateName): a runtime-context path is staged as setVariable does. */
  protected override setExpressionRequest(
    response: DebugProtocol.SetExpressionResponse,
    args: RequestArgs<'setExpression'>,
  ): void {
    this.handle(response, () => {
      const refOf = () => this.refOf(args.frameId);
      response.body = { value: setExpression(this.target, refOf, args.expression, args.value) };
      this.sendResponse(response);
      if (this.clientSupportsInvalidated) this.sendEvent(new InvalidatedEvent(['variables']));
    });
  }

  /** Debug Console and Watch suggestions: state fields, keys after `.`, indexes after `[`, tool names in tool("…"). */
  protected override completionsRequest(
    response: DebugProtocol.CompletionsResponse,
    args: RequestArgs<'completions'>,
  ): void {
    this.handle(response, () => {
      const ref = this.refOf(args.frameId);
      const ctl = this.target.controller();
      const state = ctl.state(ref);
      const line = (args.text.split('\n')[(args.line ?? 1) - 1] ?? args.text).toString();
      const cursor = this.convertClientColumnToDebugger(args.column) - 1;
      const targets = completionsAt(line, cursor, {
        fields: Object.keys(state),
        toolNames: [...ref.view.toolNames()],
        valueOf: (path) => {
          try {
            return ctl.evaluate(path, ref, 'watch');
          } catch {
            return undefined;
          }
        },
      });
      // a 0-based offset into the text, as the client counts columns
      const offset = (start: number | undefined) =>
        start === undefined ? undefined : this.convertDebuggerColumnToClient(start + 1);
      response.body = { targets: targets.map((t) => ({ ...t, start: offset(t.start) })) };
      this.sendResponse(response);
    });
  }
}

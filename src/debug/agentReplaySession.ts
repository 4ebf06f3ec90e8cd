/**
 * AgentReplaySession: the Debug Adapter of "Replay agent run" (debug type
 * `agent-replay`). It only translates DAP requests into ReplayController
 * calls and the answers into DAP responses and events; stepping, matching and
 * evaluation live in src/replay and the helpers beside this file. Usable
 * in-process (the extension's DebugAdapterInlineImplementation) and over
 * stdio (`ocdb dap`). Every request passes `dispatchRequest` first: its
 * arguments are parsed (requestArgs.ts), requests it does not implement are
 * refused, and errors become responses in one place (`fail`, dapErrors.ts).
 * A long continue runs in slices (continueSearch.ts). Must not import vscode.
 *
 * Over the ~600 lines a file should hold: it still switches between replay and live attach in its handlers. The
 * split into one DAP-translating session over a replay and a live implementation of one interface is planned work
 * (the debug session by responsibility), not done here.
 */
import {
  ContinuedEvent,
  InitializedEvent,
  InvalidatedEvent,
  LoadedSourceEvent,
  LoggingDebugSession,
  OutputEvent,
  Response,
  StoppedEvent,
  TerminatedEvent,
  Thread,
  ThreadEvent,
  Event,
} from '@vscode/debugadapter';
import { PassThrough } from 'node:stream';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { OcdbError, errorMessage, storeLocationLabel } from '../model';
import { checkpointAtLine } from '../replay/transcript';
import type { RunView } from '../replay/runView';
import { toDapError } from './dapErrors';
import { CAPABILITIES } from './capabilities';
import { DapFrameReader, MAX_REQUEST_BYTES, type RefusedFrame } from './dapFraming';
import { checkpointLines, dataBreakpointInfo, exceptionInfo, setSourceBreakpoints } from './breakpointMapping';
import { FrameIds, labelFrame, pageFrames, toStackFrame, totalFrames, UNPAGED_FRAMES, type FrameRef } from './frames';
import { LiveController, type LiveEvent } from './liveController';
import { LiveLoop } from './liveLoop';
import { ReplayController, type StopInfo } from './replayController';
import { completionsAt } from './completions';
import { ContinueSearch } from './continueSearch';
import { NOT_SUPPORTED, parseRequestArgs, type RequestArgs } from './requestArgs';
import { fileOfVariableRequest, stagedContextPatchRequest } from './protocol';
import { FilesScope } from './filesScope';
import { fileOfVariable } from './fileOfVariable';
import { contextPathOf, parseEditedValue } from './stagedEdits';
import { TranscriptSources } from './transcriptSources';
import { Variables, previewValue } from './variables';

const THREAD_ID = 1;
export class AgentReplaySession extends LoggingDebugSession {
  private ctl: ReplayController | undefined;
  /** The attach session (liveController.ts); `ctl` is then undefined and each thread has its own controller. */
  private live: LiveController | undefined;
  private liveLoop: LiveLoop | undefined;
  private clientName = 'ocdb dap';
  private readonly frames = new FrameIds();
  private readonly files = new FilesScope();
  private readonly vars = new Variables(
    (ref) => ref.view.load(ref.index),
    (ref) => this.ctlOfRun(ref.view.runId)?.staged,
    (ref) => this.live?.pendingAt(ref),
    (ref) => this.files.value(ref),
  );
  private sources: TranscriptSources | undefined;
  private configured = false;
  private clientSupportsInvalidated = false;
  private readonly search = new ContinueSearch();

  /**
   * `env` resolves the store like the CLI; `log` gets one line per problem of the connection itself (a message
   * that is not JSON): `ocdb dap` writes it to stderr. `storeLocation` maps the launch configuration's store to
   * the location opened (the extension adds a PostgreSQL password kept in SecretStorage; never shown).
   */
  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly log: (line: string) => void = () => undefined,
    private readonly storeLocation: (location: string) => string = (location) => location,
  ) {
    super();
    this.setDebuggerLinesStartAt1(false);
    this.setDebuggerColumnsStartAt1(true);
    // The library ends the process without a word on any 'error', even a message body that is not JSON: say what
    // was wrong and go on (that message had no readable seq to answer); a broken stream still ends the session.
    this.removeAllListeners('error');
    this.on('error', (event: DebugProtocol.Event) => {
      const what = typeof event.body === 'string' ? event.body : 'unknown error';
      if (what.startsWith('Error handling data')) {
        this.log(`ocdb dap: ignored a message that could not be read (${what}); the session goes on.`);
        this.sendEvent(new OutputEvent(`ocdb dap ignored a message that could not be read: ${what}\n`, 'important'));
      } else {
        this.log(`ocdb dap: the connection failed (${what}); the adapter stops.`);
        this.shutdown();
      }
    });
  }

  /**
   * Reads the client's frames with the adapter's own reader (dapFraming.ts): a frame whose Content-Length lies, or
   * one larger than the adapter takes, is answered with an error and the session goes on; the library's reader would
   * wait for bytes that never come, or join a huge message quadratically.
   */
  override start(inStream: NodeJS.ReadableStream, outStream: NodeJS.WritableStream): void {
    const idle = new PassThrough();
    super.start(idle, outStream);
    const frames = new DapFrameReader({
      maxBytes: MAX_REQUEST_BYTES,
      onMessage: (message) => this.handleMessage(message as DebugProtocol.ProtocolMessage),
      onRefused: (refused) => this.refuseFrame(refused),
    });
    inStream.on('data', (data: Buffer | string) => frames.push(typeof data === 'string' ? Buffer.from(data) : data));
    const ended = () => {
      frames.close();
      idle.destroy(); // the library's 'close': the session shuts down as before
    };
    inStream.on('end', ended);
    inStream.on('close', ended);
    inStream.on('error', (e: Error) => this.emit('error', new Event('error', `inStream error: ${e.message}`)));
    inStream.resume();
  }

  /** A frame the reader could not take: an error response when its request is known, a line on the console always. */
  private refuseFrame(refused: RefusedFrame): void {
    this.log(`ocdb dap: ${refused.message}`);
    this.sendEvent(new OutputEvent(`ocdb dap: ${refused.message}\n`, 'important'));
    if (refused.seq === undefined || refused.command === undefined) return;
    const request: DebugProtocol.Request = { seq: refused.seq, type: 'request', command: refused.command };
    this.fail(new Response(request), new OcdbError('InvalidInput', refused.message));
  }

  /** Sends the DAP error response of `e` for `response` (the one place errors become responses). */
  private fail(response: DebugProtocol.Response, e: unknown): void {
    const err = toDapError(e, response.command);
    this.sendErrorResponse(response, { id: err.id, format: err.format, showUser: err.showUser, variables: {} });
  }

  /** Runs `fn`; any error becomes this request's error response. */
  private handle<R extends DebugProtocol.Response>(response: R, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.fail(response, e);
    }
  }

  /**
   * Every request enters here: requests this adapter does not implement are errors (not the library's empty
   * success), arguments are parsed by requestArgs.ts (an error names the argument), `initialize` without
   * `pathFormat` means `path` (the spec's default), and nothing but `pause` / `cancel` / `disconnect` /
   * `terminate` runs while a continue is still searching.
   */
  protected override dispatchRequest(request: DebugProtocol.Request): void {
    const response = new Response(request);
    try {
      const refused = NOT_SUPPORTED[request.command];
      if (refused !== undefined) throw new OcdbError('InvalidInput', refused, { path: 'command' });
      if (this.search.active && !['pause', 'cancel', 'disconnect', 'terminate', 'threads'].includes(request.command)) {
        throw new OcdbError(
          'InvalidInput',
          `${request.command}: the replay is running a continue; send pause (or wait for it to stop) first.`,
          { path: 'command' },
        );
      }
      request.arguments = parseRequestArgs(request.command, request.arguments);
    } catch (e) {
      this.fail(response, e);
      return;
    }
    super.dispatchRequest(request);
  }

  /** The one thread of a replay (an attached run's thread when attached); any other id is an error naming it. */
  private checkThread(threadId: number): void {
    if (this.live) {
      this.live.thread(threadId);
      return;
    }
    if (threadId !== THREAD_ID) {
      throw new OcdbError(
        'InvalidInput',
        `threadId ${threadId} is not a thread of this session: a replay has one thread, ${THREAD_ID}.`,
        { path: 'threadId' },
      );
    }
  }

  /** The replay's controller; attached, the controller of `threadId` (else of the thread that stopped last). */
  private controller(threadId?: number): ReplayController {
    if (this.live) {
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
    if (!this.ctl) throw new OcdbError('InvalidInput', 'No run is loaded yet: launch with a runId first.', {});
    return this.ctl;
  }

  /** The controller showing `runId` (its thread's when attached). */
  private ctlOfRun(runId: string): ReplayController | undefined {
    if (this.live) return (this.live.threadOfRun(runId) ?? this.live.threads[0])?.ctl;
    return this.ctl;
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
      this.endLive();
      this.ctl?.close();
      this.ctl = ctl;
      this.configured = false;
      this.search.abandon();
      this.frames.reset();
      this.vars.reset();
      this.sources = new TranscriptSources(
        ctl.args.storePath,
        (p) => this.convertDebuggerPathToClient(p),
        (p) => this.convertClientPathToDebugger(p),
        (source, reason) => this.sendEvent(new LoadedSourceEvent(reason, source)),
      );
      this.sendResponse(response);
      const run = ctl.view.run;
      this.sendEvent(
        new OutputEvent(
          `Replaying run ${run.runId} (${run.checkpointCount} checkpoints) from ${storeLocationLabel(ctl.args.storePath)}\n`,
        ),
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
      const live = LiveController.open(args, this.clientName, this.env, Date.now(), this.storeLocation);
      this.endLive();
      this.ctl?.close();
      this.ctl = undefined;
      this.live = live;
      this.configured = false;
      this.search.abandon();
      this.frames.reset();
      this.vars.reset();
      this.sources = new TranscriptSources(
        live.args.storePath,
        (p) => this.convertDebuggerPathToClient(p),
        (p) => this.convertClientPathToDebugger(p),
        (source, reason) => this.sendEvent(new LoadedSourceEvent(reason, source)),
      );
      this.sendResponse(response);
      const what = live.args.runId ? `run ${live.args.runId}` : `the next runs of agent ${live.args.agentId ?? ''}`;
      this.sendEvent(new OutputEvent(`Attached to ${what} in ${storeLocationLabel(live.args.storePath)}\n`));
      this.sendEvent(new InitializedEvent());
      this.liveLoop = new LiveLoop(
        live,
        () => this.configured && !this.search.active,
        (e) => this.sendLive(e),
      );
      this.liveLoop.start();
    });
  }

  private sendLive(e: LiveEvent): void {
    switch (e.kind) {
      case 'thread':
        // a run that ended: its transcript's header says how (not `running` until the session stops)
        if (e.reason === 'exited' && e.thread.ctl.refresh()) this.rewriteTranscript(e.thread.ctl.view);
        this.sendEvent(new ThreadEvent(e.reason, e.thread.id));
        return;
      case 'stopped':
        this.sourceOf(e.thread.ctl.view); // the grown transcript first (loadedSource), then the stop
        this.report(e.stop, e.thread.id);
        return;
      case 'continued':
        this.sendEvent(new ContinuedEvent(e.thread.id, false));
        return;
      case 'output':
        this.sendEvent(new OutputEvent(`${e.text}\n`, e.category));
        return;
      case 'ended':
        this.sendEvent(new OutputEvent(`The attached ${e.why}: the session ends.\n`));
        this.endLive();
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
    this.endLive();
  }

  /** Detaches an attach session (its agents go on at once). */
  private endLive(): void {
    this.liveLoop?.stop();
    this.liveLoop = undefined;
    const live = this.live;
    this.live = undefined;
    try {
      live?.close();
    } catch (e) {
      this.log(`ocdb dap: detaching failed: ${errorMessage(e)} (the agents go on when the lease expires).`);
    }
  }

  /** The client has sent every breakpoint: stop on entry or run to the first hit (attached: start deciding). */
  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.handle(response, () => {
      if (this.live) {
        this.configured = true;
        this.sendResponse(response);
        return;
      }
      const ctl = this.controller();
      this.sendResponse(response);
      if (!this.configured) {
        this.configured = true;
        this.report(ctl.start());
      }
    });
  }

  private report(stop: StopInfo, threadId = THREAD_ID): void {
    // attached, other threads may be stopped too: their frame and variable ids stay valid
    if (!this.live) {
      this.frames.reset();
      this.vars.reset();
    }
    for (const line of stop.logs) this.sendEvent(new OutputEvent(`${line}\n`, 'console'));
    const event = new StoppedEvent(stop.reason, threadId) as DebugProtocol.StoppedEvent;
    event.body.description = stop.description;
    event.body.text = stop.exception?.description;
    event.body.allThreadsStopped = !this.live;
    if (stop.hitBreakpointIds.length > 0) event.body.hitBreakpointIds = stop.hitBreakpointIds;
    this.sendEvent(event);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    if (this.live) {
      response.body = { threads: this.live.threads.map((t) => new Thread(t.id, `run ${t.runId} (${t.agentId})`)) };
    } else {
      const name = this.ctl ? `run ${this.ctl.view.runId}` : 'agent run (not launched)';
      response.body = { threads: [new Thread(THREAD_ID, name)] };
    }
    this.sendResponse(response);
  }

  // ---- sources -------------------------------------------------------------------------------

  /** The frame source of a run: its transcript file beside the store (see transcriptFiles.ts for why). */
  /** A run that changed after its thread left: its transcript file written again (no controller needed). */
  private rewriteTranscript(view: RunView): void {
    this.sources?.forget(view.runId);
    this.sources?.sourceOf(view);
  }

  private sourceOf(view: RunView): DebugProtocol.Source {
    this.controller();
    return (this.sources as TranscriptSources).sourceOf(view);
  }

  private viewOfSource(source: DebugProtocol.Source): RunView {
    this.controller();
    const runId = (this.sources as TranscriptSources).runIdOf(source);
    return (this.ctlOfRun(runId) ?? this.controller()).viewOf(runId);
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

  // ---- breakpoints ---------------------------------------------------------------------------

  /** Gutter breakpoints in a transcript: each line starting with `[n]` is a checkpoint. */
  protected override setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: RequestArgs<'setBreakpoints'>,
  ): void {
    this.handle(response, () => {
      if (this.live) {
        // a transcript of a run not attached (yet): its lines cannot be reached by this session
        const runId = (this.sources as TranscriptSources).runIdOf(args.source);
        if (!this.live.threadOfRun(runId)) {
          const message = `Run ${runId} is not attached to this session: breakpoints on its transcript do not stop it. Use function breakpoints (tool names) to stop the attached agents.`;
          const specs = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
          response.body = { breakpoints: specs.map((b) => ({ verified: false, line: b.line, message })) };
          this.sendResponse(response);
          return;
        }
      }
      const view = this.viewOfSource(args.source);
      const ctl = this.ctlOfRun(view.runId) ?? this.controller();
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
      // attached, a run may still call any tool: every name is verified
      response.body = {
        breakpoints: this.live
          ? this.live.rules.breakpoints.setFunctionBreakpoints(args.breakpoints, undefined)
          : this.controller().breakpoints.setFunctionBreakpoints(args.breakpoints, this.controller().view.toolNames()),
      };
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
      if (this.live) this.live.rules.setExceptionFilters(args.filters, options);
      else this.controller().setExceptionFilters(args.filters, options);
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
      const c = args.variablesReference ? this.container(args.variablesReference) : undefined;
      response.body = dataBreakpointInfo(c?.contextPath, args);
      this.sendResponse(response);
    });
  }

  protected override setDataBreakpointsRequest(
    response: DebugProtocol.SetDataBreakpointsResponse,
    args: RequestArgs<'setDataBreakpoints'>,
  ): void {
    this.handle(response, () => {
      const breakpoints = this.live ? this.live.rules.breakpoints : this.controller().breakpoints;
      response.body = { breakpoints: breakpoints.setDataBreakpoints(args.breakpoints) };
      this.sendResponse(response);
    });
  }

  protected override exceptionInfoRequest(
    response: DebugProtocol.ExceptionInfoResponse,
    args: RequestArgs<'exceptionInfo'>,
  ): void {
    this.handle(response, () => {
      this.checkThread(args.threadId);
      const body = exceptionInfo(this.controller(args.threadId).lastStop);
      if (!body) throw new OcdbError('InvalidInput', 'The session did not stop on an exception filter.', {});
      response.body = body;
      this.sendResponse(response);
    });
  }

  // ---- execution -----------------------------------------------------------------------------

  /** Re-reads a run still being recorded; its transcript source is replaced (loadedSource `changed` follows). */
  private refreshRun(ctl: ReplayController): void {
    if (ctl.refresh()) this.sources?.forget(ctl.view.runId);
  }

  /**
   * A step, goto or restart frame. Attached: at the live stop a forward step (`live`) lets the agent go on with the
   * edits made there and stops it at its next boundary (the stopped event comes when it gets there); elsewhere it
   * moves through what the run recorded, read-only, and reaching the live stop again stops there.
   */
  private move(
    response: DebugProtocol.Response,
    threadId: number,
    fn: (ctl: ReplayController) => StopInfo,
    live?: 'next' | 'stepIn' | 'stepOut',
  ): void {
    this.handle(response, () => {
      this.checkThread(threadId);
      const ctl = this.controller(threadId);
      if (this.live) {
        const t = this.live.thread(threadId);
        if (live && this.live.atHead(t)) {
          const said = this.live.resume(t, live, this.clientName);
          this.sendResponse(response);
          this.sendEvent(new OutputEvent(`${said}\n`, 'console'));
          return;
        }
        this.live.requireStopped(t);
        const stop = this.live.arrived(t, fn(ctl));
        this.sendResponse(response);
        this.report(stop, threadId);
        return;
      }
      this.refreshRun(ctl);
      const stop = fn(ctl);
      this.sendResponse(response);
      if (ctl.view.run.status === 'running') this.sourceOf(ctl.view); // a grown live run: loadedSource first
      this.report(stop);
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
    this.move(
      response,
      args.threadId,
      (c) => (args.targetId === undefined ? c.step('stepIn') : c.stepInto(args.targetId)),
      args.targetId === undefined ? 'stepIn' : undefined,
    );
  }
  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: RequestArgs<'stepOut'>): void {
    this.move(response, args.threadId, (c) => c.step('stepOut'), 'stepOut');
  }

  /** "Step Into Target…": the tool calls of the current step still ahead. */
  protected override stepInTargetsRequest(
    response: DebugProtocol.StepInTargetsResponse,
    args: RequestArgs<'stepInTargets'>,
  ): void {
    this.handle(response, () => {
      const ref = this.refOf(args.frameId);
      const ctl = this.ctlOfRun(ref.view.runId) ?? this.controller();
      response.body = {
        targets: ref.view.runId === ctl.view.runId && ref.index === ctl.cursor.index ? ctl.stepInTargets() : [],
      };
      this.sendResponse(response);
    });
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: RequestArgs<'continue'>): void {
    response.body = { allThreadsContinued: !this.live };
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
   * stopped `pause` there too).
   */
  private resume(response: DebugProtocol.Response, threadId: number, direction: 'forward' | 'backward'): void {
    this.handle(response, () => {
      this.checkThread(threadId);
      const ctl = this.controller(threadId);
      const live = this.live;
      const t = live?.thread(threadId);
      if (live && t) {
        // attached: Continue at the live stop lets the agent go on; from the recorded past it searches up to it
        if (direction === 'forward' && live.atHead(t)) {
          const said = live.resume(t, 'continue', this.clientName);
          this.sendResponse(response);
          this.sendEvent(new OutputEvent(`${said}\n`, 'console'));
          return;
        }
        live.requireStopped(t);
      } else {
        this.refreshRun(ctl);
      }
      this.search.start(ctl, direction, response.request_seq, (end) => {
        if ('error' in end) {
          this.fail(response, end.error);
          return;
        }
        if (end.cancelled) {
          response.success = false;
          response.message = 'cancelled';
        }
        this.sendResponse(response);
        if (live && t) {
          this.report(live.arrived(t, end.stop), t.id);
          return;
        }
        if (ctl.view.run.status === 'running') this.sourceOf(ctl.view);
        this.report(end.stop);
      });
    });
  }

  /**
   * Pause. A replay rests between requests, so pause answers and sends stopped (`pause`) where it is; during a long
   * continue it stops that continue where it got to.
   */
  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: RequestArgs<'pause'>): void {
    this.handle(response, () => {
      this.checkThread(args.threadId);
      const ctl = this.controller(args.threadId);
      this.sendResponse(response);
      if (this.search.pause()) return;
      if (this.live) {
        // a held agent stops again where the cursor is; a running one at its next boundary (stopped comes then)
        const stop = this.live.pause(this.live.thread(args.threadId));
        if (stop) this.report(stop, args.threadId);
        return;
      }
      this.report(ctl.pauseHere('Paused'));
    });
  }

  /** Cancel: a continue still searching answers `cancelled`; any other request has already been answered. */
  protected override cancelRequest(response: DebugProtocol.CancelResponse, args: RequestArgs<'cancel'>): void {
    this.search.cancel(args?.requestId);
    this.sendResponse(response);
  }

  /** "Run to / jump to line" in a transcript: one target per checkpoint line. */
  protected override gotoTargetsRequest(
    response: DebugProtocol.GotoTargetsResponse,
    args: RequestArgs<'gotoTargets'>,
  ): void {
    this.handle(response, () => {
      const view = this.viewOfSource(args.source);
      const ctl = this.ctlOfRun(view.runId) ?? this.controller();
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

  protected override gotoRequest(response: DebugProtocol.GotoResponse, args: RequestArgs<'goto'>): void {
    this.move(response, args.threadId, (c) => c.jump(args.targetId - 1, 'goto'));
  }

  /** The thread whose run `frameId`'s frame shows (the one thread of a replay). */
  private threadOfFrame(frameId: number): number {
    if (!this.live) return THREAD_ID;
    const ref = this.refOf(frameId);
    return this.live.threadOfRun(ref.view.runId)?.id ?? this.live.focused ?? THREAD_ID;
  }

  protected override restartFrameRequest(
    response: DebugProtocol.RestartFrameResponse,
    args: RequestArgs<'restartFrame'>,
  ): void {
    this.move(response, this.threadOfFrame(args.frameId), (c) => {
      const ref = this.refOf(args.frameId);
      if (ref.view.runId !== c.view.runId) {
        throw new OcdbError('InvalidInput', 'Only frames of the replayed run can be restarted.', { path: 'frameId' });
      }
      return c.jump(ref.index, 'restart');
    });
  }

  // ---- state ---------------------------------------------------------------------------------

  /** Frames: current checkpoint back to the start (then the parent run's before a fork point), paged. */
  protected override stackTraceRequest(
    response: DebugProtocol.StackTraceResponse,
    args: RequestArgs<'stackTrace'>,
  ): void {
    this.handle(response, () => {
      this.checkThread(args.threadId);
      const ctl = this.controller(args.threadId);
      if (this.live && !this.live.thread(args.threadId).held) {
        response.body = { stackFrames: [], totalFrames: 0 }; // a running agent has no frames until it stops
        this.sendResponse(response);
        return;
      }
      const segments = ctl.segments();
      const total = totalFrames(segments);
      const start = Math.max(0, args.startFrame ?? 0);
      // a request for every frame (no levels) gets the newest UNPAGED_FRAMES and a label counting the rest
      const unpaged = (args.levels ?? 0) <= 0 && total - start > UNPAGED_FRAMES;
      const refs = pageFrames(segments, start, unpaged ? UNPAGED_FRAMES : (args.levels ?? 0));
      const stackFrames = refs.map((ref) => {
        const frame = toStackFrame(ref, this.frames.idOf(ref), ctl.view, (view, index) => ({
          source: this.sourceOf(view),
          line: this.convertDebuggerLineToClient(view.lines()[index]?.line ?? 0),
        }));
        frame.column = this.convertDebuggerColumnToClient(frame.column); // 1 here; 0 for a client counting from 0
        return frame;
      });
      if (unpaged) stackFrames.push(labelFrame(this.frames.label(), total - start - refs.length));
      response.body = { stackFrames, totalFrames: total };
      this.sendResponse(response);
    });
  }

  /** The frame of `frameId` at this stop (the current checkpoint without one); a frame of an earlier stop is an error. */
  private refOf(frameId: number | undefined): FrameRef {
    const ctl = this.controller(); // before a launch / attach: says so rather than "not a frame"
    if (frameId === undefined) return ctl.current;
    const ref = this.frames.get(frameId);
    if (!ref && this.frames.isLabel(frameId)) {
      throw new OcdbError(
        'InvalidInput',
        `frameId ${frameId} is the label that counts the checkpoints not listed, not a checkpoint: step back to reach them.`,
        { path: 'frameId' },
      );
    }
    if (!ref) {
      throw new OcdbError(
        'InvalidInput',
        `frameId ${frameId} is not a frame of this stop: frame ids last until the next stop; ask stackTrace again.`,
        { path: 'frameId' },
      );
    }
    return ref;
  }

  /** The container of a variables reference of this stop; an unknown or earlier stop's reference is an error. */
  private container(reference: number): NonNullable<ReturnType<Variables['container']>> {
    const c = this.vars.container(reference);
    if (!c) {
      throw new OcdbError(
        'InvalidInput',
        `variablesReference ${reference} is not a variable of this stop: references last until the next stop.`,
        { path: 'variablesReference' },
      );
    }
    return c;
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
      this.container(args.variablesReference);
      response.body = {
        variables: this.vars.variables(args.variablesReference, args.start, args.count, args.filter),
      };
      this.sendResponse(response);
    });
  }

  /** Editing a Runtime Context value stages it for the next fork; the recording never changes. */
  protected override setVariableRequest(
    response: DebugProtocol.SetVariableResponse,
    args: RequestArgs<'setVariable'>,
  ): void {
    this.handle(response, () => {
      const c = this.container(args.variablesReference);
      if (c.pendingPath) {
        // the Pending scope of a live stop: the agent goes on with this when continued
        const pending = this.live?.pendingAt(c.ref);
        if (!pending) {
          throw new OcdbError('InvalidInput', `${args.name}: the agent is no longer waiting at this stop.`, {
            path: 'variablesReference',
          });
        }
        const key = Array.isArray(this.vars.valueOf(c)) ? itemIndex(args.name) : args.name;
        const now = pending.set([...c.pendingPath, key], parseEditedValue(args.value));
        response.body = { value: previewValue(now) };
        this.sendResponse(response);
        return;
      }
      if (!c.contextPath) {
        throw new OcdbError(
          'InvalidInput',
          `${args.name} is not in the Runtime Context: only runtime-context values can be staged for a fork.`,
          { path: 'variablesReference' },
        );
      }
      const key = Array.isArray(c.value) ? itemIndex(args.name) : args.name;
      const value = parseEditedValue(args.value);
      (this.ctlOfRun(c.ref.view.runId) ?? this.controller()).stage(c.ref, [...c.contextPath, key], value);
      response.body = { value: previewValue(value) };
      this.sendResponse(response);
    });
  }

  /** Watch, debug console, hover and copy: the safe JMESPath language of src/replay/evaluate.ts. */
  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: RequestArgs<'evaluate'>) {
    this.handle(response, () => {
      const ref = this.refOf(args.frameId);
      const value = (this.ctlOfRun(ref.view.runId) ?? this.controller()).evaluate(args.expression, ref, args.context);
      response.body = this.vars.evaluateResult(ref, args.expression, value, args.context);
      this.sendResponse(response);
    });
  }

  /**
   * Editing a Watch (or a variable with an evaluateName): a runtime-context path stages the edit for the next fork
   * exactly as setVariable does; any other expression cannot be set.
   */
  protected override setExpressionRequest(
    response: DebugProtocol.SetExpressionResponse,
    args: RequestArgs<'setExpression'>,
  ): void {
    this.handle(response, () => {
      const path = contextPathOf(args.expression);
      if (!path) {
        throw new OcdbError(
          'InvalidInput',
          `${args.expression} is not a path in the runtime context (runtimeContext.…): only runtime-context values can be staged for a fork.`,
          { path: 'expression' },
        );
      }
      const ref = this.refOf(args.frameId);
      const value = parseEditedValue(args.value);
      (this.ctlOfRun(ref.view.runId) ?? this.controller()).stage(ref, path, value);
      response.body = { value: previewValue(value) };
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
      const ctl = this.controller();
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
      response.body = {
        targets: targets.map((t) => ({ ...t, start: t.start === undefined ? undefined : this.clientOffset(t.start) })),
      };
      this.sendResponse(response);
    });
  }

  /** A 0-based offset into a completions text as the client counts columns. */
  private clientOffset(offset: number): number {
    return this.convertDebuggerColumnToClient(offset + 1);
  }

  /** The Loaded Scripts view: the transcripts of the runs this session has shown. */
  protected override loadedSourcesRequest(response: DebugProtocol.LoadedSourcesResponse): void {
    this.handle(response, () => {
      if (this.live) for (const t of this.live.threads) this.sourceOf(t.ctl.view);
      else this.sourceOf(this.controller().view);
      response.body = { sources: (this.sources as TranscriptSources).all() };
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
      if (command === stagedContextPatchRequest.command && this.live && this.live.threads.length === 0) {
        // waiting for an agent's next run: nothing can be staged yet, and the extension asks on every selection
        response.body = { contextPatch: {} };
        this.sendResponse(response);
        return;
      }
      if (command === fileOfVariableRequest.command) {
        response.body = fileOfVariable(args, (reference) => this.container(reference));
        this.sendResponse(response);
        return;
      }
      const answer = this.controller().customRequest(command, args);
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
    this.endLive();
    this.sendResponse(response);
    this.sendEvent(new TerminatedEvent());
  }

  /** Disconnect: ends the session; attached, the agents go on at once (detached). */
  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    this.search.abandon();
    this.endLive();
    this.ctl?.close();
    this.ctl = undefined;
    this.sendResponse(response);
    this.shutdown(); // ends the process only when running over stdio (not inline or as a server)
  }
}

/** The index an array item's variable is named by; an index range (`[0 … 99]`, Variables.ranges) is no value to set. */
function itemIndex(name: string): number {
  if (!/^\d+$/.test(name)) {
    throw new OcdbError('InvalidInput', `${name} is a range of items, not a value: expand it and set an item.`, {
      path: 'name',
    });
  }
  return Number(name);
}

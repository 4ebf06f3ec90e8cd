/**
 * RunRecorder: records one agent run into the store — checkpoints at the six
 * boundaries (filling runId, stepIndex, toolLedgerSnapshot, createdAt), model
 * calls, tool calls as a journal (begin returns an id; finish exactly once),
 * and the end. Writes are synchronous; with group commit (the default,
 * RecorderOptions.groupCommit) the writes of one event-loop turn commit
 * together, each whole or not at all (a savepoint each), when the turn ends;
 * a tool call's begin before the tool runs (it may block the turn), the
 * run's end at end().
 *
 * Store failures: a write that meets another process's lock (StoreLocked)
 * is tried again `storeLockRetries` times (default 3, a pause between) —
 * the write transaction changes nothing until it commits, so a retry is
 * safe. Any other failure, or a lock that outlasts the retries, marks the
 * recorder broken. With
 * `onStoreError: 'throw'` (the default) that call and every later one throw
 * the same OcdbError at once, so the agent learns of it and nothing waits on
 * a dead store; with `'disable'` the error goes to `onError` once and the
 * agent goes on unrecorded.
 */
import {
  HAZARDOUS_LEVELS,
  OcdbError,
  parseWith,
  type ArtifactRef,
  type CheckpointBoundary,
  type LiveEdits,
  type Message,
  type ModelConfig,
  type RuntimeContextSnapshot,
  type ToolCallRecord,
} from '../model';
import type { AgentProgramFork } from '../fork/agentProgramMode';
import type { RunStore, ToolOutcome } from '../store';
import type {
  CheckpointInput as WriterCheckpointInput,
  IdKind,
  LiveGate,
  LiveStopPoint,
  RunState,
  RunWriter,
} from '../writer';
import {
  ArtifactInputSchema,
  CheckpointInputSchema,
  EndRunInputSchema,
  ModelResponseSchema,
  ToolOptionsSchema,
  type ArtifactInput,
  type CheckpointInput,
  type EndRunInput,
  type ModelResponse,
  type ToolOptions,
} from './inputs';
import { artifactBytes } from './artifactBytes';
import { mockedError } from './mockedError';
import { FileTracker, type TrackFilesOptions } from './fileTracker';
import { isCallerError, retryLocked, storeFailure } from './storeFailures';
import { createToolJournal, type ToolJournal, type ToolJournalOptions } from './toolJournal';

export interface RecorderEnv {
  store: RunStore;
  now: () => number;
  newId: (kind: IdKind) => string;
  onStoreError: 'throw' | 'disable';
  onError?: (error: OcdbError) => void;
  /** Further attempts of a write that met StoreLocked before the recorder gives up. */
  storeLockRetries: number;
  heartbeatMs: number;
  /** Where a live debugger may stop the run (live debugging); absent: never asked. */
  live?: LiveGate;
  /** Told when a run has ended and is in the store (a local-first recorder ships it to its team store). */
  onEnded?: (runId: string) => void;
  /**
   * A local-first recorder's durability point: ships the run as it stands and returns once its team store holds
   * it, or throws when that is not confirmed in time (called before a `write` or `external_irreversible` tool runs
   * and at the run's end; `when` says which, for the message).
   */
  confirmShipped?: (runId: string, when: string) => void;
}

/** What the model is called with besides the conversation (a live debugger may have edited the system prompt). */
export interface ModelRequest {
  systemPrompt?: string;
  model?: ModelConfig;
  runtimeContext: RuntimeContextSnapshot;
}

/** The edit fields an agent honours where it reads its own state (run.runtimeContext, run.systemPrompt, run.messages). */
const STATE_FIELDS = ['runtimeContext', 'systemPrompt', 'messages'] as const;
/** The SDK runs the tool itself: arguments and a mocked outcome apply too. */
const TOOL_FIELDS = ['toolArgs', 'toolOutcome', 'runtimeContext'] as const;

/** A model call's outcome as recorded (the response message is appended to the conversation). */
export type ModelCallResult = ModelResponse;

/**
 * The SDK's handle on one run: the recorder's store-failure policy and input validation over the one RunWriter
 * (src/writer), which owns every rule of what the run looks like. In agent-program mode (OCDB_FORK) the fork
 * engine (src/fork/agentProgramMode.ts) governs model calls and tools.
 */
export class RunRecorder {
  private ended = false;
  /** The folders `trackFiles` watches: their changed files are stored at each tool boundary. */
  private readonly trackers: FileTracker[] = [];

  /**
   * `broken`: the store failed before the run could start (`onStoreError: 'disable'`): the writer is an unrecorded
   * one (RunWriter.unrecorded), so the run's state reads as usual and nothing is recorded.
   */
  constructor(
    private readonly env: RecorderEnv,
    private readonly writer: RunWriter,
    private readonly fork?: AgentProgramFork,
    private broken?: OcdbError,
  ) {}

  get runId(): string {
    return this.writer.runId;
  }

  private get state(): RunState {
    const state = this.writer.state;
    if (!state) throw new OcdbError('Internal', `Run ${this.runId} has no state.`, { runId: this.runId });
    return state;
  }

  /** The conversation as the recorder last saw it (frozen: the writer's own list is never handed out). */
  get messages(): readonly Message[] {
    const messages = this.state.messages;
    // the writer's list grows in place: the same list with other messages at its end is another conversation
    let shown = this.shown;
    if (shown?.of !== messages || shown.copy.length !== messages.length || shown.copy.at(-1) !== messages.at(-1)) {
      shown = this.shown = { of: messages, copy: Object.freeze(messages.slice()) };
    }
    return shown.copy;
  }

  private shown: { of: readonly Message[]; copy: readonly Message[] } | undefined;

  /** The runtime context as the recorder last saw it (in a fork: the patched context of the fork). */
  get runtimeContext(): RuntimeContextSnapshot {
    return this.state.runtimeContext;
  }

  get systemPrompt(): string | undefined {
    return this.state.systemPrompt;
  }

  /** The model of the run (in a fork: with the fork's model override applied). */
  get model(): ModelConfig | undefined {
    return this.state.model;
  }

  get promptVersion(): string | undefined {
    return this.state.promptVersion;
  }

  /** True when this run executes a fork (agent-program mode, OCDB_FORK). */
  get isFork(): boolean {
    return this.fork !== undefined;
  }

  /** The current ReAct step (-1 before the first). */
  get stepIndex(): number {
    return this.writer.stepIndex;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The tool ledger so far, oldest first. */
  get toolLedger(): readonly ToolCallRecord[] {
    return this.writer.ledger;
  }

  /** Runs a store write; on failure marks the recorder broken and reports per `onStoreError`. */
  private write<T>(what: string, fn: () => T): T | undefined {
    if (this.broken) {
      if (this.env.onStoreError === 'throw') throw this.broken;
      return undefined;
    }
    try {
      return retryLocked(fn, this.env.storeLockRetries);
    } catch (e) {
      if (isCallerError(e)) throw e;
      const err = storeFailure(e, `Recording ${what} of run ${this.runId} failed`, { runId: this.runId });
      this.broken = err;
      this.writer.dispose();
      if (this.env.onStoreError === 'throw') throw err;
      this.env.onError?.(err);
      return undefined;
    }
  }

  private assertOpen(what: string): void {
    if (this.ended) {
      throw new OcdbError('RunNotRunning', `Cannot record ${what}: run ${this.runId} has ended.`, {
        runId: this.runId,
      });
    }
  }

  /**
   * Records a checkpoint at `boundary`. State omitted from `input` carries
   * over from the previous checkpoint; the SDK fills runId, stepIndex (a new
   * ReAct step starts at before_prompt_build, or at a before_model_call not
   * preceded by one), toolLedgerSnapshot and createdAt. Returns the checkpoint id.
   */
  checkpoint(boundary: CheckpointBoundary, input: CheckpointInput = {}): string {
    this.assertOpen(`a ${boundary} checkpoint`);
    const data = parseWith(CheckpointInputSchema, input, `checkpoint(${boundary})`);
    const checkpointId = this.record(boundary, data);
    // the agent runs its tool next (which may block the event loop): what it waits on is in the store first
    if (boundary === 'before_tool_call') {
      this.commit(`a ${boundary} checkpoint`);
      const call =
        data.toolCallId !== undefined ? this.writer.ledger.find((r) => r.toolCallId === data.toolCallId) : undefined;
      if (call && HAZARDOUS_LEVELS.has(call.sideEffectLevel))
        this.confirmBeforeTool(call.toolName, call.sideEffectLevel);
    }
    // a live debugger may stop the agent here: this call blocks until it goes on (the agent reads the edited state)
    this.stopSync(this.pointAt(boundary, checkpointId, data.toolCallId), STATE_FIELDS);
    return checkpointId;
  }

  /** Writes a checkpoint from input already validated (by CheckpointInputSchema, or piece by piece by the caller). */
  private record(boundary: CheckpointBoundary, data: WriterCheckpointInput): string {
    const checkpointId = data.checkpointId ?? this.env.newId('checkpoint');
    this.write(`a ${boundary} checkpoint`, () => this.writer.checkpoint(boundary, { ...data, checkpointId }));
    return checkpointId;
  }

  // ---- live debugging (src/writer/liveGate.ts; the protocol in src/debug/README.md) ----

  private pointAt(
    boundary: CheckpointBoundary,
    checkpointId: string | undefined,
    toolCallId?: string,
  ): LiveStopPoint | undefined {
    if (!this.env.live || this.broken || checkpointId === undefined || boundary === 'agent_end') return undefined;
    return {
      runId: this.runId,
      agentId: this.writer.agentId,
      checkpointId,
      boundary,
      ...(toolCallId !== undefined ? { toolCallId } : {}),
    };
  }

  /** Asks a live debugger at `point` and blocks while it holds the agent; applies and returns its edits. */
  private stopSync(point: LiveStopPoint | undefined, fields: readonly (keyof LiveEdits)[]): LiveEdits | undefined {
    if (!point || !this.env.live) return undefined;
    // blocked, the heartbeat timer cannot fire: the wait beats it (a run held at a breakpoint is not crashed)
    const answer = this.env.live.checkSync(point, () => this.writer.heartbeat());
    this.noteHold(point, answer?.heldMs);
    return answer?.edits ? this.applyEdits(point, answer.stopId, answer.edits, fields) : undefined;
  }

  /** Asks a live debugger at `point` and waits (without blocking the event loop); applies and returns its edits. */
  private async stop(
    point: LiveStopPoint | undefined,
    fields: readonly (keyof LiveEdits)[],
  ): Promise<LiveEdits | undefined> {
    if (!point || !this.env.live) return undefined;
    const answer = await this.env.live.check(point);
    if (this.ended) return undefined;
    this.noteHold(point, answer?.heldMs);
    return answer?.edits ? this.applyEdits(point, answer.stopId, answer.edits, fields) : undefined;
  }

  /**
   * A stop held the agent: before a tool, apart from the tool's own time (ToolCallRecord.heldMs); elsewhere (a model
   * call's stops), on the next checkpoint (Checkpoint.heldMs), apart from the model call's time.
   */
  private noteHold(point: LiveStopPoint, heldMs: number | undefined): void {
    if (heldMs === undefined) return;
    if (point.boundary === 'before_tool_call' && point.toolCallId !== undefined)
      this.writer.held(point.toolCallId, heldMs);
    else if (point.boundary !== 'before_tool_call') this.writer.heldAtStop(point.checkpointId, heldMs);
  }

  private applyEdits(
    point: LiveStopPoint,
    stopId: string,
    edits: LiveEdits,
    fields: readonly (keyof LiveEdits)[],
  ): LiveEdits | undefined {
    return this.write('a live edit', () =>
      this.writer.applyLiveEdits(
        {
          stopId,
          checkpointId: point.checkpointId,
          boundary: point.boundary,
          ...(point.toolCallId !== undefined ? { toolCallId: point.toolCallId } : {}),
        },
        edits,
        fields,
      ),
    );
  }

  /**
   * Records a model call: `before_model_call` with the prompt, then `call`,
   * then `after_model_call` with the response appended, its finishReason and
   * usage. A thrown error is recorded (finishReason `error`) and rethrown.
   */
  async modelCall(
    input: CheckpointInput,
    call: (messages: readonly Message[], request: ModelRequest) => Promise<ModelResponse>,
  ): Promise<ModelCallResult> {
    this.assertOpen('a before_model_call checkpoint');
    const data = parseWith(CheckpointInputSchema, input, 'checkpoint(before_model_call)');
    const before = this.record('before_model_call', data);
    // a live debugger may stop here and edit the system prompt and messages the model is called with
    await this.stop(this.pointAt('before_model_call', before), STATE_FIELDS);
    const request = (): ModelRequest => ({
      ...(this.state.systemPrompt !== undefined ? { systemPrompt: this.state.systemPrompt } : {}),
      ...(this.state.model !== undefined ? { model: this.state.model } : {}),
      runtimeContext: this.state.runtimeContext,
    });
    let response: ModelCallResult;
    try {
      const raw = this.fork
        ? await this.fork.modelTurn(this.writer, (messages) => call(messages, request()))
        : await call(this.messages, request());
      response = parseWith(ModelResponseSchema, raw, 'model response');
    } catch (e) {
      if (!this.ended && !this.broken) {
        const failed = this.record('after_model_call', { finishReason: 'error' });
        await this.stop(this.pointAt('after_model_call', failed), ['runtimeContext']);
      }
      throw e;
    }
    // The conversation so far was validated when it was recorded and the response just now (ModelResponseSchema):
    // nothing is re-parsed, so a model call costs O(its own message), not O(conversation).
    this.assertOpen('an after_model_call checkpoint');
    const after = this.record('after_model_call', {
      // the writer's own conversation grows by the answer in place (no copy of it)
      appendMessages: [response.message],
      ...(response.model !== undefined ? { model: response.model } : {}),
      ...(response.finishReason !== undefined ? { finishReason: response.finishReason } : {}),
      ...(response.usage !== undefined ? { usage: response.usage } : {}),
    });
    await this.stop(this.pointAt('after_model_call', after), ['runtimeContext']);
    return response;
  }

  /**
   * Opens a tool call in the ledger (and records `before_tool_call` unless
   * `checkpoints: false`). Returns the tool call id to pass to `finishTool`.
   */
  beginTool(toolName: string, args: unknown, options: ToolOptions): string {
    const { toolCallId, checkpointId } = this.begin(toolName, args, options);
    // a live debugger may stop here; this call blocks meanwhile. The caller runs its tool itself, so only the
    // context edit applies (edited arguments and mocked outcomes apply to tools the SDK runs: tool(), recordCall).
    this.stopSync(this.pointAt('before_tool_call', checkpointId, toolCallId), ['runtimeContext']);
    return toolCallId;
  }

  private begin(toolName: string, args: unknown, options: ToolOptions): { toolCallId: string; checkpointId?: string } {
    this.assertOpen(`tool call ${toolName}`);
    const opts = parseWith(ToolOptionsSchema, options, `beginTool(${toolName})`);
    if (typeof toolName !== 'string' || toolName.length === 0) {
      throw new OcdbError('InvalidInput', 'beginTool: toolName must be a non-empty string', { path: 'toolName' });
    }
    const toolCallId = opts.toolCallId ?? this.env.newId('toolCall');
    const done = this.write(`tool call ${toolName}`, () =>
      this.writer.beginTool(
        {
          toolCallId,
          toolName,
          args,
          sideEffectLevel: opts.sideEffectLevel,
          ...(opts.replayPolicy ? { replayPolicy: opts.replayPolicy } : {}),
        },
        { checkpoint: opts.checkpoints === false ? false : {} },
      ),
    );
    if (done?.checkpoint !== undefined) this.trackAt(done.checkpoint.index);
    this.commit(`tool call ${toolName}`); // the tool runs next (the caller's, or the SDK's in recordCall)
    // a tool that changes the world runs only once the team store holds the run up to here (local-first)
    if (HAZARDOUS_LEVELS.has(opts.sideEffectLevel)) this.confirmBeforeTool(toolName, opts.sideEffectLevel);
    return {
      toolCallId,
      ...(done?.checkpoint !== undefined ? { checkpointId: done.checkpoint.checkpointId } : {}),
    };
  }

  /**
   * Closes a tool call exactly once with success (result), error or
   * cancelled; a second finish throws ToolCallAlreadyFinished. Records
   * `after_tool_call` with a `tool` message carrying the result or error,
   * unless `checkpoints: false`.
   */
  finishTool(
    toolCallId: string,
    outcome: ToolOutcome,
    value?: unknown,
    options: { checkpoints?: boolean; appendMessage?: boolean } = {},
  ): void {
    const checkpointId = this.finish(toolCallId, outcome, value, options);
    this.stopSync(this.pointAt('after_tool_call', checkpointId, toolCallId), STATE_FIELDS);
  }

  private finish(
    toolCallId: string,
    outcome: ToolOutcome,
    value: unknown,
    options: { checkpoints?: boolean; appendMessage?: boolean } = {},
  ): string | undefined {
    this.assertOpen(`the end of tool call ${toolCallId}`);
    const done = this.write(`the end of tool call ${toolCallId}`, () =>
      this.writer.finishTool(toolCallId, outcome, value, {
        checkpoint: options.checkpoints === false ? false : {},
        ...(options.appendMessage === false ? { appendMessage: false } : {}),
      }),
    );
    if (done?.checkpoint !== undefined) this.trackAt(done.checkpoint.index);
    return done?.checkpoint?.checkpointId;
  }

  /**
   * Opt-in: from now on, the files changed in `dir` (git-aware in a repository, else a bounded walk) are stored at
   * each tool boundary — at `before_tool_call` what changed before the tool, at `after_tool_call` what it changed —
   * so the debugger's Files scope shows them as it does for a coding agent's session (fileTracker.ts).
   */
  trackFiles(dir: string, options: TrackFilesOptions = {}): void {
    this.assertOpen('trackFiles');
    this.trackers.push(new FileTracker(dir, options));
  }

  private trackAt(index: number): void {
    for (const t of this.trackers) {
      const versions = t.scan(index);
      if (versions.length > 0) this.write('changed files', () => this.env.store.addFileVersions(this.runId, versions));
    }
  }

  /**
   * Wraps an async tool function: each call is recorded as a tool call
   * (before/after checkpoints, result or thrown error) with the tool's
   * side-effect level and replay policy. Errors are recorded and rethrown.
   */
  tool<A, R>(
    toolName: string,
    options: Omit<ToolOptions, 'toolCallId'>,
    fn: (args: A) => Promise<R> | R,
  ): (args: A, callOptions?: { toolCallId?: string }) => Promise<R> {
    const opts = parseWith(ToolOptionsSchema, options, `tool(${toolName})`);
    return async (args: A, callOptions?: { toolCallId?: string }) => {
      const toolCallId = callOptions?.toolCallId;
      if (this.fork) {
        const execute = (policy: ToolOptions['replayPolicy']) =>
          this.recordCall(toolName, args, { ...options, replayPolicy: policy, toolCallId }, fn);
        return (await this.fork.toolCall(
          this.writer,
          {
            toolName,
            args,
            sideEffectLevel: opts.sideEffectLevel,
            ...(opts.replayPolicy ? { replayPolicy: opts.replayPolicy } : {}),
            ...(toolCallId ? { toolCallId } : {}),
            ...(opts.checkpoints === false ? { checkpoints: false } : {}),
          },
          execute,
        )) as R;
      }
      return this.recordCall(toolName, args, { ...options, toolCallId }, fn);
    };
  }

  /**
   * Runs `fn(args)` as one recorded tool call: begin, then finish with its
   * result, or with its thrown error, which is rethrown.
   */
  async recordCall<A, R>(toolName: string, args: A, options: ToolOptions, fn: (args: A) => Promise<R> | R): Promise<R> {
    const { toolCallId: id, checkpointId } = this.begin(toolName, args, options);
    // a live debugger may stop before the tool runs: it runs with the edited arguments, or not at all (mocked)
    const edits = await this.stop(this.pointAt('before_tool_call', checkpointId, id), TOOL_FIELDS);
    const finished = async (outcome: 'success' | 'error', value: unknown) => {
      const after = this.finish(id, outcome, value);
      await this.stop(this.pointAt('after_tool_call', after, id), ['runtimeContext']);
    };
    if (edits?.toolOutcome) {
      const mocked = edits.toolOutcome;
      await finished(mocked.outcome, mocked.value);
      if (mocked.outcome === 'error') throw mockedError(toolName, mocked.value);
      return mocked.value as R;
    }
    let result: R;
    try {
      result = await fn((edits?.toolArgs !== undefined ? edits.toolArgs : args) as A);
    } catch (e) {
      await finished('error', e);
      throw e;
    }
    await finished('success', result);
    return result;
  }

  /**
   * Records an artifact the agent produced (a report, a patch, an image): `content` as text or bytes (a
   * Uint8Array / Buffer; a string with `encoding: 'base64'`), or `path`, a file read as bytes — at most
   * MAX_ARTIFACT_BYTES (16 MiB). The content goes into the store once (content-addressed: identical content is
   * stored once) and the run's artifacts list its ref at once; no checkpoint is written — the next checkpoint
   * (at the latest `agent_end`) carries the ref, in place of the older version of the same name. Recording a name
   * again makes its next version. Returns the ref (undefined when recording is disabled after a store failure).
   */
  artifact(input: ArtifactInput): ArtifactRef | undefined {
    const data = parseWith(ArtifactInputSchema, input, 'artifact');
    this.assertOpen(`artifact ${data.name}`);
    const content = artifactBytes(data);
    return this.write(`artifact ${data.name}`, () =>
      this.writer.artifact({
        name: data.name,
        type: data.type,
        content,
        ...(data.metadata !== undefined ? { metadata: data.metadata } : {}),
      }),
    );
  }

  /**
   * Ends the run: records `agent_end` and sets the status (completed by
   * default; failed with the error; cancelled; in a fork the engine stopped at
   * a divergence, diverged with its error). Ending twice throws.
   */
  end(input: EndRunInput = {}): void {
    this.assertOpen('the end of the run');
    const data = parseWith(EndRunInputSchema, input, 'end');
    // A fork the engine stopped at a divergence ends diverged, however the agent handled the error.
    const stopped = this.fork?.stoppedEnd();
    const status = stopped?.status ?? data.status ?? (data.error !== undefined ? 'failed' : 'completed');
    const error = stopped ? stopped.error : data.error;
    this.write('the end of the run', () =>
      this.writer.end({
        status,
        ...(error !== undefined ? { error } : {}),
        ...(data.messages ? { checkpoint: { messages: data.messages } } : {}),
      }),
    );
    // the run's end is in the store when end() returns (group commit: what the turn wrote goes with it)
    this.commit('the end of the run');
    this.ended = true;
    this.writer.dispose();
    this.fork?.end();
    // confirmed here, the run needs no shipping in the background; else the shipper keeps it and retries
    let confirmed = false;
    try {
      confirmed = this.confirm('at the end of the run');
    } finally {
      if (!confirmed) this.env.onEnded?.(this.runId);
    }
  }

  private confirmBeforeTool(toolName: string, level: string): void {
    this.confirm(`before ${toolName} (${level}) ran`);
  }

  /**
   * A local-first recorder's durability point (RecorderEnv.confirmShipped): a failure is reported under
   * `onStoreError` — thrown ('throw': a tool about to run does not run unless the agent decides so), or told to
   * `onError` ('disable') — but recording goes on: the run is whole in the local store and ships later.
   */
  private confirm(when: string): boolean {
    const confirmShipped = this.env.confirmShipped;
    if (!confirmShipped || this.broken) return false;
    try {
      confirmShipped(this.runId, when);
      return true;
    } catch (e) {
      const err = storeFailure(e, `Shipping run ${this.runId} to the team store failed`, { runId: this.runId });
      if (this.env.onStoreError === 'throw') throw err;
      this.env.onError?.(err);
      return false;
    }
  }

  /**
   * Commits what the store's group holds (RecorderOptions.groupCommit) before a tool runs: a tool may block the event
   * loop (a synchronous command, a long computation), and the group would then hold other writers (a debugger, a
   * fork, other agents) off while it runs. A model call needs none: it awaits I/O, and the turn ends meanwhile.
   */
  private commit(what: string): void {
    if (this.broken) return;
    this.write(what, () => this.env.store.flush());
  }

  /** agent-core's ToolJournal over this run: receipts opened by beginTool, closed once by finishTool (toolJournal.ts). */
  toolJournal(options?: ToolJournalOptions): ToolJournal {
    return createToolJournal(this, options);
  }

  /** Stops the heartbeat without ending the run (the run will show as crashed if never ended). */
  dispose(): void {
    this.writer.dispose();
  }
}

export { DEFAULT_STORE_LOCK_RETRIES, isCallerError, retryLocked, storeFailure } from './storeFailures';

/** How a thrown value is stored: see src/writer/outcomes.ts. */
export { serializeError } from '../writer';

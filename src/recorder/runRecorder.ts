/**
 * RunRecorder: records one agent run into the store — checkpoints at the six
 * boundaries (filling runId, stepIndex, toolLedgerSnapshot, createdAt), model
 * calls, tool calls as a journal (begin returns an id; finish exactly once),
 * and the end. Writes are synchronous SQLite transactions: when one returns,
 * the checkpoint is on disk whole.
 *
 * Store failures: the first failed write marks the recorder broken. With
 * `onStoreError: 'throw'` (the default) that call and every later one throw
 * the same OcdbError at once, so the agent learns of it and nothing waits on
 * a dead store; with `'disable'` the error goes to `onError` once and the
 * agent goes on unrecorded.
 */
import {
  OcdbError,
  defaultReplayPolicy,
  errorMessage,
  parseWith,
  type ArtifactRef,
  type Checkpoint,
  type CheckpointBoundary,
  type Message,
  type ModelConfig,
  type RuntimeContextSnapshot,
  type ToolCallRecord,
} from '../model';
import type { RunStore, ToolOutcome } from '../store';
import {
  CheckpointInputSchema,
  EndRunInputSchema,
  ModelResponseSchema,
  ToolOptionsSchema,
  type CheckpointInput,
  type EndRunInput,
  type ModelResponse,
  type ToolOptions,
} from './inputs';

export interface RecorderEnv {
  store: RunStore;
  now: () => number;
  newId: (kind: 'run' | 'checkpoint' | 'toolCall') => string;
  onStoreError: 'throw' | 'disable';
  onError?: (error: OcdbError) => void;
  heartbeatMs: number;
}

interface RunState {
  messages: Message[];
  systemPrompt?: string;
  model?: ModelConfig;
  promptVersion?: string;
  runtimeContext: RuntimeContextSnapshot;
  artifactRefs?: ArtifactRef[];
}

/** A model call's outcome as recorded (the response message is appended to the conversation). */
export type ModelCallResult = ModelResponse;

/**
 * Agent-program mode (forkMode.ts) plugs in here: how model calls and tools
 * run when the agent executes a fork (captured turns, cassette, policies).
 */
export interface RunHooks {
  model(run: RunRecorder, call: (messages: readonly Message[]) => Promise<ModelResponse>): Promise<ModelResponse>;
  tool(
    run: RunRecorder,
    toolName: string,
    options: Omit<ToolOptions, 'toolCallId'>,
    args: unknown,
    fn: (args: unknown) => unknown,
    toolCallId: string | undefined,
  ): Promise<unknown>;
  end(run: RunRecorder, status: 'completed' | 'failed' | 'cancelled', error: unknown): void;
}

/** Continuing a run that already has checkpoints (a fork created by ForkService). */
export interface AttachState {
  hooks: RunHooks;
  stepIndex: number;
  lastBoundary?: CheckpointBoundary;
  ledger: readonly ToolCallRecord[];
}

export class RunRecorder {
  private state: RunState;
  private readonly ledger = new Map<string, ToolCallRecord>();
  private step = -1;
  private lastBoundary: CheckpointBoundary | undefined;
  private ended = false;
  private broken: OcdbError | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly hooks: RunHooks | undefined;

  constructor(
    private readonly env: RecorderEnv,
    readonly runId: string,
    initial: RunState,
    attach?: AttachState,
  ) {
    this.state = initial;
    if (attach) {
      this.hooks = attach.hooks;
      this.step = attach.stepIndex;
      this.lastBoundary = attach.lastBoundary;
      for (const record of attach.ledger) this.ledger.set(record.toolCallId, deepFreeze(record));
    }
    if (env.heartbeatMs > 0) {
      this.timer = setInterval(() => this.beat(), env.heartbeatMs);
      this.timer.unref();
    }
  }

  /** The conversation as the recorder last saw it. */
  get messages(): readonly Message[] {
    return this.state.messages;
  }

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
    return this.hooks !== undefined;
  }

  /** The current ReAct step (-1 before the first). */
  get stepIndex(): number {
    return this.step;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The tool ledger so far, oldest first. */
  get toolLedger(): readonly ToolCallRecord[] {
    return [...this.ledger.values()];
  }

  private beat(): void {
    if (this.ended || this.broken) return;
    try {
      this.env.store.heartbeat(this.runId, this.env.now());
    } catch {
      // A missed heartbeat is not an error for the agent; the next real write reports store trouble.
    }
  }

  /** Runs a store write; on failure marks the recorder broken and reports per `onStoreError`. */
  private write<T>(what: string, fn: () => T): T | undefined {
    if (this.broken) {
      if (this.env.onStoreError === 'throw') throw this.broken;
      return undefined;
    }
    try {
      return fn();
    } catch (e) {
      if (
        e instanceof OcdbError &&
        (e.code === 'InvalidInput' ||
          e.code === 'ToolCallAlreadyFinished' ||
          e.code === 'ToolCallNotFound' ||
          e.code === 'RunNotRunning' ||
          e.code === 'ToolCallAlreadyExists')
      ) {
        throw e; // the caller's mistake, not the store's: report it and keep recording
      }
      const err =
        e instanceof OcdbError
          ? e
          : new OcdbError(
              'StoreUnavailable',
              `Recording ${what} of run ${this.runId} failed: ${errorMessage(e)}`,
              { runId: this.runId },
              { cause: e },
            );
      this.broken = err;
      if (this.timer) clearInterval(this.timer);
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

  private nextStepFor(boundary: CheckpointBoundary): number {
    if (boundary === 'agent_end') return -1;
    const startsStep =
      this.step < 0 ||
      boundary === 'before_prompt_build' ||
      (boundary === 'before_model_call' && this.lastBoundary !== 'before_prompt_build');
    return startsStep ? this.step + 1 : this.step;
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
    const next: RunState = {
      messages: data.messages ?? this.state.messages,
      systemPrompt: data.systemPrompt ?? this.state.systemPrompt,
      model: data.model ?? this.state.model,
      promptVersion: data.promptVersion ?? this.state.promptVersion,
      runtimeContext: data.runtimeContext ?? this.state.runtimeContext,
      artifactRefs: data.artifactRefs ?? this.state.artifactRefs,
    };
    const stepIndex = data.stepIndex ?? this.nextStepFor(boundary);
    const checkpoint: Checkpoint = {
      checkpointId: data.checkpointId ?? this.env.newId('checkpoint'),
      runId: this.runId,
      boundary,
      stepIndex,
      messages: next.messages,
      systemPrompt: next.systemPrompt,
      model: next.model,
      promptVersion: next.promptVersion,
      runtimeContext: next.runtimeContext,
      toolCallId: data.toolCallId,
      toolLedgerSnapshot: [...this.ledger.values()],
      artifactRefs: next.artifactRefs,
      finishReason: data.finishReason,
      usage: data.usage,
      createdAt: this.env.now(),
    };
    for (const key of Object.keys(checkpoint) as (keyof Checkpoint)[]) {
      if (checkpoint[key] === undefined) delete checkpoint[key];
    }
    this.write(`a ${boundary} checkpoint`, () => this.env.store.appendCheckpoint(checkpoint));
    this.state = { ...next, messages: [...next.messages] };
    if (boundary !== 'agent_end') this.step = stepIndex;
    this.lastBoundary = boundary;
    return checkpoint.checkpointId;
  }

  /**
   * Records a model call: `before_model_call` with the prompt, then `call`,
   * then `after_model_call` with the response appended, its finishReason and
   * usage. A thrown error is recorded (finishReason `error`) and rethrown.
   */
  async modelCall(
    input: CheckpointInput,
    call: (messages: readonly Message[]) => Promise<ModelResponse>,
  ): Promise<ModelCallResult> {
    this.checkpoint('before_model_call', input);
    let response: ModelCallResult;
    try {
      const raw = this.hooks ? await this.hooks.model(this, call) : await call(this.state.messages);
      response = parseWith(ModelResponseSchema, raw, 'model response');
    } catch (e) {
      if (!this.ended && !this.broken) this.checkpoint('after_model_call', { finishReason: 'error' });
      throw e;
    }
    this.checkpoint('after_model_call', {
      messages: [...this.state.messages, response.message],
      model: response.model,
      finishReason: response.finishReason,
      usage: response.usage,
    });
    return response;
  }

  /**
   * Opens a tool call in the ledger (and records `before_tool_call` unless
   * `checkpoints: false`). Returns the tool call id to pass to `finishTool`.
   */
  beginTool(toolName: string, args: unknown, options: ToolOptions): string {
    this.assertOpen(`tool call ${toolName}`);
    const opts = parseWith(ToolOptionsSchema, options, `beginTool(${toolName})`);
    if (typeof toolName !== 'string' || toolName.length === 0) {
      throw new OcdbError('InvalidInput', 'beginTool: toolName must be a non-empty string', { path: 'toolName' });
    }
    const toolCallId = opts.toolCallId ?? this.env.newId('toolCall');
    const record = this.write(`tool call ${toolName}`, () =>
      this.env.store.beginToolCall(this.runId, {
        toolCallId,
        toolName,
        args,
        sideEffectLevel: opts.sideEffectLevel,
        replayPolicy: opts.replayPolicy ?? defaultReplayPolicy(opts.sideEffectLevel),
        startedAt: this.env.now(),
      }),
    );
    if (record) this.ledger.set(toolCallId, deepFreeze(record));
    if (opts.checkpoints !== false) this.checkpoint('before_tool_call', { toolCallId });
    return toolCallId;
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
    this.assertOpen(`the end of tool call ${toolCallId}`);
    const known = this.ledger.get(toolCallId);
    if (known && known.endedAt !== undefined) {
      throw new OcdbError(
        'ToolCallAlreadyFinished',
        `Tool call ${toolCallId} (${known.toolName}) was already finished; finish it exactly once.`,
        { runId: this.runId, toolCallId },
      );
    }
    const endedAt = this.env.now();
    const error = outcome === 'success' ? undefined : serializeError(value, outcome);
    const record = this.write(`the end of tool call ${toolCallId}`, () =>
      this.env.store.finishToolCall(this.runId, toolCallId, {
        outcome,
        result: outcome === 'success' ? value : undefined,
        error,
        endedAt,
      }),
    );
    if (record) this.ledger.set(toolCallId, deepFreeze(record));
    if (options.checkpoints === false) return;
    const toolName = record?.toolName ?? known?.toolName ?? 'unknown';
    const messages =
      options.appendMessage === false
        ? undefined
        : [
            ...this.state.messages,
            {
              role: 'tool' as const,
              toolCallId,
              toolName,
              content: outcome === 'success' ? value : { error },
            },
          ];
    this.checkpoint('after_tool_call', { toolCallId, messages });
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
    parseWith(ToolOptionsSchema, options, `tool(${toolName})`);
    return async (args: A, callOptions?: { toolCallId?: string }) => {
      if (this.hooks) {
        const run = (a: unknown) => fn(a as A);
        return (await this.hooks.tool(this, toolName, options, args, run, callOptions?.toolCallId)) as R;
      }
      return this.recordCall(toolName, args, { ...options, toolCallId: callOptions?.toolCallId }, fn);
    };
  }

  /**
   * Runs `fn(args)` as one recorded tool call: begin, then finish with its
   * result, or with its thrown error, which is rethrown.
   */
  async recordCall<A, R>(toolName: string, args: A, options: ToolOptions, fn: (args: A) => Promise<R> | R): Promise<R> {
    const id = this.beginTool(toolName, args, options);
    let result: R;
    try {
      result = await fn(args);
    } catch (e) {
      this.finishTool(id, 'error', e);
      throw e;
    }
    this.finishTool(id, 'success', result);
    return result;
  }

  /**
   * Ends the run: records `agent_end` and sets the status (completed by
   * default; failed with the error; cancelled). Ending twice throws.
   */
  end(input: EndRunInput = {}): void {
    this.assertOpen('the end of the run');
    const data = parseWith(EndRunInputSchema, input, 'end');
    const status = data.status ?? (data.error !== undefined ? 'failed' : 'completed');
    this.checkpoint('agent_end', { messages: data.messages });
    this.write('the end of the run', () =>
      this.env.store.finishRun(this.runId, {
        status,
        error: data.error === undefined ? undefined : serializeError(data.error, 'error'),
        endedAt: this.env.now(),
      }),
    );
    this.ended = true;
    if (this.timer) clearInterval(this.timer);
    this.hooks?.end(this, status, data.error);
  }

  /** Stops the heartbeat without ending the run (the run will show as crashed if never ended). */
  dispose(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/** A thrown value as JSON: Errors keep name, message, code and stack's first line. */
export function serializeError(value: unknown, outcome: ToolOutcome | 'error'): unknown {
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message };
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) out.code = code;
    return out;
  }
  if (value === undefined)
    return outcome === 'cancelled'
      ? { name: 'Cancelled', message: 'cancelled' }
      : { name: 'Error', message: 'unknown error' };
  return value;
}

/**
 * Ledger records are facts about the past: the recorder freezes them, which
 * also lets the store recognise an unchanged record by identity instead of
 * comparing it field by field at every checkpoint.
 */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Agent-program mode: when OCDB_FORK names a fork request (and OCDB_STORE the
 * store), the recorder SDK's `startRun()` does not start a new run — it
 * attaches here to the fork run ForkService created, and the agent's own
 * model calls and tools are governed by the fork with the same engine the
 * built-in runner uses: captured model turns re-emitted after the agent's
 * prompt is compared with the recorded one (modelTurns.ts; divergence ->
 * Diverged, or the agent's real model when the config says continue_real;
 * the `recorded` model mode re-emits them whatever the prompt),
 * tools through the ToolGate (reuse, mock, forbid, refuse an unacknowledged
 * hazard, execute, confirm with the user first). The claim and the status
 * save are forkRequests.ts's. Writes through the RunWriter; depends on
 * model/, the store contract, the writer and this folder.
 */
import { randomUUID } from 'node:crypto';
import {
  parseWith,
  ForkConfigSchema,
  type Divergence,
  type Message,
  type ModelMode,
  type ReplayPolicy,
  type SideEffectLevel,
} from '../model';
import type { RunStore } from '../store';
import { RunWriter, type IdKind } from '../writer';
import { ToolCassette, type CassetteAnswer } from './cassette';
import { askConfirmation } from './confirm';
import { abortedByUser, diverged, noRecordedTurn, toRunError } from './forkErrors';
import { planFork } from './forkPlan';
import { claimForkRequest, forkRunOf, runnableRequest, saveForkStatus, settleForkRequest } from './forkRequests';
import { compareWithTurn, recordedResponse, recordedTurns, type RecordedTurn } from './modelTurns';
import { ToolGate } from './toolGate';

export interface ForkModeOptions {
  /** How long a manual_confirm waits for the user's answer; default $OCDB_CONFIRM_TIMEOUT_MS or 5 minutes. */
  confirmTimeoutMs?: number;
  /** How often the store is polled for the answer; default 200 ms. */
  confirmPollMs?: number;
}

export interface AttachOptions extends ForkModeOptions {
  now: () => number;
  newId: (kind: IdKind) => string;
  heartbeatMs: number;
}

/** A tool call of the agent, as its recorder wrapper declares it. */
export interface AgentToolCall {
  toolName: string;
  args: unknown;
  sideEffectLevel: SideEffectLevel;
  replayPolicy?: ReplayPolicy;
  toolCallId?: string;
  /** Record before/after_tool_call checkpoints (default true). */
  checkpoints?: boolean;
}

/** The fork request id agent-program mode should execute: `OCDB_FORK`, when set. */
export function forkRequestFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const id = env.OCDB_FORK?.trim();
  return id ? id : undefined;
}

function errorFrom(value: unknown): Error {
  const v = (value ?? {}) as { name?: unknown; message?: unknown };
  const error = new Error(typeof v.message === 'string' ? v.message : JSON.stringify(value));
  if (typeof v.name === 'string') error.name = v.name;
  return error;
}

export class AgentProgramFork {
  private nextTurn = 0;
  private real: boolean;
  private failure: Record<string, unknown> | undefined;
  /** `recorded` model mode: the recorded turns go on whatever the prompt; the first difference is kept here. */
  private readonly recordedOutputs: boolean;
  private firstDivergence: Divergence | undefined;

  private constructor(
    private readonly store: RunStore,
    private readonly forkRequestId: string,
    private readonly gate: ToolGate,
    private readonly turns: readonly RecordedTurn[],
    private readonly onDivergence: 'fail' | 'continue_real',
    modelMode: ModelMode,
    private readonly options: AttachOptions,
  ) {
    this.real = modelMode === 'real' || modelMode === 'override';
    this.recordedOutputs = modelMode === 'recorded';
  }

  /**
   * Claims the fork request `forkRequestId` for this process and continues its run: the writer the recorder
   * records into (starting from the fork's first checkpoint, whose state the agent reads) and the fork that
   * governs its model calls and tools.
   */
  static attach(
    store: RunStore,
    forkRequestId: string,
    options: AttachOptions,
  ): { fork: AgentProgramFork; writer: RunWriter } {
    const request = runnableRequest(store, forkRequestId);
    const config = parseWith(ForkConfigSchema, request.config, `fork request ${forkRequestId}`);
    const runId = forkRunOf(request);
    const plan = planFork(store, config);
    const count = store.getRun(runId).checkpointCount;
    const first = store.listCheckpoints(runId, { offset: count - 1, limit: 1 })[0];
    claimForkRequest(store, forkRequestId, options.now());
    // A fork point before the model call replays that step: the agent's first checkpoint starts it again.
    const rewinds = first?.boundary === 'before_prompt_build' || first?.boundary === 'before_model_call';
    const writer = RunWriter.resume(store, runId, {
      now: options.now,
      newId: options.newId,
      heartbeatMs: options.heartbeatMs,
      ...(rewinds && first ? { position: { stepIndex: first.stepIndex - 1 } } : {}),
    });
    const envTimeout = Number(process.env.OCDB_CONFIRM_TIMEOUT_MS);
    const fork = new AgentProgramFork(
      store,
      forkRequestId,
      new ToolGate({
        config: plan.config,
        acknowledged: request.acknowledgedTools,
        cassette: new ToolCassette(store, plan.lineage, writer.ledger),
        tools: plan.tools,
      }),
      recordedTurns(store, plan.sourceRunId, Math.max(0, plan.sourceCheckpointIndex)),
      config.onDivergence ?? 'fail',
      plan.modelMode,
      {
        ...options,
        confirmTimeoutMs:
          options.confirmTimeoutMs ?? (Number.isFinite(envTimeout) && envTimeout > 0 ? envTimeout : 300_000),
        confirmPollMs: options.confirmPollMs ?? 200,
      },
    );
    return { fork, writer };
  }

  /** Stops the fork: the first failure is the cause (later ones, e.g. the divergence a skipped tool causes, follow). */
  private fail(e: unknown): never {
    this.failure ??= toRunError(e);
    saveForkStatus(this.store, this.forkRequestId, 'failed', this.options.now(), this.failure);
    throw e;
  }

  /**
   * One model call of the agent: a recorded turn re-emitted when the agent's prompt matches the recording, else
   * Diverged (or, with continue_real, the agent's own model from here on); real / override: the agent's call.
   */
  async modelTurn(writer: RunWriter, call: (messages: readonly Message[]) => Promise<unknown>): Promise<unknown> {
    const state = writer.state;
    const messages = state?.messages ?? [];
    // The agent gets a frozen copy: the writer's own list must not change under it.
    const shown = () => Object.freeze(messages.slice());
    if (this.real) return call(shown());
    const turn = this.turns[this.nextTurn++];
    const at = this.store.listCheckpoints(writer.runId, { offset: writer.checkpointCount - 1, limit: 1 })[0];
    // The agent's prompt is its last checkpoint's (before_model_call): the store says how many messages it shares
    // with the recorded prompt (the same stored nodes), and only the rest are compared.
    const shared =
      turn && at && at.messageCount === messages.length
        ? this.store.sharedMessageCount(at.checkpointId, turn.before.checkpointId)
        : 0;
    const found = turn ? compareWithTurn({ systemPrompt: state?.systemPrompt, messages }, turn, shared) : undefined;
    const divergence = found && at ? { ...found, forkCheckpointId: at.checkpointId } : found;
    if (turn && divergence && this.recordedOutputs) {
      this.firstDivergence ??= divergence;
      return recordedResponse(turn);
    }
    if (!turn || divergence) {
      if (this.onDivergence === 'continue_real') {
        this.real = true;
        return call(shown());
      }
      this.fail(
        divergence
          ? diverged(divergence)
          : noRecordedTurn(this.nextTurn, this.turns.length, {
              stepIndex: writer.stepIndex,
              messageIndex: messages.length,
            }),
      );
    }
    return recordedResponse(turn);
  }

  /** Records a call answered without running the tool (reuse, mock); a recorded failure is rethrown to the agent. */
  private answered(writer: RunWriter, call: AgentToolCall, policy: ReplayPolicy, answer: CassetteAnswer): unknown {
    const checkpoint = call.checkpoints === false ? false : {};
    const { record } = writer.beginTool(
      {
        toolName: call.toolName,
        args: call.args,
        sideEffectLevel: call.sideEffectLevel,
        replayPolicy: policy,
        ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}),
      },
      { checkpoint },
    );
    writer.finishTool(record.toolCallId, answer.outcome, answer.value, { checkpoint });
    if (answer.outcome === 'success') return answer.value;
    throw errorFrom(answer.value);
  }

  /**
   * One tool call of the agent, through the gate. `execute(policy)` runs the agent's own tool function and records
   * it (the recorder's job); it is called only when the policy and the acknowledgements allow it.
   */
  async toolCall(
    writer: RunWriter,
    call: AgentToolCall,
    execute: (policy: ReplayPolicy) => Promise<unknown>,
  ): Promise<unknown> {
    const context = writer.state?.runtimeContext;
    const facts = this.gate.facts(call.toolName, call);
    let outcome;
    try {
      if (!context) throw new Error('the fork run has no runtime context');
      outcome = this.gate.decide(call.toolName, call.args, facts, context);
    } catch (e) {
      return this.fail(e);
    }
    switch (outcome.kind) {
      case 'answer':
        return this.answered(writer, call, outcome.policy, outcome.answer);
      case 'execute':
        return execute(outcome.policy);
      case 'confirm':
        return this.confirm(writer, call, facts.level, outcome.policy, execute);
      default: {
        const unreachable: never = outcome;
        throw new Error(`unknown gate outcome ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private async confirm(
    writer: RunWriter,
    call: AgentToolCall,
    level: SideEffectLevel,
    policy: ReplayPolicy,
    execute: (policy: ReplayPolicy) => Promise<unknown>,
  ): Promise<unknown> {
    let answered;
    try {
      answered = await askConfirmation(
        this.store,
        {
          confirmationId: randomUUID(),
          forkRequestId: this.forkRequestId,
          runId: writer.runId,
          ...(call.toolCallId ? { toolCallId: call.toolCallId } : {}),
          toolName: call.toolName,
          args: call.args,
          sideEffectLevel: level,
        },
        {
          now: this.options.now,
          timeoutMs: this.options.confirmTimeoutMs ?? 300_000,
          pollMs: this.options.confirmPollMs ?? 200,
        },
      );
    } catch (e) {
      return this.fail(e);
    }
    const context = writer.state?.runtimeContext;
    switch (answered.answer) {
      case 'allow_once':
        return execute(policy);
      case 'use_recorded': {
        let answer: CassetteAnswer;
        try {
          answer = this.gate.reuse(call.toolName, call.args);
        } catch (e) {
          return this.fail(e);
        }
        return this.answered(writer, call, 'reuse_result', answer);
      }
      case 'mock': {
        let answer: CassetteAnswer;
        try {
          if (answered.mockResult !== undefined) answer = { outcome: 'success', value: answered.mockResult };
          else if (context) answer = this.gate.mock(call.toolName, context);
          else throw new Error('the fork run has no runtime context');
        } catch (e) {
          return this.fail(e);
        }
        return this.answered(writer, call, 'mock_result', answer);
      }
      case 'abort':
      case undefined:
        return this.fail(abortedByUser(call.toolName));
      default: {
        const unreachable: never = answered.answer;
        throw new Error(`unknown answer ${String(unreachable)}`);
      }
    }
  }

  /** Where the prompt first differed from the recording while the recorded outputs went on (`recorded` mode). */
  get divergence(): Divergence | undefined {
    return this.firstDivergence;
  }

  /**
   * How the agent's run must end when the fork engine stopped it at a divergence — `diverged` with the stored
   * error, whatever status the agent ends with after the error reached it; undefined otherwise.
   */
  stoppedEnd(): { status: 'diverged'; error: Record<string, unknown> } | undefined {
    return this.failure?.code === 'diverged' ? { status: 'diverged', error: this.failure } : undefined;
  }

  /** The agent ended its run: the request completes, or ends diverged / failed with the fork's first failure (forkRequests.ts). */
  end(): void {
    settleForkRequest(this.store, this.forkRequestId, this.options.now(), this.failure);
  }
}

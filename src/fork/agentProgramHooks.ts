/**
 * The RunHooks of agent-program mode: how the agent's own model calls and
 * tools behave while it executes a fork. Model: captured turns re-emitted in
 * order after comparing the agent's prompt with the recorded one (divergence
 * -> Diverged, or the agent's real model when the config says
 * continue_real); real / override: the agent's own call. Tools: by effective
 * policy — reuse (cassette, the function is not called), mock, forbid
 * (throws, never called), re_execute (called), manual_confirm (asks the user
 * first); a hazard that is not acknowledged is refused at call time.
 * Depends on model/, the store contract and the recorder's fork helpers.
 */
import { randomUUID } from 'node:crypto';
import {
  OcdbError,
  SIDE_EFFECT_LEVELS,
  defaultReplayPolicy,
  type Checkpoint,
  type ForkConfig,
  type Message,
  type ReplayPolicy,
  type SideEffectLevel,
} from '../model';
import type { ForkRequestRecord, RunStore } from '../store';
import type { ModelResponse, ToolOptions } from '../recorder/inputs';
import { askConfirmation } from './confirm';
import { mockFor, type CassetteAnswer, type ToolCassette } from './cassette';
import { describeDivergence, findDivergence } from './divergence';
import { decideTool } from './toolDecision';
import type { RunHooks, RunRecorder } from '../recorder/runRecorder';

/** A recorded model turn after the fork point: the prompt checkpoint and the answer checkpoint. */
export interface RecordedTurn {
  before: Checkpoint;
  beforeIndex: number;
  after?: Checkpoint;
}

export interface ForkHooksInput {
  store: RunStore;
  request: ForkRequestRecord;
  config: ForkConfig;
  turns: RecordedTurn[];
  cassette: ToolCassette;
  /** Level and policy each tool was recorded with (most severe call). */
  recorded: ReadonlyMap<string, { level: SideEffectLevel; policy: ReplayPolicy }>;
  now: () => number;
  confirmTimeoutMs: number;
  confirmPollMs: number;
}

const SEVERITY = new Map<SideEffectLevel, number>(SIDE_EFFECT_LEVELS.map((l, i) => [l, i]));

function errorFrom(value: unknown): Error {
  const v = (value ?? {}) as { name?: unknown; message?: unknown };
  const error = new Error(typeof v.message === 'string' ? v.message : JSON.stringify(value));
  if (typeof v.name === 'string') error.name = v.name;
  return error;
}

export class ForkHooks implements RunHooks {
  private nextTurn = 0;
  private real: boolean;
  private failure: Record<string, unknown> | undefined;

  constructor(private readonly input: ForkHooksInput) {
    this.real = (input.config.modelOverride?.mode ?? 'captured') !== 'captured';
  }

  private fail(e: OcdbError): never {
    // The first failure is the cause; later ones (e.g. the divergence a skipped tool causes) follow from it.
    this.failure ??= {
      code: e.code.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase(),
      message: e.message,
      ...e.details,
    };
    this.saveRequest('failed', this.failure);
    throw e;
  }

  private saveRequest(status: ForkRequestRecord['status'], error?: unknown): void {
    const current = this.input.store.getForkRequest(this.input.request.forkRequestId);
    const next: ForkRequestRecord = { ...current, status, updatedAt: this.input.now() };
    if (error === undefined) delete next.error;
    else next.error = error;
    this.input.store.saveForkRequest(next);
  }

  async model(
    run: RunRecorder,
    call: (messages: readonly Message[]) => Promise<ModelResponse>,
  ): Promise<ModelResponse> {
    if (this.real) return call(run.messages);
    const turn = this.input.turns[this.nextTurn++];
    if (!turn) {
      if (this.input.config.onDivergence === 'continue_real') {
        this.real = true;
        return call(run.messages);
      }
      this.fail(
        new OcdbError(
          'Diverged',
          `The agent made model call ${this.nextTurn} but the recording has only ${this.input.turns.length} after the fork point.`,
          {
            divergence: { stepIndex: run.stepIndex, messageIndex: run.messages.length, field: 'messageCount' },
          },
        ),
      );
    }
    const divergence = findDivergence(
      { systemPrompt: run.systemPrompt, messages: run.messages },
      { systemPrompt: turn.before.systemPrompt, messages: turn.before.messages },
      {
        stepIndex: turn.before.stepIndex,
        sourceCheckpointIndex: turn.beforeIndex,
        sourceCheckpointId: turn.before.checkpointId,
      },
    );
    if (divergence) {
      if (this.input.config.onDivergence === 'continue_real') {
        this.real = true;
        return call(run.messages);
      }
      this.fail(
        new OcdbError('Diverged', `The fork diverged from the recording at ${describeDivergence(divergence)}.`, {
          divergence,
        }),
      );
    }
    const after = turn.after;
    const answer = after && after.messages.length > turn.before.messages.length ? after.messages.at(-1) : undefined;
    if (!after || !answer)
      throw new Error(
        `the recorded model call at step ${turn.before.stepIndex} failed (finishReason ${after?.finishReason ?? 'none'})`,
      );
    const response: ModelResponse = { message: answer };
    if (after.finishReason !== undefined) response.finishReason = after.finishReason;
    if (after.usage) response.usage = { ...after.usage, captured: true };
    if (after.model) response.model = after.model;
    return response;
  }

  async tool(
    run: RunRecorder,
    toolName: string,
    options: Omit<ToolOptions, 'toolCallId'>,
    args: unknown,
    fn: (args: unknown) => unknown,
    toolCallId: string | undefined,
  ): Promise<unknown> {
    const declared = options.sideEffectLevel;
    const recorded = this.input.recorded.get(toolName);
    const level =
      recorded && (SEVERITY.get(recorded.level) ?? 0) > (SEVERITY.get(declared) ?? 0) ? recorded.level : declared;
    const recordedPolicy = recorded?.policy ?? options.replayPolicy ?? defaultReplayPolicy(declared);
    const decision = decideTool(
      toolName,
      level,
      recordedPolicy,
      this.input.config,
      this.input.request.acknowledgedTools,
    );
    const record = (policy: ReplayPolicy, answer: CassetteAnswer): unknown => {
      const id = run.beginTool(toolName, args, { ...options, replayPolicy: policy, toolCallId });
      run.finishTool(id, answer.outcome, answer.value);
      if (answer.outcome === 'success') return answer.value;
      throw errorFrom(answer.value);
    };
    const execute = (policy: ReplayPolicy): Promise<unknown> =>
      run.recordCall(toolName, args, { ...options, replayPolicy: policy, toolCallId }, fn);
    const reuse = () => {
      try {
        return this.input.cassette.reuse(toolName, args);
      } catch (e) {
        return this.fail(e as OcdbError);
      }
    };
    const mock = () => {
      try {
        return mockFor(toolName, this.input.config, run.runtimeContext);
      } catch (e) {
        return this.fail(e as OcdbError);
      }
    };
    switch (decision.action) {
      case 'reuse':
        return record(decision.policy, reuse());
      case 'mock':
        return record(decision.policy, mock());
      case 'forbid':
        return this.fail(
          new OcdbError(
            'ForbiddenReplay',
            `${toolName} has the policy forbid_replay (${decision.source}): the fork stopped before calling it.`,
            {
              toolName,
              policy: decision.policy,
            },
          ),
        );
      case 'refuse':
        return this.fail(
          new OcdbError(
            'ForkRejected',
            `${toolName} would run again with ${level} effects and is not acknowledged: ${decision.hazard?.reason ?? ''}`,
            {
              hazards: decision.hazard ? [decision.hazard] : [],
              toolName,
            },
          ),
        );
      case 'execute':
        return execute(decision.policy);
      case 'confirm': {
        let answered;
        try {
          answered = await askConfirmation(
            this.input.store,
            {
              confirmationId: randomUUID(),
              forkRequestId: this.input.request.forkRequestId,
              runId: run.runId,
              ...(toolCallId ? { toolCallId } : {}),
              toolName,
              args,
              sideEffectLevel: level,
            },
            { now: this.input.now, timeoutMs: this.input.confirmTimeoutMs, pollMs: this.input.confirmPollMs },
          );
        } catch (e) {
          return this.fail(e as OcdbError);
        }
        switch (answered.answer) {
          case 'allow_once':
            return execute(decision.policy);
          case 'use_recorded':
            return record('reuse_result', reuse());
          case 'mock':
            return record(
              'mock_result',
              answered.mockResult !== undefined ? { outcome: 'success', value: answered.mockResult } : mock(),
            );
          case 'abort':
          case undefined:
            return this.fail(new OcdbError('Cancelled', `The user aborted the fork at ${toolName}.`, { toolName }));
          default: {
            const unreachable: never = answered.answer;
            throw new Error(`unknown answer ${String(unreachable)}`);
          }
        }
      }
      default: {
        const unreachable: never = decision.action;
        throw new Error(`unknown tool action ${String(unreachable)}`);
      }
    }
  }

  end(_run: RunRecorder, status: 'completed' | 'failed' | 'cancelled', error: unknown): void {
    if (status === 'completed') this.saveRequest('completed');
    else this.saveRequest('failed', this.failure ?? { code: status, error: error ?? null });
  }
}

/** The recorded model turns of `sourceRunId` from the fork point on (the turn starting at the fork point included). */
export function recordedTurns(store: RunStore, sourceRunId: string, fromIndex: number): RecordedTurn[] {
  const summaries = store.listCheckpoints(sourceRunId, { offset: fromIndex });
  const turns: RecordedTurn[] = [];
  let open: RecordedTurn | undefined;
  summaries.forEach((s) => {
    if (s.boundary === 'before_model_call') {
      open = { before: store.getCheckpoint(s.checkpointId), beforeIndex: s.index };
      turns.push(open);
    } else if (s.boundary === 'after_model_call' && open && !open.after) {
      open.after = store.getCheckpoint(s.checkpointId);
    }
  });
  return turns;
}

/**
 * ForkService: the one write path that creates forks, whether the request
 * comes from the debugger, the webview, the CLI or HTTP. `plan()` answers the
 * policies, the merged context and the hazard report; `create()` refuses while
 * a hazard is open (ForkRejected with details.hazards) and otherwise writes, in
 * one store transaction, the fork run (mode `fork`, parentRunId,
 * forkFromCheckpointId), its first checkpoint (the source checkpoint with the
 * patch and overrides applied) and a `pending` fork request. The source run is
 * never modified. Depends on model/ and the RunStore contract only; no UI.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { FORK_METADATA_KEY, OcdbError, openHazards, parseWith, type Checkpoint, type ForkConfig } from '../model';
import type { ForkRequestRecord, ForkRequestStatus, RunStore } from '../store';
import { RunWriter, stateOf, timeOrderedId, type RunState } from '../writer';
import { loadSourceCheckpoint, planFork, type ForkPlan } from './forkPlan';
import { saveForkStatus } from './forkRequests';

export type { ForkPlan, ToolPlanEntry } from './forkPlan';

export interface ForkServiceOptions {
  /** Clock (ms since epoch); default Date.now. */
  now?: () => number;
  /** Id generator; default random UUIDs. */
  newId?: (kind: 'run' | 'checkpoint' | 'forkRequest') => string;
}

export interface CreatedFork {
  runId: string;
  forkRequestId: string;
  plan: ForkPlan;
}

const AcknowledgedSchema = z.array(z.string().min(1));

/** Metadata key under which a fork run records where it came from (defined with the fork's shapes). */
export { FORK_METADATA_KEY };

export class ForkService {
  private readonly now: () => number;
  private readonly newId: (kind: 'run' | 'checkpoint' | 'forkRequest') => string;
  private readonly customIds: boolean;

  constructor(
    private readonly store: RunStore,
    options: ForkServiceOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? timeOrderedId;
    this.customIds = options.newId !== undefined;
  }

  /** A run id people can read in the tree and the CLI: `<source>-fork-1a2b3c4d` (or the injected generator's). */
  private derivedRunId(sourceRunId: string, kind: 'fork' | 'replay'): string {
    return this.customIds ? this.newId('run') : `${sourceRunId}-${kind}-${randomUUID().slice(0, 8)}`;
  }

  /** The effective policy of every tool, the merged context and the hazard report. Writes nothing. */
  plan(config: ForkConfig): ForkPlan {
    return planFork(this.store, config);
  }

  /**
   * Creates the fork run and a `pending` fork request, or throws ForkRejected
   * listing the hazards `acknowledgedTools` leaves open ('*' never unlocks an
   * external_irreversible tool: only its own name in toolPolicyMap plus an
   * acknowledgement does).
   */
  create(config: ForkConfig, acknowledgedTools: readonly string[] = []): CreatedFork {
    return this.createRun(config, acknowledgedTools, 'fork');
  }

  /**
   * Creates a replay of `sourceRunId` (a run of mode `replay`, parentRunId the source) from `fromCheckpointId`
   * (default: its first checkpoint). Every tool is answered from the recording ('*': reuse_result), so a replay
   * never runs a tool; `captured` re-emits the recorded model turns, otherwise the real model answers.
   */
  createReplay(sourceRunId: string, options: { fromCheckpointId?: string; captured?: boolean } = {}): CreatedFork {
    const from = options.fromCheckpointId ?? this.store.listCheckpoints(sourceRunId, { limit: 1 })[0]?.checkpointId;
    if (!from) {
      throw new OcdbError('CheckpointNotFound', `Run ${sourceRunId} has no checkpoints to replay.`, {
        runId: sourceRunId,
      });
    }
    return this.createRun(
      {
        sourceRunId,
        sourceCheckpointId: from,
        modelOverride: { mode: options.captured === false ? 'real' : 'captured' },
        toolPolicyMap: { '*': 'reuse_result' },
      },
      [],
      'replay',
    );
  }

  private createRun(config: ForkConfig, acknowledgedTools: readonly string[], mode: 'fork' | 'replay'): CreatedFork {
    const acknowledged = parseWith(AcknowledgedSchema, acknowledgedTools, 'acknowledgedTools');
    const plan = this.plan(config);
    const open = openHazards(plan.hazards, acknowledged);
    if (open.length > 0) {
      const names = open.map((h) => `${h.toolName} (${h.sideEffectLevel}, ${h.policy} from ${h.source})`).join(', ');
      throw new OcdbError(
        'ForkRejected',
        `Fork of ${plan.sourceRunId} rejected: ${open.length} tool${open.length > 1 ? 's' : ''} would run again with side effects: ${names}. ${open
          .map((h) => h.reason)
          .join('; ')}.`,
        { hazards: open, sourceRunId: plan.sourceRunId, sourceCheckpointId: plan.sourceCheckpointId },
      );
    }
    const forkRequestId = this.newId('forkRequest');
    const runId = this.derivedRunId(plan.sourceRunId, mode);
    const at = this.now();
    this.store.transaction(() => {
      const source = this.store.getRun(plan.sourceRunId);
      const { checkpoint } = loadSourceCheckpoint(this.store, plan.config);
      const writer = RunWriter.create(
        this.store,
        {
          runId,
          sessionId: source.sessionId,
          agentId: source.agentId,
          mode,
          parentRunId: plan.sourceRunId,
          forkFromCheckpointId: plan.sourceCheckpointId,
          startedAt: at,
          metadata: {
            ...source.metadata,
            [FORK_METADATA_KEY]: {
              kind: mode,
              forkRequestId,
              sourceRunId: plan.sourceRunId,
              sourceCheckpointId: plan.sourceCheckpointId,
              modelMode: plan.modelMode,
              changedPaths: plan.changedPaths,
              acknowledgedTools: acknowledged,
            },
          },
          state: forkStartOf(checkpoint, plan),
          // The fork starts where its source stood: the same step, and the source's ledger at that point.
          start: { stepIndex: checkpoint.stepIndex, ledger: checkpoint.toolLedgerSnapshot },
          // Those are the source checkpoint's lists: the fork's first checkpoint reuses their nodes.
          listsFrom: checkpoint.checkpointId,
        },
        { now: () => at },
      );
      writer.checkpoint(checkpoint.boundary, {
        checkpointId: this.newId('checkpoint'),
        stepIndex: checkpoint.stepIndex,
        ...(checkpoint.toolCallId !== undefined ? { toolCallId: checkpoint.toolCallId } : {}),
        ...(checkpoint.finishReason !== undefined ? { finishReason: checkpoint.finishReason } : {}),
        // Tokens of the source turn were spent by the source run, not by the fork.
        ...(checkpoint.usage ? { usage: { ...checkpoint.usage, captured: true } } : {}),
      });
      this.store.saveForkRequest({
        forkRequestId,
        sourceRunId: plan.sourceRunId,
        sourceCheckpointId: plan.sourceCheckpointId,
        forkRunId: runId,
        config: plan.config,
        acknowledgedTools: acknowledged,
        status: 'pending',
        createdAt: at,
        updatedAt: at,
      });
      this.store.setRunOwner(runId, null);
    });
    return { runId, forkRequestId, plan };
  }

  /** The fork request record (ForkNotFound when unknown). */
  getRequest(forkRequestId: string): ForkRequestRecord {
    return this.store.getForkRequest(forkRequestId);
  }

  /** Moves a fork request to `status` (pending -> running -> waiting_for_agent / completed / failed), with the error when failed. */
  setStatus(forkRequestId: string, status: ForkRequestStatus, error?: unknown): ForkRequestRecord {
    return saveForkStatus(this.store, forkRequestId, status, this.now(), error);
  }
}

/** The state of a fork's first checkpoint: the source's, with the patched context and the overrides. */
function forkStartOf(source: Checkpoint, plan: ForkPlan): RunState {
  // `source` is a view read for this fork alone (nothing else holds its values); the writer seals its own copies.
  const state: RunState = { ...stateOf(source), runtimeContext: plan.runtimeContext };
  if (plan.model) state.model = plan.model;
  if (plan.promptVersion !== undefined) state.promptVersion = plan.promptVersion;
  return state;
}

/**
 * A run as one JSON document (DebugRunExport): exported from its rows, and loaded back as new rows in one
 * transaction, checked first (loadValidation.ts: its checkpoint ids free, its parent there, its edits on its own
 * checkpoints). runExport.ts streams an export in chunks on top of this.
 */
import {
  ArtifactContentsSchema,
  assertJsonInput,
  DebugRunSchema,
  formatPath,
  OcdbError,
  parseWith,
  toolOutcomeOf,
  type Checkpoint,
  type DebugRun,
} from '../model';
import type { ArtifactTable } from './artifactTable';
import type { CheckpointTable } from './checkpointTable';
import type { ContentStore } from './contentStore';
import type { LiveTable } from './liveTable';
import { CheckpointShellSchema } from './checkpointShell';
import { checkCopiedHashes, checkCopiedHead, checkCopiedIds, checkLoadedRun } from './loadValidation';
import { checkpointIdOf, compact, json, toJson } from './rowCodec';
import type { RunTable } from './runTable';
import type { CopyOptions, DebugRunExport, LoadRunOptions, RunSummary } from './runStore';
import type { StoreTransactions } from './storeTransactions';
import type { ToolCallTable } from './toolCallTable';

export interface RunTransferTables {
  runs: RunTable;
  checkpoints: CheckpointTable;
  toolCalls: ToolCallTable;
  live: LiveTable;
  artifacts: ArtifactTable;
}

export class RunTransfer {
  constructor(
    private readonly path: string,
    private readonly tx: StoreTransactions,
    private readonly content: ContentStore,
    private readonly t: RunTransferTables,
  ) {}

  exportRun(runId: string): DebugRunExport {
    const { toolLedger, artifactRefs, metadata, liveEdits, artifactContents, ...first } = this.exportRunHead(runId);
    const checkpoints = this.t.checkpoints.allOf(runId);
    // the DebugRun key order, then the contents of its artifacts (only when it has some)
    return compact({ ...first, checkpoints, toolLedger, artifactRefs, metadata, liveEdits, artifactContents });
  }

  exportRunHead(runId: string): Omit<DebugRunExport, 'checkpoints'> {
    const row = this.t.runs.requireRow(runId);
    const summary = this.t.runs.toSummary(row);
    const liveEdits = this.t.live.edits(runId);
    const contents = this.t.artifacts.exportContents(runId);
    return compact({
      runId: summary.runId,
      sessionId: summary.sessionId,
      agentId: summary.agentId,
      parentRunId: summary.parentRunId,
      forkFromCheckpointId: summary.forkFromCheckpointId,
      status: summary.status,
      mode: summary.mode,
      startedAt: summary.startedAt,
      endedAt: summary.endedAt,
      error: summary.error,
      toolLedger: this.t.toolCalls.list(runId),
      artifactRefs: parseWith(DebugRunSchema.shape.artifactRefs, json(row.artifact_refs_json), `store run ${runId}`, [
        'artifactRefs',
      ]),
      metadata: summary.metadata,
      liveEdits: liveEdits.length > 0 ? liveEdits : undefined,
      artifactContents: Object.keys(contents).length > 0 ? contents : undefined,
    });
  }

  loadRun(input: unknown, options: LoadRunOptions = {}): RunSummary {
    assertJsonInput(input, options.where);
    const run = parseWith(DebugRunSchema, input, options.where);
    const rawContents = (input as { artifactContents?: unknown }).artifactContents;
    const contents =
      rawContents === undefined
        ? {}
        : parseWith(ArtifactContentsSchema, rawContents, options.where, ['artifactContents']);
    run.checkpoints.forEach((cp, i) => {
      if (cp.runId !== run.runId) {
        throw new OcdbError(
          'InvalidInput',
          `${options.where ? `${options.where}: ` : ''}${formatPath(['checkpoints', i, 'runId'])}: checkpoint belongs to run ${cp.runId}, not ${run.runId}`,
          { path: formatPath(['checkpoints', i, 'runId']) },
        );
      }
    });
    const { runs, checkpoints, artifacts } = this.t;
    const summary = this.tx.writeRun(run.runId, () => {
      if (runs.has(run.runId)) {
        if (!options.replace) {
          throw new OcdbError(
            'RunAlreadyExists',
            `Run ${run.runId} is already in ${this.path}; delete it first or load with --replace.`,
            { runId: run.runId },
          );
        }
        runs.deleteRow(run.runId);
      }
      // after a replaced run is gone: its own checkpoint ids are free again (loadValidation.ts)
      checkLoadedRun(
        run,
        {
          checkpointOwner: (id) => checkpoints.runOf(id),
          parentOf: (id) => runs.parentOf(id),
          ...(options.batch ? { batch: options.batch } : {}),
        },
        options.where,
      );
      this.insertRun(run, run.endedAt ?? run.checkpoints.at(-1)?.createdAt ?? run.startedAt);
      this.insertToolCalls(run);
      for (const cp of run.checkpoints) checkpoints.insert(cp);
      this.insertLiveEdits(run, new Set(run.checkpoints.map((cp) => cp.checkpointId)), options.where);
      artifacts.load(contents, options.where ?? 'load');
      this.tx.touchRun(run.runId);
      return runs.get(run.runId);
    });
    for (const kind of ['m', 'l', 'c', 'p']) this.content.forgetMemo(`${kind}:${run.runId}`);
    return summary;
  }

  copyRunIn(
    input: Omit<DebugRunExport, 'checkpoints'>,
    batches: Iterable<readonly Checkpoint[]>,
    options: CopyOptions = {},
  ): RunSummary {
    const where = options.where;
    assertJsonInput(input, where);
    const run = parseWith(RunHeadSchema, input, where);
    const contents =
      input.artifactContents === undefined
        ? {}
        : parseWith(ArtifactContentsSchema, input.artifactContents, where, ['artifactContents']);
    const { runs, checkpoints, artifacts } = this.t;
    const summary = this.tx.writeRun(run.runId, () => {
      if (runs.has(run.runId)) {
        throw new OcdbError('RunAlreadyExists', `Run ${run.runId} is already in ${this.path}.`, { runId: run.runId });
      }
      const lookups = {
        checkpointOwner: (id: string) => checkpoints.runOf(id),
        checkpointOwners: (ids: readonly string[]) => this.ownersOf(ids),
        parentOf: (id: string) => runs.parentOf(id),
      };
      checkCopiedHead(run, lookups, where);
      this.insertRun(run, run.endedAt ?? run.startedAt);
      this.insertToolCalls(run);
      const ids = new Map<string, number>();
      const checked = new WeakSet<object>();
      let offset = 0;
      // blobs written without a look-up first (a copy's are nearly all new): no round trip per blob over the network
      this.content.bulkWrites(() => {
        for (const batch of batches) {
          const shells = batch.map((cp, i) => {
            const at = ['checkpoints', offset + i];
            const shell = parseWith(CheckpointShellSchema, cp, where, at);
            if (shell.runId !== run.runId) {
              throw new OcdbError(
                'InvalidInput',
                `${where ? `${where}: ` : ''}${formatPath([...at, 'runId'])}: checkpoint belongs to run ${shell.runId}, not ${run.runId}`,
                { path: formatPath([...at, 'runId']) },
              );
            }
            return shell;
          });
          checkCopiedIds(run.runId, shells, offset, ids, lookups, where);
          for (const cp of shells) {
            // the run's counts as this transaction keeps them (no read a checkpoint); its ids checked above
            checkpoints.insert(cp, true, undefined, runs.requireCounts(run.runId, false), true);
          }
          // the snapshots' records are validated now (written, or the same objects as a checkpoint's before)
          checkCopiedHashes(shells as unknown as readonly Checkpoint[], offset, checked, where);
          offset += batch.length;
        }
      });
      this.insertLiveEdits(run, new Set(ids.keys()), where);
      artifacts.load(contents, where ?? 'load');
      this.tx.touchRun(run.runId);
      return runs.get(run.runId);
    });
    // what the copy's lists end with is kept only for a run continued here next (a copy of many runs would keep
    // every run's last lists)
    if (!options.continues) for (const kind of ['m', 'l', 'c', 'p']) this.content.forgetMemo(`${kind}:${run.runId}`);
    return summary;
  }

  /** The runs holding any of `ids`, in one query a hundred ids (a batch's look-up, not one a checkpoint). */
  ownersOf(ids: readonly string[]): Map<string, string | undefined> {
    const owners = new Map<string, string | undefined>();
    const GROUP = 100;
    const stmt = this.tx.sql(
      `SELECT c.checkpoint_id, r.run_id FROM checkpoints c JOIN runs r ON r.run_key = c.run_key
        WHERE c.checkpoint_id IN (${Array.from({ length: GROUP }, () => '?').join(', ')})`,
    );
    for (let i = 0; i < ids.length; i += GROUP) {
      const group = ids.slice(i, i + GROUP);
      // a short group repeats its last id: one statement for every group
      const keys = Array.from({ length: GROUP }, (_, j) =>
        this.t.checkpoints.key(group[Math.min(j, group.length - 1)] as string),
      );
      for (const row of stmt.all(...keys)) owners.set(checkpointIdOf(row.checkpoint_id), String(row.run_id));
    }
    return owners;
  }

  private insertRun(run: Omit<DebugRun, 'checkpoints'>, lastAt: number): void {
    this.tx
      .sql(
        `INSERT INTO runs (run_id, session_id, agent_id, parent_run_id, fork_from_checkpoint_id, status, mode,
           started_at, ended_at, error_json, metadata_json, artifact_refs_json, owner_pid, owner_host, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)`,
        'writes',
      )
      .run(
        run.runId,
        run.sessionId,
        run.agentId,
        run.parentRunId ?? null,
        run.forkFromCheckpointId ?? null,
        run.status,
        run.mode,
        run.startedAt,
        run.endedAt ?? null,
        toJson(run.error),
        JSON.stringify(run.metadata),
        JSON.stringify(run.artifactRefs),
        lastAt,
      );
  }

  private insertToolCalls(run: Pick<DebugRun, 'runId' | 'toolLedger'>): void {
    for (const record of run.toolLedger) {
      const state = record.endedAt === undefined && record.error === undefined ? 'running' : toolOutcomeOf(record);
      this.t.toolCalls.insert(run.runId, record, state);
    }
  }

  /** A run's live edits, each on one of its checkpoints (`ids`). */
  private insertLiveEdits(run: Pick<DebugRun, 'runId' | 'liveEdits'>, ids: ReadonlySet<string>, where?: string): void {
    (run.liveEdits ?? []).forEach((edit, i) => {
      if (!ids.has(edit.checkpointId)) {
        const at = formatPath(['liveEdits', i, 'checkpointId']);
        throw new OcdbError(
          'InvalidInput',
          `${where ? `${where}: ` : ''}${at}: the edit names checkpoint ${edit.checkpointId}, which is not in run ${run.runId}`,
          { path: at },
        );
      }
      this.t.live.insertEdit(run.runId, edit);
    });
  }
}

/** A DebugRun without its checkpoints (what exportRunHead gives): each copied checkpoint is parsed as it comes. */
const RunHeadSchema = DebugRunSchema.omit({ checkpoints: true });

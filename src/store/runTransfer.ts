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
} from '../model';
import type { ArtifactTable } from './artifactTable';
import type { CheckpointTable } from './checkpointTable';
import type { ContentStore } from './contentStore';
import type { LiveTable } from './liveTable';
import { checkLoadedRun } from './loadValidation';
import { compact, json, toJson } from './rowCodec';
import type { RunTable } from './runTable';
import type { DebugRunExport, LoadRunOptions, RunSummary } from './runStore';
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
    const { runs, checkpoints, toolCalls, live, artifacts } = this.t;
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
      const lastAt = run.endedAt ?? run.checkpoints.at(-1)?.createdAt ?? run.startedAt;
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
      for (const record of run.toolLedger) {
        const state = record.endedAt === undefined && record.error === undefined ? 'running' : toolOutcomeOf(record);
        toolCalls.insert(run.runId, record, state);
      }
      for (const cp of run.checkpoints) checkpoints.insert(cp);
      const ids = new Set(run.checkpoints.map((cp) => cp.checkpointId));
      (run.liveEdits ?? []).forEach((edit, i) => {
        if (!ids.has(edit.checkpointId)) {
          const at = formatPath(['liveEdits', i, 'checkpointId']);
          throw new OcdbError(
            'InvalidInput',
            `${options.where ? `${options.where}: ` : ''}${at}: the edit names checkpoint ${edit.checkpointId}, which is not in run ${run.runId}`,
            { path: at },
          );
        }
        live.insertEdit(run.runId, edit);
      });
      artifacts.load(contents, options.where ?? 'load');
      this.tx.touchRun(run.runId);
      return runs.get(run.runId);
    });
    for (const kind of ['m', 'l', 'c', 'p']) this.content.forgetMemo(`${kind}:${run.runId}`);
    return summary;
  }
}

/**
 * An imported run's files as its import rebuilt them from the run's own edit tools (model/fileStates.ts), kept in
 * the file_versions table beside the versions a recorder read (fileVersionTable.ts), told apart by `kind`:
 * 0 recorded (run.trackFiles), 1 a rebuilt file's state at a checkpoint (a snapshot: its text and its text before
 * the run's first change as blobs, stored once by content; its marks in `detail`), 2 a shell step's mark, 3 the
 * run's marker (`checkpoint_index`: the checkpoints before it are final; `detail`: the run's folder). A run without
 * a marker has nothing stored: its files are rebuilt when asked (a store imported before this was kept).
 * SQL for SqlRunStore only.
 */
import { z } from 'zod';
import {
  parseWith,
  refOf,
  type FileEventRef,
  type NewFileHistory,
  type StoredFileHistory,
  type StoredFileSnapshot,
} from '../model';
import { hashKey, hashOf } from './blobCodec';
import { insertRows } from './rowBatches';
import { json } from './rowCodec';
import type { StoreContext } from './storeContext';

const KIND = { snapshot: 1, shell: 2, marker: 3 } as const;

/** A change's place as a row holds it: `[stepIndex, toolCallId, toolName]`. */
const RefSchema = z.tuple([z.number().int(), z.string(), z.string()]);
const SnapshotDetail = z.object({
  known: z.boolean(),
  deleted: z.boolean(),
  counted: z.tuple([z.number().int(), z.number().int()]),
  changes: z.array(RefSchema),
  mismatches: z.array(RefSchema),
});
const ShellDetail = z.object({ at: RefSchema });
const MarkerDetail = z.object({ cwd: z.string().optional() });

const refRow = (r: FileEventRef): [number, string, string] => [r.stepIndex, r.toolCallId, r.toolName];
const refOfRow = ([stepIndex, toolCallId, toolName]: [number, string, string]): FileEventRef => ({
  stepIndex,
  toolCallId,
  toolName,
});

export class RebuiltFileTable {
  constructor(private readonly ctx: StoreContext) {}

  /**
   * Replaces the run's rebuilt rows from checkpoint `from` on with `files` (the earlier ones kept) and sets its
   * marker; `undefined`: removes every rebuilt row and the marker (its files are rebuilt when asked).
   */
  put(runId: string, files: NewFileHistory | undefined): void {
    this.ctx.transaction(() => {
      const runKey = Number(this.ctx.requireRunRow(runId).run_key);
      this.ctx
        .sql('DELETE FROM file_versions WHERE run_key = ? AND kind > 0 AND (kind = ? OR checkpoint_index >= ?)')
        .run(runKey, KIND.marker, files ? files.from : -1); // -1: the first index a row has (inherited)
      if (files) {
        const seq = Number(
          this.ctx.sql('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM file_versions WHERE run_key = ?').get(runKey)?.n ??
            0,
        );
        // every row and text first, then written in a few statements (rowBatches.ts): an import's thousand file
        // versions are a handful of round trips on PostgreSQL, not a statement and a look-up each
        const rows: {
          index: number;
          kind: number;
          path: string;
          detail: unknown;
          content?: string;
          original?: string;
        }[] = [
          {
            index: files.through,
            kind: KIND.marker,
            path: '',
            detail: files.cwd !== undefined ? { cwd: files.cwd } : {},
          },
        ];
        for (const s of files.snapshots)
          rows.push({
            index: s.checkpointIndex,
            kind: KIND.snapshot,
            path: s.path,
            detail: {
              known: s.known,
              deleted: s.deleted,
              counted: [s.counted.added, s.counted.removed],
              changes: s.changes.map((a) => refRow(refOf(a))),
              mismatches: s.mismatches.map((a) => refRow(refOf(a))),
            },
            content: s.content,
            original: s.original,
          });
        for (const m of files.shellMarks)
          rows.push({ index: m.checkpointIndex, kind: KIND.shell, path: '', detail: { at: refRow(refOf(m)) } });
        const texts: string[] = [];
        for (const r of rows) {
          if (r.content !== undefined) texts.push(r.content);
          if (r.original !== undefined) texts.push(r.original);
        }
        const hashes = this.ctx.content.putTexts(texts);
        let t = 0;
        const hashOfText = (text: string | undefined) => (text === undefined ? null : hashKey(hashes[t++] as string));
        insertRows(
          (text) => this.ctx.sql(text),
          'INSERT INTO file_versions (run_key, seq, checkpoint_index, path, content_hash, kind, original_hash, detail)',
          8,
          rows.map((r, i) => [
            runKey,
            seq + i,
            r.index,
            r.path,
            hashOfText(r.content),
            r.kind,
            hashOfText(r.original),
            JSON.stringify(r.detail),
          ]),
        );
      }
      this.ctx.touchRun(runId);
    });
  }

  /** The run's rebuilt files in checkpoint order; undefined when none were stored (no marker). */
  get(runId: string): StoredFileHistory | undefined {
    const rows = this.ctx
      .sql(
        `SELECT checkpoint_index, path, content_hash, kind, original_hash, detail FROM file_versions
          WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND kind > 0 ORDER BY checkpoint_index, seq`,
      )
      .all(runId);
    const where = `store run ${runId} rebuilt files`;
    const marker = rows.find((r) => Number(r.kind) === KIND.marker);
    if (!marker) return undefined;
    const { cwd } = parseWith(MarkerDetail, json(marker.detail), where, ['marker']);
    const out: StoredFileHistory = {
      through: Number(marker.checkpoint_index),
      ...(cwd !== undefined ? { cwd } : {}),
      snapshots: [],
      shellMarks: [],
    };
    for (const r of rows) {
      const checkpointIndex = Number(r.checkpoint_index);
      if (Number(r.kind) === KIND.shell) {
        const { at } = parseWith(ShellDetail, json(r.detail), where, ['shellMarks', checkpointIndex]);
        out.shellMarks.push({ checkpointIndex, at: refOfRow(at) });
      } else if (Number(r.kind) === KIND.snapshot) {
        const d = parseWith(SnapshotDetail, json(r.detail), where, ['snapshots', checkpointIndex]);
        const s: StoredFileSnapshot = {
          checkpointIndex,
          path: String(r.path),
          known: d.known,
          deleted: d.deleted,
          counted: { added: d.counted[0], removed: d.counted[1] },
          changes: d.changes.map(refOfRow),
          mismatches: d.mismatches.map(refOfRow),
        };
        if (r.content_hash !== null && r.content_hash !== undefined) s.contentHash = hashOf(r.content_hash);
        if (r.original_hash !== null && r.original_hash !== undefined) s.originalHash = hashOf(r.original_hash);
        out.snapshots.push(s);
      }
    }
    return out;
  }
}

/**
 * The file_versions table: the files a run changed, version by version. A row names the checkpoint (its index in
 * the run) a version was taken at and the file's path; its text is a blob (ContentStore.putText: a text is stored
 * once by its content, whichever version, file or run holds it), NULL for a file the run deleted. A version equal
 * to the file's previous one in the run is not written again. Rows go with their run (cascade); a blob only they
 * hold is kept by the store's garbage collection (runTable.ts). These are the versions a recorder read (`kind` 0);
 * the rows an import rebuilt are rebuiltFileTable.ts's. SQL for SqlRunStore only.
 */
import { OcdbError } from '../model';
import { hashKey, hashOf } from './blobCodec';
import type { FileVersion, NewFileVersion } from './runStore';
import type { StoreContext } from './storeContext';

/** Longest text a version may hold (the store's large-value bound for a file's text). */
export const MAX_FILE_VERSION_CHARS = 8 * 1024 * 1024;

export class FileVersionTable {
  constructor(private readonly ctx: StoreContext) {}

  /** Adds the versions (in order) the run has not already got as the newest of their path; the rows written. */
  add(runId: string, versions: readonly NewFileVersion[]): FileVersion[] {
    return this.ctx.transaction(() => {
      const row = this.ctx.requireRunRow(runId);
      const runKey = Number(row.run_key);
      const newest = new Map<string, string | null>();
      const newestOf = (path: string): string | null | undefined => {
        if (!newest.has(path)) {
          const last = this.ctx
            .sql(
              'SELECT content_hash FROM file_versions WHERE run_key = ? AND path = ? AND kind = 0 ORDER BY seq DESC LIMIT 1',
            )
            .get(runKey, path);
          if (last) newest.set(path, last.content_hash === null ? null : hashOf(last.content_hash));
        }
        return newest.get(path);
      };
      let seq = Number(
        this.ctx.sql('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM file_versions WHERE run_key = ?').get(runKey)?.n ?? 0,
      );
      const out: FileVersion[] = [];
      versions.forEach((v, i) => {
        if (v.content !== null && v.content.length > MAX_FILE_VERSION_CHARS)
          throw new OcdbError(
            'InvalidInput',
            `file version ${i} (${v.path}) has ${v.content.length} characters; at most ${MAX_FILE_VERSION_CHARS} are kept`,
            { path: `versions[${i}].content` },
          );
        const hash = v.content === null ? null : this.ctx.content.putText(v.content);
        if (newestOf(v.path) === hash) return;
        newest.set(v.path, hash);
        this.ctx
          .sql('INSERT INTO file_versions (run_key, seq, checkpoint_index, path, content_hash) VALUES (?, ?, ?, ?, ?)')
          .run(runKey, seq++, v.checkpointIndex, v.path, hash === null ? null : hashKey(hash));
        out.push({ checkpointIndex: v.checkpointIndex, path: v.path, ...(hash !== null ? { contentHash: hash } : {}) });
      });
      if (out.length > 0) this.ctx.touchRun(runId);
      return out;
    });
  }

  /** The run's file versions, oldest first (texts not read: `text(hash)`). */
  list(runId: string): FileVersion[] {
    const rows = this.ctx
      .sql(
        `SELECT checkpoint_index, path, content_hash FROM file_versions
          WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND kind = 0 ORDER BY seq`,
      )
      .all(runId);
    return rows.map((r) => ({
      checkpointIndex: Number(r.checkpoint_index),
      path: String(r.path),
      ...(r.content_hash !== null && r.content_hash !== undefined ? { contentHash: hashOf(r.content_hash) } : {}),
    }));
  }

  /** The text of a version by its content hash. */
  text(contentHash: string): string {
    return this.ctx.content.getText(contentHash);
  }
}

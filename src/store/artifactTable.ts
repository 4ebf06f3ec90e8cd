/**
 * Artifacts in the store: their content as content-addressed blobs (ContentStore.putBytes: identical content is
 * stored once, whichever run wrote it), their refs in the run's `artifact_refs_json` (every version the run
 * recorded, written with the content in one transaction) and in each checkpoint's (the artifacts current there,
 * written by the checkpoint table). Reading a run's artifacts, one content, and the contents an export carries.
 */
import { z } from 'zod';
import {
  ArtifactRefSchema,
  MAX_ARTIFACT_BYTES,
  OcdbError,
  artifactContentHash,
  artifactStoragePath,
  artifactTooLarge,
  decodeContent,
  distinctArtifacts,
  encodeContent,
  parseWith,
  type ArtifactContent,
  type ArtifactRef,
} from '../model';
import { json } from './rowCodec';
import type { NewArtifact } from './runStore';
import type { StoreContext } from './storeContext';

const RefsSchema = z.array(ArtifactRefSchema);

export class ArtifactTable {
  constructor(private readonly ctx: StoreContext) {}

  /** Stores `content` and adds its ref to the run's artifacts (one transaction); the ref carries hash and path. */
  add(runId: string, input: NewArtifact, content: Uint8Array): ArtifactRef {
    if (content.byteLength > MAX_ARTIFACT_BYTES) throw artifactTooLarge(content.byteLength, 'content', 'artifact');
    return this.ctx.transaction(() => {
      const row = this.ctx.requireRunning(runId);
      const contentHash = this.ctx.content.putBytes(content);
      const ref = parseWith(
        ArtifactRefSchema,
        { ...input, contentHash, storagePath: artifactStoragePath(contentHash) },
        `artifact ${input.artifactId}`,
      );
      const refs = parseWith(RefsSchema, json(row.artifact_refs_json) ?? [], `store run ${runId}`, ['artifactRefs']);
      refs.push(ref);
      this.ctx
        .sql('UPDATE runs SET artifact_refs_json = ? WHERE run_id = ?', 'writes')
        .run(JSON.stringify(refs), runId);
      this.ctx.touchRun(runId);
      return ref;
    });
  }

  /** The content stored under `contentHash`; ArtifactNotFound when this store does not hold it. */
  content(contentHash: string): Buffer {
    const bytes = this.ctx.content.getBytes(contentHash);
    if (!bytes) {
      throw new OcdbError(
        'ArtifactNotFound',
        `The content ${contentHash} is not in ${this.ctx.path} (a run loaded without its artifact contents, or a ref written by another tool).`,
        { contentHash },
      );
    }
    return bytes;
  }

  /** Every artifact version the run holds: recorded by it, or carried by its checkpoints (a fork's inherited ones). */
  list(runId: string): ArtifactRef[] {
    const row = this.ctx.requireRunRow(runId);
    const where = `store run ${runId}`;
    const lists: ArtifactRef[][] = [parseWith(RefsSchema, json(row.artifact_refs_json) ?? [], where, ['artifactRefs'])];
    const rows = this.ctx
      .sql(
        `SELECT h.artifact_refs_json AS refs FROM checkpoints c JOIN checkpoint_heads h ON h.head_id = c.head_id
          WHERE c.run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND h.artifact_refs_json IS NOT NULL GROUP BY h.artifact_refs_json ORDER BY MIN(c.seq)`,
      )
      .all(runId);
    for (const r of rows) lists.push(parseWith(RefsSchema, json(r.refs), where, ['checkpoints', 'artifactRefs']));
    return distinctArtifacts(lists);
  }

  /** The contents of the run's artifacts this store holds, by hash, as an export carries them. */
  exportContents(runId: string): Record<string, ArtifactContent> {
    const out: Record<string, ArtifactContent> = {};
    for (const ref of this.list(runId)) {
      if (out[ref.contentHash]) continue;
      const bytes = this.ctx.content.getBytes(ref.contentHash);
      if (bytes) out[ref.contentHash] = encodeContent(bytes);
    }
    return out;
  }

  /** Stores an export's contents (inside the caller's transaction), each checked against its hash and the limit. */
  load(contents: Record<string, ArtifactContent>, where: string): void {
    for (const [hash, content] of Object.entries(contents)) {
      const path = `artifactContents.${hash}`;
      const bytes = decodeContent(content.data, content.encoding, `${path}.data`, where);
      if (bytes.byteLength > MAX_ARTIFACT_BYTES) throw artifactTooLarge(bytes.byteLength, path, where);
      const actual = artifactContentHash(bytes);
      if (actual !== hash) {
        throw new OcdbError(
          'InvalidInput',
          `${where}: ${path}: the content's hash is ${actual}, not ${hash} (the file was changed after it was exported)`,
          { path },
        );
      }
      this.ctx.content.putBytes(bytes);
    }
  }
}

/**
 * What an artifact's content is and how it is named, carried and chosen: bytes (text is its UTF-8), at most
 * MAX_ARTIFACT_BYTES, keyed by `artifactContentHash` (32 hex chars of SHA-256 of the bytes — the same key a text
 * blob of the store has, so identical content is stored once whoever wrote it); how an export carries it (text
 * as it is, anything else base64); and which ref of a list a name means (the newest version). Uses node:crypto
 * and node:buffer only (not browser-safe: the webview never imports it).
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ArtifactRef } from './artifact';
import { OcdbError } from './errors';

/** The largest artifact content the SDK, HTTP ingest and `ocdb load` accept: 16 MiB. */
export const MAX_ARTIFACT_BYTES = 16 * 1024 * 1024;

/** The key of an artifact's content in the store: 32 hex chars of SHA-256 of its bytes. */
export function artifactContentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

/** Where an artifact's content lives in a run store (ArtifactRef.storagePath). */
export function artifactStoragePath(contentHash: string): string {
  return `blobs/${contentHash}`;
}

/** True when the bytes are UTF-8 text without NUL characters (shown as text; otherwise binary). */
export function isTextContent(bytes: Uint8Array): boolean {
  return isUtf8(bytes) && !bytes.includes(0);
}

/** A refusal of content over MAX_ARTIFACT_BYTES, located at `path`. */
export function artifactTooLarge(size: number, path: string, where: string): OcdbError {
  return new OcdbError(
    'InvalidInput',
    `${where}: ${path}: the artifact is ${size} bytes, over the limit of ${MAX_ARTIFACT_BYTES} bytes (16 MiB); store a smaller file or a reference to it in metadata`,
    { path, size, limit: MAX_ARTIFACT_BYTES },
  );
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of `data` read as `encoding` (strict base64: no whitespace, padded); InvalidInput at `path` otherwise. */
export function decodeContent(data: string, encoding: 'utf8' | 'base64', path: string, where: string): Buffer {
  if (encoding === 'utf8') return Buffer.from(data, 'utf8');
  if (!BASE64.test(data)) {
    throw new OcdbError(
      'InvalidInput',
      `${where}: ${path}: not valid base64 (the characters A-Z a-z 0-9 + /, padded with = to a multiple of 4, no spaces or line breaks)`,
      { path },
    );
  }
  return Buffer.from(data, 'base64');
}

/** One artifact's content in an export (`artifactContents` of `ocdb export`): text as it is, anything else base64. */
export const ArtifactContentSchema = z.object({
  encoding: z.enum(['utf8', 'base64']),
  data: z.string(),
});
export type ArtifactContent = z.infer<typeof ArtifactContentSchema>;

/** The contents an export carries, by content hash. */
export const ArtifactContentsSchema = z.record(
  z.string().regex(/^[0-9a-f]{32}$/, 'a 32-hex-digit content hash'),
  ArtifactContentSchema,
);

/** How `bytes` travel in an export. */
export function encodeContent(bytes: Uint8Array): ArtifactContent {
  return isTextContent(bytes)
    ? { encoding: 'utf8', data: Buffer.from(bytes).toString('utf8') }
    : { encoding: 'base64', data: Buffer.from(bytes).toString('base64') };
}

/** The artifacts a list of refs holds: the newest version of each artifactId, in the order each first appears. */
export function latestArtifacts(refs: readonly ArtifactRef[]): ArtifactRef[] {
  const by = new Map<string, ArtifactRef>();
  for (const r of refs) {
    const known = by.get(r.artifactId);
    if (!known || r.version >= known.version) by.set(r.artifactId, r);
  }
  return [...by.values()];
}

/** Every distinct ref of `lists` (the same artifactId, version and content once), in the order they were made. */
export function distinctArtifacts(lists: readonly (readonly ArtifactRef[])[]): ArtifactRef[] {
  const seen = new Map<string, ArtifactRef>();
  for (const list of lists) {
    for (const r of list) {
      const key = `${r.artifactId}\u0000${r.version}\u0000${r.contentHash}`;
      if (!seen.has(key)) seen.set(key, r);
    }
  }
  return [...seen.values()].sort(
    (a, b) => a.createdAt - b.createdAt || a.artifactId.localeCompare(b.artifactId) || a.version - b.version,
  );
}

/** The ref `name` (an artifactId) means in `refs`: `version` when given, else the newest; undefined when none. */
export function findArtifact(refs: readonly ArtifactRef[], name: string, version?: number): ArtifactRef | undefined {
  const named = refs.filter((r) => r.artifactId === name);
  if (version !== undefined) return named.find((r) => r.version === version);
  return latestArtifacts(named)[0];
}

/** A size as people read it: `812 B`, `1.8 KB`, `2.4 MB` (KB = 1024 bytes). */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

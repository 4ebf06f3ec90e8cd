/**
 * `server.json` beside the store file (a store named by URL, a shared PostgreSQL, has no folder: its file is
 * in `~/.ocdb/stores/<hash of the URL without password>/`, store/storePath.ts `storeLocalFolder`): `{ url, token, pid }`, mode 0600, so
 * local clients (the extension, scripts) find the running API and its token
 * while other users cannot read it. One server per store: the file is created
 * exclusively, a second server on the same store is refused while the first
 * one's pid lives (a stale file of a dead server is replaced). Removed on
 * shutdown when it is still ours.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { OcdbError, parseWith } from '../model';
import { pidAlive, readLocalFile, storeLocalFolder, writeLocalFile } from '../store';

export const ServerFileSchema = z.object({ url: z.url(), token: z.string().min(16), pid: z.number().int().optional() });
export type ServerFile = z.infer<typeof ServerFileSchema>;

/** Where the server file of the store at `storePath` (a file path or a URL) lives. */
export function serverFilePath(storePath: string): string {
  return path.join(storeLocalFolder(storePath), 'server.json');
}

/**
 * Creates the server file (complete, mode 0600, never half written). Throws
 * StoreLocked when a live server of another process owns it; replaces the
 * file of a server that is gone.
 */
export function writeServerFile(storePath: string, content: ServerFile): string {
  const file = serverFilePath(storePath);
  const text = `${JSON.stringify(content, null, 2)}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      // exclusive, never through a link (store/localFiles.ts): fails when the file (or a link) is there
      writeLocalFile(file, text, { root: path.dirname(file), mode: 0o600, folderMode: 0o700, exclusive: true });
      return file;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
    }
    const owner = ownerOf(file);
    if (owner && owner.pid !== process.pid && pidAlive(owner.pid)) {
      throw new OcdbError(
        'StoreLocked',
        `Another ocdb serve (pid ${owner.pid}) already serves this store at ${owner.url}; use it (its token is in ${file}) or stop it first.`,
        { file, pid: owner.pid, url: owner.url },
      );
    }
    fs.rmSync(file, { force: true }); // the file of a server that is gone (a link is removed, not followed)
  }
}

function ownerOf(file: string): { pid: number; url: string } | undefined {
  try {
    const parsed = ServerFileSchema.safeParse(JSON.parse(readLocalFile(file) ?? ''));
    return parsed.success && parsed.data.pid !== undefined ? { pid: parsed.data.pid, url: parsed.data.url } : undefined;
  } catch {
    return undefined; // unreadable or half written by a crashed writer: stale
  }
}

/** Reads and validates the server file; undefined when there is none. */
export function readServerFile(storePath: string): ServerFile | undefined {
  const file = serverFilePath(storePath);
  if (!fs.existsSync(file)) return undefined;
  return parseWith(ServerFileSchema, JSON.parse(fs.readFileSync(file, 'utf8')), file);
}

/** Deletes the server file when it still holds `token` (another server may have replaced it). */
export function removeServerFile(storePath: string, token: string): void {
  try {
    if (readServerFile(storePath)?.token === token) fs.rmSync(serverFilePath(storePath), { force: true });
  } catch {
    // an unreadable file is not ours to delete
  }
}

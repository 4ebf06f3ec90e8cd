/**
 * `server.json` beside the store file: `{ url, token, pid }`, mode 0600, so
 * local clients (the extension, scripts) find the running API and its token
 * while other users cannot read it. Removed on shutdown when it is still ours.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { parseWith } from '../model';

export const ServerFileSchema = z.object({ url: z.url(), token: z.string().min(16), pid: z.number().int().optional() });
export type ServerFile = z.infer<typeof ServerFileSchema>;

/** Where the server file of the store at `storePath` lives. */
export function serverFilePath(storePath: string): string {
  return path.join(path.dirname(path.resolve(storePath)), 'server.json');
}

export function writeServerFile(storePath: string, content: ServerFile): string {
  const file = serverFilePath(storePath);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
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

/**
 * Restoring the files of a coding agent's run as they were at a checkpoint into a folder (a new git worktree, or
 * one the user chose): the plan (each file to write with its text and lines, each file the run deleted, each file
 * whose text is not known and is left out), the files of the folder it would write over or delete (they differ from
 * what it writes: the user must confirm that list), and the writing itself, never through a link and never outside
 * the folder (store/localFiles.ts `writeLocalFile`: real folders, a temporary file renamed over the target). It
 * writes nothing to the store and nothing at all before the caller has the list confirmed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OcdbError } from '../model';
import { readLocalFile, writeLocalFile } from '../store';
import type { FileAt, FileHistory } from './fileHistory';

export interface RestoreEntry {
  /** Relative to the target folder (the file's path relative to the folder the agent ran in). */
  relPath: string;
  /** The text to write; undefined for a file the run deleted (it is removed). */
  content: string | undefined;
  lines: number;
}

export interface RestorePlan {
  checkpointIndex: number;
  writes: RestoreEntry[];
  deletes: RestoreEntry[];
  /** Files the run changed whose text at the checkpoint is not known (edited before any read): not written. */
  unknown: string[];
  /** Files outside the folder the agent ran in: not written (a restore stays inside its target). */
  outside: string[];
}

const linesIn = (text: string): number => (text === '' ? 0 : text.replace(/\n$/, '').split('\n').length);

/** What restoring the files as of checkpoint `index` would write. */
export function restorePlan(history: FileHistory, index: number): RestorePlan {
  const plan: RestorePlan = { checkpointIndex: index, writes: [], deletes: [], unknown: [], outside: [] };
  for (const f of history.filesAt(index)) {
    const rel = relativeInside(history.cwd, f);
    if (rel === undefined) plan.outside.push(f.path);
    else if (f.deleted) plan.deletes.push({ relPath: rel, content: undefined, lines: 0 });
    else if (f.content === undefined) plan.unknown.push(rel);
    else plan.writes.push({ relPath: rel, content: f.content, lines: linesIn(f.content) });
  }
  return plan;
}

function relativeInside(cwd: string | undefined, f: FileAt): string | undefined {
  if (cwd === undefined) return undefined;
  const rel = path.relative(cwd, f.path);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel;
}

/** A file of the target folder the restore would change: it holds other text, or the run deleted it. */
export interface Overwrite {
  relPath: string;
  why: 'differs' | 'deleted' | 'not a plain file';
}

/** The user's files in `dir` the plan would write over or delete (none for a new, empty folder). */
export function overwrites(plan: RestorePlan, dir: string): Overwrite[] {
  const out: Overwrite[] = [];
  for (const e of [...plan.writes, ...plan.deletes]) {
    const target = path.join(dir, e.relPath);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(target);
    } catch {
      continue; // not there: nothing of the user's is touched
    }
    if (!stat.isFile()) out.push({ relPath: e.relPath, why: 'not a plain file' });
    else if (e.content === undefined) out.push({ relPath: e.relPath, why: 'deleted' });
    else if (readLocalFile(target) !== e.content) out.push({ relPath: e.relPath, why: 'differs' });
  }
  return out;
}

/** One line per file a restore would change in the user's folder: what the confirmation lists. */
export function overwriteLines(list: readonly Overwrite[]): string[] {
  return list.map((o) =>
    o.why === 'deleted'
      ? `${o.relPath} (deleted by the run: removed)`
      : o.why === 'differs'
        ? `${o.relPath} (overwritten)`
        : `${o.relPath} (a link or folder: replaced)`,
  );
}

export interface RestoreResult {
  written: string[];
  deleted: string[];
}

/**
 * Writes the plan into `dir`. `confirmed` must list every file `overwrites` names (the caller asked the user);
 * a file changed since then, not in that list, stops the restore before anything is written.
 */
export function restoreFiles(plan: RestorePlan, dir: string, confirmed: readonly string[]): RestoreResult {
  const root = path.resolve(dir);
  const allowed = new Set(confirmed);
  const unconfirmed = overwrites(plan, root).filter((o) => !allowed.has(o.relPath));
  if (unconfirmed.length > 0) {
    throw new OcdbError(
      'InvalidInput',
      `Restoring would change ${unconfirmed.length} file(s) in ${root} nobody confirmed: ${overwriteLines(unconfirmed).join(', ')}. Nothing was written.`,
      { path: 'confirmed' },
    );
  }
  const result: RestoreResult = { written: [], deleted: [] };
  for (const e of plan.writes) {
    writeLocalFile(path.join(root, e.relPath), e.content ?? '', { root });
    result.written.push(e.relPath);
  }
  for (const e of plan.deletes) {
    const target = path.join(root, e.relPath);
    if (!realFoldersTo(root, path.dirname(target))) continue; // never removes through a linked folder
    if (fs.existsSync(target) || isLink(target)) {
      fs.rmSync(target, { force: true });
      result.deleted.push(e.relPath);
    }
  }
  return result;
}

/** True when every folder from `root` down to `folder` is a real one (not a link). */
function realFoldersTo(root: string, folder: string): boolean {
  let at = root;
  for (const part of path.relative(root, folder).split(path.sep).filter(Boolean)) {
    at = path.join(at, part);
    try {
      if (!fs.lstatSync(at).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `3 files (120 lines) written, 1 deleted; 1 left out (text not known)` */
export function planSummary(plan: RestorePlan): string {
  const lines = plan.writes.reduce((n, e) => n + e.lines, 0);
  const parts = [`${plan.writes.length} file${plan.writes.length === 1 ? '' : 's'} (${lines} lines) to write`];
  if (plan.deletes.length > 0) parts.push(`${plan.deletes.length} to delete`);
  if (plan.unknown.length > 0) parts.push(`${plan.unknown.length} left out (text not known)`);
  if (plan.outside.length > 0) parts.push(`${plan.outside.length} left out (outside the session's folder)`);
  return parts.join('; ');
}

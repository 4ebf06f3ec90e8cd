/**
 * The one way a file is written under a store's local folder (`.ocdb/` beside a SQLite store, or
 * `~/.ocdb/stores/<hash>/` for a store named by URL): transcripts, their keys, `server.json`.
 *
 * Why: a `.ocdb/` folder can arrive with a repository, and a link planted in it (the file itself, a temporary name
 * beside it, or the folder holding it) would make a plain `writeFileSync` write through the link — over `~/.bashrc`,
 * say — with text that holds an attacker-chosen run id. So no link is ever followed: each folder from the store's
 * folder down must be a real folder (lstat, not stat), the new content goes to a temporary name created exclusively
 * with O_NOFOLLOW, and it replaces the target by rename (rename replaces a link at the target, never what it points
 * at). Uses only node:fs; knows nothing of runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OcdbError } from '../model';

const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = fs.constants;

/**
 * Creates `folder` (and the folders between `root` and it) as real folders, refusing any link or non-folder on the
 * way. `root` itself is where the user put the store and is taken as it is.
 */
export function ensureRealFolder(root: string, folder: string, mode = 0o755): void {
  const rel = path.relative(root, folder);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new OcdbError('InvalidInput', `${folder} is not inside ${root}.`, { folder, root });
  }
  fs.mkdirSync(root, { recursive: true, mode });
  let at = root;
  for (const part of rel === '' ? [] : rel.split(path.sep)) {
    at = path.join(at, part);
    try {
      fs.mkdirSync(at, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const stat = fs.lstatSync(at);
    if (!stat.isDirectory()) {
      throw new OcdbError(
        'InvalidInput',
        `${at} is ${stat.isSymbolicLink() ? 'a link' : 'not a folder'}; nothing is written through it. Remove it and try again.`,
        { path: at },
      );
    }
  }
}

/** Options of `writeLocalFile`. */
export interface LocalWriteOptions {
  /** The store's local folder: every folder below it up to the file's must be a real one. */
  root: string;
  /** File mode of a new file (default 0644). */
  mode?: number;
  /** Mode of the folders it creates (default 0755). */
  folderMode?: number;
  /** Create only: fail with EEXIST when the target exists (a hard link of the finished temporary file). */
  exclusive?: boolean;
}

/**
 * Writes `data` to `file` completely or not at all, never through a link: the folders are checked, the temporary
 * file is created exclusively without following a link, and a link at `file` is replaced, not written through.
 */
export function writeLocalFile(file: string, data: string | Uint8Array, options: LocalWriteOptions): void {
  const dir = path.dirname(file);
  ensureRealFolder(options.root, dir, options.folderMode ?? 0o755);
  const mode = options.mode ?? 0o644;
  let tmp = '';
  let fd = -1;
  for (let attempt = 0; fd < 0; attempt++) {
    tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}${attempt}.tmp`);
    try {
      fd = fs.openSync(tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, mode);
    } catch (e) {
      // a name someone else holds (or planted): try another, a few times
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw e;
    }
  }
  try {
    try {
      fs.writeFileSync(fd, data);
      fs.fchmodSync(fd, mode);
    } finally {
      fs.closeSync(fd);
    }
    if (options.exclusive) fs.linkSync(tmp, file);
    else fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Reads `file` when it is a regular file reached without a link; undefined otherwise (missing, a link, a folder). */
export function readLocalFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined;
    return fs.readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** True when `file` is a regular file itself (not a link to one). */
export function isLocalFile(file: string): boolean {
  try {
    return fs.lstatSync(file).isFile();
  } catch {
    return false;
  }
}

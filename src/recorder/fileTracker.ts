/**
 * `run.trackFiles(dir, { include, exclude })`: the files an SDK-recorded agent changes in a folder, found at tool
 * boundaries. In a git repository it asks git which files differ (`git status --porcelain -z`, run with execFile,
 * never a shell) and reads what a file was from HEAD (`git show HEAD:<path>`); elsewhere it walks the folder within
 * limits (files, bytes a file). Each scan answers the versions to store: a file's text when it changed since the last
 * scan (null when deleted), preceded the first time by its text as it was before (index -1) when it existed. Text
 * files only (a file holding a NUL byte, or larger than the limit, is left out). No store access; no vscode.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { parseWith } from '../model';
import type { NewFileVersion } from '../store';

export const TrackFilesOptionsSchema = z.strictObject({
  /** Globs (relative to the folder, `**` and `*`) a file must match; default every file. */
  include: z.array(z.string().min(1)).optional(),
  /** Globs of files left out, beside `.git` and `node_modules`. */
  exclude: z.array(z.string().min(1)).optional(),
  /** Larger files are left out (default 1 MiB). */
  maxFileBytes: z.number().int().positive().optional(),
  /** A walk (no git) stops after this many files (default 5000). */
  maxFiles: z.number().int().positive().optional(),
});
export type TrackFilesOptions = z.infer<typeof TrackFilesOptionsSchema>;

const ALWAYS_EXCLUDED = ['.git/**', '**/.git/**', 'node_modules/**', '**/node_modules/**'];

/** A glob as a RegExp over a `/`-separated relative path; a glob without `/` matches a name in any folder. */
export function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(glob.includes('/') ? `^${re}$` : `^(?:.*/)?${re}$`);
}

const hashOf = (text: string | null): string | null =>
  text === null ? null : createHash('sha256').update(text).digest('hex');

export class FileTracker {
  readonly root: string;
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];
  private readonly maxFileBytes: number;
  private readonly maxFiles: number;
  /** The repository's top folder, when `root` is in one. */
  private readonly gitTop: string | undefined;
  /** Each file's text as last stored or as it was at the start (null: none), by path relative to root. */
  private readonly last = new Map<string, string | null>();
  /** Files a version was stored of (their earlier text is stored with the first). */
  private readonly stored = new Set<string>();
  /** A walk's files at the start or last scan: size and mtime, to read only what changed. */
  private readonly stats = new Map<string, string>();

  constructor(dir: string, options: TrackFilesOptions = {}) {
    const opts = parseWith(TrackFilesOptionsSchema, options, 'trackFiles options');
    this.root = resolve(dir);
    this.include = (opts.include ?? []).map(globRegExp);
    this.exclude = [...ALWAYS_EXCLUDED, ...(opts.exclude ?? [])].map(globRegExp);
    this.maxFileBytes = opts.maxFileBytes ?? 1 << 20;
    this.maxFiles = opts.maxFiles ?? 5000;
    this.gitTop = this.git(['rev-parse', '--show-toplevel'])?.trim() || undefined;
    // what each file is before the agent goes on: git's changed files now (the rest is HEAD's), or every file
    for (const rel of this.gitTop !== undefined ? this.gitChanged() : this.walk()) this.last.set(rel, this.read(rel));
  }

  /** True when the folder is in a git repository (its changed files come from git). */
  get usesGit(): boolean {
    return this.gitTop !== undefined;
  }

  /** The versions to store at checkpoint `index`: the files changed since the last scan (absolute paths). */
  scan(index: number): NewFileVersion[] {
    const candidates = new Set(this.gitTop !== undefined ? this.gitChanged() : this.walk());
    // a file changed before and now back as HEAD has it (git lists it no more) or gone from the walk
    for (const rel of this.last.keys()) candidates.add(rel);
    const out: NewFileVersion[] = [];
    for (const rel of [...candidates].sort()) {
      const now = this.read(rel);
      const before = this.last.has(rel) ? (this.last.get(rel) ?? null) : this.earlier(rel);
      if (hashOf(now) === hashOf(before)) {
        this.last.set(rel, now);
        continue;
      }
      if (!this.stored.has(rel) && before !== null)
        out.push({ checkpointIndex: -1, path: this.abs(rel), content: before });
      out.push({ checkpointIndex: index, path: this.abs(rel), content: now });
      this.stored.add(rel);
      this.last.set(rel, now);
    }
    return out;
  }

  private abs(rel: string): string {
    return join(this.root, rel);
  }

  private wanted(rel: string): boolean {
    if (this.exclude.some((r) => r.test(rel))) return false;
    return this.include.length === 0 || this.include.some((r) => r.test(rel));
  }

  /** A file's text now: null when missing, not a regular file, too large or not text. */
  private read(rel: string): string | null {
    const file = this.abs(rel);
    try {
      const st = lstatSync(file);
      if (!st.isFile() || st.size > this.maxFileBytes) return null;
      const bytes = readFileSync(file);
      if (bytes.subarray(0, 8000).includes(0)) return null;
      return bytes.toString('utf8');
    } catch {
      return null;
    }
  }

  /** What a file first seen changed was before: HEAD's text in a repository (null: not there); a new file's null. */
  private earlier(rel: string): string | null {
    if (this.gitTop === undefined) return null;
    const inRepo = relative(this.gitTop, this.abs(rel)).split(sep).join('/');
    return this.git(['show', `HEAD:${inRepo}`]) ?? null;
  }

  private git(args: string[]): string | undefined {
    try {
      return execFileSync('git', ['-C', this.root, ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 64 << 20,
      });
    } catch {
      return undefined;
    }
  }

  /** The files git says differ from HEAD (untracked ones too), relative to root, wanted ones only. */
  private gitChanged(): string[] {
    const out = this.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', '.']);
    if (out === undefined || this.gitTop === undefined) return [];
    const files: string[] = [];
    for (const entry of out.split('\0')) {
      if (entry.length < 4) continue;
      // porcelain paths are relative to the repository's top, whatever folder git runs in
      const rel = relative(this.root, join(this.gitTop, entry.slice(3)))
        .split(sep)
        .join('/');
      if (!rel.startsWith('..') && !isAbsolute(rel) && this.wanted(rel)) files.push(rel);
    }
    return files;
  }

  /** The wanted files of the folder (links not followed), at most maxFiles; those whose size or time changed. */
  private walk(): string[] {
    const files: string[] = [];
    const visit = (dir: string) => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (files.length >= this.maxFiles) return;
        const abs = join(dir, e.name);
        const rel = relative(this.root, abs).split(sep).join('/');
        if (e.isDirectory()) {
          if (!this.exclude.some((r) => r.test(`${rel}/x`))) visit(abs);
        } else if (e.isFile() && this.wanted(rel)) {
          const st = lstatSync(abs);
          const stamp = `${st.size}:${st.mtimeMs}`;
          if (this.stats.get(rel) !== stamp) files.push(rel);
          this.stats.set(rel, stamp);
        }
      }
    };
    visit(this.root);
    for (const rel of [...this.stats.keys()]) if (!this.wanted(rel) || !this.existsInWalk(rel)) this.stats.delete(rel);
    return files;
  }

  private existsInWalk(rel: string): boolean {
    try {
      return lstatSync(this.abs(rel)).isFile();
    } catch {
      return false;
    }
  }
}

/**
 * `importPath`: imports a file, or every trace file under a directory
 * (*.jsonl, *.json; subagent transcripts go with their session), going on
 * past files that fail and answering a summary (imported, skipped, failed
 * with reasons). Progress reports bytes read; an AbortSignal cancels before
 * the next line (files already imported stay imported). No vscode import:
 * the CLI and the extension both call this.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { OcdbError } from '../model';
import type { RunStore } from '../store';
import { importFile } from './importFile';
import { notRegularFile } from './regularFile';
import type { FileResult, ImportOptions, ImportSummary } from './types';

/** True for <dir>/<session>/subagents/agent-x.jsonl when <dir>/<session>.jsonl is part of the same walk (it reads them). */
function isSubagentOfSession(file: string, root: string): boolean {
  const subDir = dirname(file);
  if (basename(subDir) !== 'subagents') return false;
  const sessionFile = `${dirname(subDir)}.jsonl`;
  if (!sessionFile.startsWith(root + sep)) return false;
  try {
    return statSync(sessionFile).isFile();
  } catch {
    return false;
  }
}

/** Why a link under the walked folder cannot be followed (a loop, a self-link, a link to nothing). */
function brokenLink(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return 'a symbolic link that loops (it leads back to itself); skipped';
  if (code === 'ENOENT') return 'a symbolic link to nothing (dangling); skipped';
  return `a symbolic link that cannot be followed (${String(code ?? e)}); skipped`;
}

/** One entry of a folder's walk: a trace file to import, or a path that is reported and left out. */
export interface TraceEntry {
  file: string;
  problem?: string;
}

/**
 * The trace files under `dir` in walk order (sorted), subagent files of a present session left out, with the paths
 * that cannot be imported reported instead of failing the walk: links that loop or lead nowhere, a link back to a
 * folder already walked, FIFOs and device files named like traces, folders that cannot be read.
 */
export function listTraceEntries(dir: string): TraceEntry[] {
  const out: TraceEntry[] = [];
  const seen = new Set<string>();
  const walk = (d: string) => {
    let real: string;
    let names: string[];
    try {
      real = realpathSync(d);
      names = readdirSync(d).sort();
    } catch (e) {
      out.push({
        file: d,
        problem: `cannot read the folder (${String((e as NodeJS.ErrnoException).code ?? e)}); skipped`,
      });
      return;
    }
    if (seen.has(real)) {
      out.push({ file: d, problem: `a link back to the folder ${real}, already walked (a loop); skipped` });
      return;
    }
    seen.add(real);
    for (const name of names) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const p = join(d, name);
      let st: Stats;
      try {
        st = lstatSync(p);
        if (st.isSymbolicLink()) st = statSync(p);
      } catch (e) {
        out.push({ file: p, problem: brokenLink(e) });
        continue;
      }
      if (st.isDirectory()) walk(p);
      else if (!/\.(jsonl|json)$/i.test(name)) continue;
      else if (!st.isFile()) out.push({ file: p, problem: notRegularFile(st) });
      else if (!isSubagentOfSession(p, dir)) out.push({ file: p });
    }
  };
  walk(dir);
  return out;
}

/** The trace files under `dir`, sorted, subagent files of a present session left out (what cannot be read is not listed). */
export function listTraceFiles(dir: string): string[] {
  return listTraceEntries(dir)
    .filter((e) => e.problem === undefined)
    .map((e) => e.file);
}

export async function importPath(store: RunStore, path: string, options: ImportOptions = {}): Promise<ImportSummary> {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new OcdbError('InvalidInput', `${path}: no such file or directory`, { path });
  }
  const entries: TraceEntry[] = st.isDirectory() ? listTraceEntries(resolve(path)) : [{ file: resolve(path) }];
  const refused: FileResult[] = entries
    .filter((e): e is Required<TraceEntry> => e.problem !== undefined)
    .map((e) => ({
      file: e.file,
      outcome: 'failed',
      reason: e.problem,
      runs: [],
      unknownTypes: {},
      warnings: [],
      skippedRecords: [],
      bytes: 0,
    }));
  const files = entries.filter((e) => e.problem === undefined).map((e) => e.file);
  const sizes = files.map((f) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  });
  const allBytesTotal = sizes.reduce((a, b) => a + b, 0);
  let doneBytes = 0;
  const results: FileResult[] = [...refused];
  for (const [i, file] of files.entries()) {
    if (options.signal?.aborted)
      throw new OcdbError('Cancelled', `Import cancelled after ${i} of ${files.length} file(s).`, { results });
    const size = sizes[i] ?? 0;
    const report = (f: string, bytesRead: number) => {
      if (f !== file) return; // subagent files read along with their session
      options.onProgress?.({
        phase: 'read',
        file,
        bytesRead,
        bytesTotal: size,
        allBytesRead: doneBytes + bytesRead,
        allBytesTotal,
        filesDone: i,
        filesTotal: files.length,
      });
    };
    const writing = (checkpointsWritten: number, checkpointsTotal?: number) =>
      options.onProgress?.({
        phase: 'write',
        file,
        bytesRead: size,
        bytesTotal: size,
        allBytesRead: doneBytes + size,
        allBytesTotal,
        checkpointsWritten,
        ...(checkpointsTotal !== undefined ? { checkpointsTotal } : {}),
        filesDone: i,
        filesTotal: files.length,
      });
    results.push(await importFile(store, file, options, report, writing));
    doneBytes += size;
    options.onProgress?.({
      phase: 'read',
      file,
      bytesRead: size,
      bytesTotal: size,
      allBytesRead: doneBytes,
      allBytesTotal,
      filesDone: i + 1,
      filesTotal: files.length,
    });
  }
  return {
    files: results,
    imported: results.filter((r) => r.outcome === 'imported').length,
    appended: results.filter((r) => r.outcome === 'imported' && r.continued === true).length,
    skipped: results.filter((r) => r.outcome === 'skipped').length,
    failed: results.filter((r) => r.outcome === 'failed').length,
    skippedRecords: results.reduce((n, r) => n + r.skippedRecords.length, 0),
    runIds: results.flatMap((r) => r.runs.map((x) => x.runId)),
  };
}

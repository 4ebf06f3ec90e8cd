/**
 * `importPath`: imports a file, or every trace file under a directory
 * (*.jsonl, *.json; subagent transcripts go with their session), going on
 * past files that fail and answering a summary (imported, skipped, failed
 * with reasons). Progress reports bytes read; an AbortSignal cancels before
 * the next line (files already imported stay imported). No vscode import:
 * the CLI and the extension both call this.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { OcdbError } from '../model';
import type { RunStore } from '../store';
import { importFile } from './importFile';
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

/** The trace files under `dir`, sorted, subagent files of a present session left out. */
export function listTraceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && /\.(jsonl|json)$/i.test(name) && !isSubagentOfSession(p, dir)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

export async function importPath(store: RunStore, path: string, options: ImportOptions = {}): Promise<ImportSummary> {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new OcdbError('InvalidInput', `${path}: no such file or directory`, { path });
  }
  const files = st.isDirectory() ? listTraceFiles(resolve(path)) : [resolve(path)];
  const sizes = files.map((f) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  });
  const allBytesTotal = sizes.reduce((a, b) => a + b, 0);
  let doneBytes = 0;
  const results: FileResult[] = [];
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

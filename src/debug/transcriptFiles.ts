/**
 * Where a run's transcript lives on disk: `<store dir>/transcripts/<runId>.transcript` (a store named by URL:
 * its local folder under `~/.ocdb/stores/`, `storeLocalFolder`).
 *
 * Why a real file rather than a DAP `sourceReference`: VS Code only offers
 * gutter breakpoints on documents it can open by path, keeps breakpoints per
 * file across sessions, and lets the user set them before pressing F5; the
 * `.transcript` extension gives the document the `agent-transcript` language
 * of the extension. Terminal clients (nvim-dap, dap-mode) open the file as
 * well. When the folder is not writable the session falls back to a
 * sourceReference (read-only view, no gutter breakpoints).
 *
 * `writeRunTranscript` is the one writer of these files: the debug session
 * and the extension both call it, so a run at a detail level is the same
 * bytes whoever wrote it (and F5 never rewrites an open transcript).
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { RunView } from '../replay/runView';
import { TRANSCRIPT_FORMAT } from '../replay/transcript';
import { isLocalFile, readLocalFile, storeLocalFolder, writeLocalFile } from '../store';

export const TRANSCRIPT_EXTENSION = '.transcript';

/** The transcript file of `runId` beside the store at `storePath`. */
export function transcriptPath(storePath: string, runId: string): string {
  const safe = runId.replace(/[^\w.@-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return path.join(storeLocalFolder(storePath), 'transcripts', `${safe}${TRANSCRIPT_EXTENSION}`);
}

/** The run id a transcript path names, or undefined for other files. */
export function runIdOfTranscript(file: string): string | undefined {
  const base = path.basename(file);
  if (!base.endsWith(TRANSCRIPT_EXTENSION)) return undefined;
  return decodeURIComponent(base.slice(0, -TRANSCRIPT_EXTENSION.length));
}

/**
 * Writes `text` to `file` unless it already holds exactly that; returns false when the folder is not writable or
 * is (or holds) a link. Never writes through a link (store/localFiles.ts): the transcripts folder is `.ocdb/`'s,
 * which may have come with a repository.
 */
export function writeTranscriptFile(file: string, text: string): boolean {
  try {
    if (readLocalFile(file) === text) return true;
    writeLocalFile(file, text, { root: path.dirname(path.dirname(file)) });
    return true;
  } catch {
    return false;
  }
}

/**
 * What a transcript file was rendered from: the run as it stood (its change counter moves with every write to it:
 * a checkpoint, a live edit, its end), the detail level and the rendering's version. Kept beside the file
 * (`<file>.key`): a session that finds the file written from the same is spared rendering it again (on a run of
 * 10,000 checkpoints, reading every result and message excerpted: most of a second). Kept as a hash: the file
 * holds no run id or other text a shell could read as a command.
 */
function keyOf(view: Pick<RunView, 'run' | 'detail'> & { live?: boolean }): string {
  const { run } = view;
  const facts = JSON.stringify([
    TRANSCRIPT_FORMAT,
    run.runId,
    run.startedAt,
    run.changeSeq,
    run.checkpointCount,
    view.detail,
    view.live === true,
  ]);
  return `${createHash('sha256').update(facts).digest('hex')}\n`;
}

/**
 * Writes the transcript of `view`'s run, rendered at the view's detail level, to its file beside the store at
 * `storePath` — unless the file was written from the same run at the same level (its key), or already holds exactly
 * that text. Returns the file, or undefined when the folder is not writable.
 */
export function writeRunTranscript(
  storePath: string,
  view: Pick<RunView, 'runId' | 'run' | 'detail' | 'transcript'> & { live?: boolean },
): string | undefined {
  const file = transcriptPath(storePath, view.runId);
  const key = keyOf(view);
  const keyFile = `${file}.key`;
  // no key (a file an older release wrote, or none), or a link: rendered below
  if (readLocalFile(keyFile) === key && isLocalFile(file)) return file;
  if (!writeTranscriptFile(file, view.transcript().text)) return undefined;
  try {
    writeLocalFile(keyFile, key, { root: path.dirname(path.dirname(file)) });
  } catch {
    // the file is written; without its key the next session renders it again
  }
  return file;
}

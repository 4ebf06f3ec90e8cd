/**
 * Questions asked of a run's file history (fileHistory.ts) by the views that show one file: its text at a
 * checkpoint, the change that made it so (the text before and after the last call that changed it up to there),
 * the files one call changed, and the shell steps after a file's last change (its text may no longer be the
 * rebuilt one). Pure, read-only; no vscode.
 */
import type { FileAt, FileEventAt, FileHistory } from './fileHistory';

/** One call's change of one file: the text before and after it (undefined where not known). */
export interface FileChange {
  file: FileAt;
  at: FileEventAt;
  before: string | undefined;
  after: string | undefined;
}

/** The file at checkpoint `index` by absolute or display path. */
export function fileAt(history: FileHistory, index: number, path: string): FileAt | undefined {
  return history.filesAt(index).find((f) => f.path === path || f.displayPath === path);
}

/** The text a file had just before the call at `at` changed it. */
function textBefore(history: FileHistory, at: FileEventAt, file: FileAt): string | undefined {
  const earlier = history.filesAt(at.checkpointIndex - 1).find((f) => f.path === file.path);
  if (!earlier) return file.original; // its first change: the text a read showed, or '' for a new file
  return earlier.deleted ? '' : earlier.content;
}

/** The last change of `path` at or before checkpoint `index` (the checkpoint's own when its call changed it). */
export function lastChange(history: FileHistory, index: number, path: string): FileChange | undefined {
  const file = fileAt(history, index, path);
  const at = file?.changes.at(-1);
  if (!file || !at) return undefined;
  const after = history.filesAt(at.checkpointIndex).find((f) => f.path === file.path);
  return { file, at, before: textBefore(history, at, file), after: after?.deleted ? '' : after?.content };
}

/** The files the call `toolCallId` changed, each with its text before and after the call. */
export function changesOfCall(history: FileHistory, toolCallId: string): FileChange[] {
  const out: FileChange[] = [];
  for (const file of history.filesAt(Infinity)) {
    const at = file.changes.find((c) => c.toolCallId === toolCallId);
    if (!at) continue;
    const after = history.filesAt(at.checkpointIndex).find((f) => f.path === file.path);
    out.push({ file, at, before: textBefore(history, at, file), after: after?.deleted ? '' : after?.content });
  }
  return out;
}

/** Shell steps closed after the file's last change and at or before `index`: they may have changed it. */
export function shellSince(history: FileHistory, index: number, file: FileAt): FileEventAt[] {
  const last = file.changes.at(-1)?.checkpointIndex ?? -1;
  return history.shellMarks.filter((m) => m.checkpointIndex > last && m.checkpointIndex <= index);
}

/** `M`, `A` (the run created it) or `D`: what the run had done to the file, as git letters it. */
export function fileStatusLetter(file: FileAt): 'M' | 'A' | 'D' {
  return file.deleted ? 'D' : file.original === '' ? 'A' : 'M';
}

/** `step 4, 5`: the steps that changed a file; a fork's `step 4 (before the fork), 7`. */
export function changedAtSteps(file: FileAt): string {
  const steps = [
    ...new Set(file.changes.map((c) => (c.inherited ? `${c.stepIndex} (before the fork)` : `${c.stepIndex}`))),
  ];
  return `step${steps.length > 1 ? 's' : ''} ${steps.join(', ')}`;
}

/**
 * The files two runs left differently: each run's files at its last checkpoint (fileHistory.ts; a fork's with the
 * files it inherited), and for a file only one run changed, the other side is the file as it was before (the
 * changing run's `original`). Listed by `ocdb diff` and opened as diffs by Compare Runs. Read-only; no vscode.
 */
import type { RunStore } from '../store';
import { runFileHistory, type FileAt } from './fileHistory';

export interface FileDifference {
  /** Absolute path. */
  path: string;
  /** Relative to the runs' folder when inside it. */
  displayPath: string;
  /** The file at the end of each run; undefined when that run did not change it. */
  left?: FileAt;
  right?: FileAt;
  /** The text at each run's end (null: deleted; undefined: not known). */
  leftText: string | null | undefined;
  rightText: string | null | undefined;
}

const endText = (file: FileAt | undefined, other: FileAt | undefined): string | null | undefined => {
  if (file) return file.deleted ? null : file.content;
  // not changed by this run: as it was before the other run changed it ('' there: the file did not exist)
  return other?.original === '' ? null : other?.original;
};

/** The files whose text differs at the ends of `left` and `right`, by display path. */
export function compareRunFiles(store: RunStore, left: string, right: string): FileDifference[] {
  const a = runFileHistory(store, left).history.filesAt(Infinity);
  const b = runFileHistory(store, right).history.filesAt(Infinity);
  const paths = new Set([...a.map((f) => f.path), ...b.map((f) => f.path)]);
  const out: FileDifference[] = [];
  for (const path of paths) {
    const l = a.find((f) => f.path === path);
    const r = b.find((f) => f.path === path);
    const leftText = endText(l, r);
    const rightText = endText(r, l);
    if (leftText === rightText && leftText !== undefined) continue;
    out.push({
      path,
      displayPath: (l ?? r)?.displayPath ?? path,
      ...(l ? { left: l } : {}),
      ...(r ? { right: r } : {}),
      leftText,
      rightText,
    });
  }
  return out.sort((x, y) => x.displayPath.localeCompare(y.displayPath));
}

/** `src/date.ts (+3 −1 ↔ +2 −1)`: one line of a difference, for a summary. */
export function fileDifferenceLine(d: FileDifference): string {
  const side = (f: FileAt | undefined, text: string | null | undefined) =>
    !f ? 'unchanged' : f.deleted ? 'deleted' : text === undefined ? 'text not known' : `+${f.added} −${f.removed}`;
  return `${d.displayPath}  (${side(d.left, d.leftText)} ↔ ${side(d.right, d.rightText)})`;
}

/**
 * What the hover on an Edit / Write (or apply_patch, write_file, replace) line of a transcript adds: per file the
 * call changed, its path, +/− lines and a short unified diff of the call's change (replay/lineDiff.ts), cut after
 * a few lines. Pure: no vscode import, so unit tests read what a user sees.
 */
import { lineCounts } from '../model';
import type { FileChange } from '../replay/fileVersions';
import { unifiedDiff } from '../replay/lineDiff';
import { mdText } from './markdownText';

/** Lines of diff shown per file before `… N more lines`. */
export const HOVER_DIFF_LINES = 14;

export function fileChangeMarkdown(changes: readonly FileChange[], maxLines = HOVER_DIFF_LINES): string {
  const out: string[] = [];
  for (const c of changes) {
    const name = mdText(c.file.displayPath);
    if (c.before === undefined || c.after === undefined) {
      out.push(`**${name}** changed — its text before this call is not known (no read showed it first)`, '');
      continue;
    }
    const { added, removed } = lineCounts(c.before, c.after);
    const diff = unifiedDiff(c.before, c.after, { context: 1, maxLines });
    const fence = diff.some((l) => l.includes('```')) ? '~~~~' : '```';
    out.push(`**${name}** +${added} −${removed}`, '', `${fence}diff`, ...diff, fence, '');
  }
  return out.join('\n');
}

/**
 * The Files scope of a coding agent's run: at every checkpoint, the files the agent had changed by then
 * (replay/fileHistory.ts, rebuilt from its own edit tools), each with git's letter, its +/− line counts, the steps
 * that changed it and its text, and the marks a user must see — a shell step whose effect on files cannot be known,
 * a read that disagreed with the rebuilt text, an edit made before any read showed the file. A run that calls no
 * tool that changes files (and inherits no changed file from the run it was forked from) has no Files scope. A
 * fork's files start as its ancestors had made them by its fork point. The history is worked out once per RunView
 * (a run that grew is a new view). Plain DAP-shaped values; no transport, no vscode.
 */
import { runFilesOf, type FileAt, type FileHistory } from '../replay/fileHistory';
import { mayChangeFiles } from '../model';
import { changedAtSteps, fileStatusLetter, shellSince } from '../replay/fileVersions';
import type { RunView } from '../replay/runView';
import type { FrameRef } from './frames';

/** The variable of one file in the Files scope (what its children show; `path` names the file to the extension). */
export interface FileVariableValue {
  status: 'modified' | 'added' | 'deleted';
  lines: string;
  changedAt: string;
  path: string;
  text?: string;
  note?: string;
}

/** The name of the entry that marks a shell step: its files may have changed in ways no tool call says. */
export const SHELL_ENTRY = '(shell)';

const STATUS = { M: 'modified', A: 'added', D: 'deleted' } as const;

/** What the Variables view shows beside a file: `M +2 −1 · steps 4, 5` and its marks. */
export function filePreview(v: FileVariableValue): string {
  const letter = v.status === 'added' ? 'A' : v.status === 'deleted' ? 'D' : 'M';
  return `${letter} ${v.lines} · ${v.changedAt}${v.note ? ` · ${v.note}` : ''}`;
}

/** True for the value of a file's variable in the Files scope. */
export function isFileVariable(v: unknown): v is FileVariableValue {
  return typeof v === 'object' && v !== null && typeof (v as FileVariableValue).path === 'string' && 'changedAt' in v;
}

export class FilesScope {
  private readonly histories = new WeakMap<RunView, FileHistory | null>();

  /** The run's file history, or undefined when it calls no tool that changes files. */
  historyOf(view: RunView): FileHistory | undefined {
    let h = this.histories.get(view);
    if (h === undefined) {
      // read from what the run's import stored, else rebuilt from the calls the view holds (asked only then)
      const files = runFilesOf(view.store, view.runId, view.summaries, () => view.ledger);
      // a fork that changes no file itself still shows the files it inherited; a recorder's tracked files show too
      const changes = files.inherits || files.recorded || [...view.toolNames()].some(mayChangeFiles);
      h = changes && view.summaries.length > 0 ? files.history() : null;
      this.histories.set(view, h);
    }
    return h ?? undefined;
  }

  /** The Files scope's value at the checkpoint of `ref`; undefined when the run has no Files scope. */
  value(ref: FrameRef): Record<string, unknown> | undefined {
    const history = this.historyOf(ref.view);
    if (!history) return undefined;
    const out: Record<string, unknown> = {};
    const here = ref.view.summaries[ref.index];
    const shellHere = history.shellMarks.find((m) => m.checkpointIndex === ref.index);
    const shellOpen =
      here?.boundary === 'before_tool_call' && history.shellMarks.find((m) => m.toolCallId === here.toolCallId);
    if (shellHere)
      out[SHELL_ENTRY] = `files may have changed here (shell): step ${shellHere.stepIndex} ${shellHere.toolName}`;
    else if (shellOpen)
      out[SHELL_ENTRY] = `files may change in this step (shell): ${shellOpen.toolName} has not run yet`;
    for (const f of history.filesAt(ref.index)) out[f.displayPath] = fileValue(f, shellSince(history, ref.index, f));
    return out;
  }
}

function fileValue(f: FileAt, shell: readonly { stepIndex: number }[]): FileVariableValue {
  const notes: string[] = [];
  if (f.content === undefined && !f.deleted) notes.push('text not known (edited before a read)');
  if (f.mismatches.length > 0)
    notes.push(`differs from a read at [${f.mismatches.map((m) => m.checkpointIndex).join('], [')}]`);
  if (shell.length > 0) notes.push(`may have changed since (shell, step ${shell.map((s) => s.stepIndex).join(', ')})`);
  const v: FileVariableValue = {
    status: STATUS[fileStatusLetter(f)],
    lines: `+${f.added} −${f.removed}`,
    changedAt: changedAtSteps(f),
    path: f.path,
  };
  if (f.content !== undefined) v.text = f.content;
  if (notes.length > 0) v.note = notes.join('; ');
  return v;
}

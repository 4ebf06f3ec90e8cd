/**
 * Restore Files from Checkpoint…: the files a coding agent's run had made by a checkpoint, written into a new git
 * worktree on a new branch (from the workspace's repository) or into a folder the user picks. A preview lists the
 * files and lines it will write first; in a chosen folder, the files it would write over or delete are listed and
 * written only when the user confirms that list (replay/fileRestore.ts checks it again while writing). VS Code
 * wiring only.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { overwriteLines, overwrites, planSummary, restoreFiles, restorePlan } from '../replay/fileRestore';
import type { ExtensionContextObject } from './context';
import type { FileHistories } from './fileDocuments';

const run = promisify(execFile);

/** `1 file`, `3 files`. */
const files = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;

/** The repository's top folder holding `folder`, or undefined when it is not in one (or git is missing). */
async function gitTop(folder: string): Promise<string | undefined> {
  try {
    return (await run('git', ['-C', folder, 'rev-parse', '--show-toplevel'])).stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A folder name beside the repository that does not exist yet. */
function freshFolder(base: string): string {
  let dir = base;
  for (let n = 2; fs.existsSync(dir); n++) dir = `${base}-${n}`;
  return dir;
}

export async function restoreFilesCommand(
  ctx: ExtensionContextObject,
  histories: FileHistories,
  runId: string,
  checkpointIndex: number,
): Promise<string | undefined> {
  const { history } = histories.get(runId);
  const plan = restorePlan(history, checkpointIndex);
  if (plan.writes.length + plan.deletes.length === 0) {
    void vscode.window.showInformationMessage(
      `Nothing to restore at [${checkpointIndex}]: the run had changed no file it can rebuild by then (${planSummary(plan)}).`,
    );
    return undefined;
  }
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? history.cwd;
  const top = workspace ? await gitTop(workspace) : undefined;
  const picks: (vscode.QuickPickItem & { kind2: 'worktree' | 'folder' })[] = [];
  if (top && workspace)
    picks.push({
      label: '$(git-branch) New git worktree',
      description: `a new branch from HEAD, beside ${path.basename(top)}`,
      kind2: 'worktree',
    });
  picks.push({
    label: '$(folder) Choose a folder…',
    kind2: 'folder',
    description: 'files it would change are listed first',
  });
  const where = await vscode.window.showQuickPick(picks, {
    title: `Restore files as of [${checkpointIndex}]: ${planSummary(plan)}`,
  });
  if (!where) return undefined;

  const listing = [
    ...plan.writes.map((e) => `${e.relPath} — ${e.lines} line${e.lines === 1 ? '' : 's'}`),
    ...plan.deletes.map((e) => `${e.relPath} — deleted by the run`),
    ...plan.unknown.map((rel) => `${rel} — left out: its text is not known`),
  ].join('\n');
  let dir: string;
  let confirmed: string[] = [];
  if (where.kind2 === 'worktree' && top && workspace) {
    // a branch name a person can read: the run id's start, not a UUID cut anywhere
    const short = runId
      .replace(/[^\w-]/g, '')
      .slice(0, 16)
      .replace(/-+$/, '');
    const branch = `restore/${short}-at-${checkpointIndex}`;
    const worktree = freshFolder(path.join(path.dirname(top), `${path.basename(top)}-restore-${checkpointIndex}`));
    const ok = await vscode.window.showInformationMessage(
      `Restore ${files(plan.writes.length + plan.deletes.length)} as of [${checkpointIndex}] into a new worktree?`,
      { modal: true, detail: `Worktree ${worktree} on the new branch ${branch}:\n\n${listing}` },
      'Restore',
    );
    if (ok !== 'Restore') return undefined;
    await run('git', ['-C', top, 'worktree', 'add', '-b', branch, worktree, 'HEAD']);
    // the session's folder may be a folder inside the repository
    dir = path.join(worktree, path.relative(top, workspace));
    // a checkout made just now holds nothing of the user's: its files are HEAD's
    confirmed = overwrites(plan, dir).map((o) => o.relPath);
  } else {
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true,
      canSelectFiles: false,
      canSelectMany: false,
      openLabel: 'Restore Here',
      title: `Restore files as of [${checkpointIndex}] into…`,
    });
    if (!picked?.[0]) return undefined;
    dir = picked[0].fsPath;
    const changed = overwrites(plan, dir);
    const ok = await vscode.window.showWarningMessage(
      changed.length > 0
        ? `Restoring writes over ${files(changed.length)} in ${path.basename(dir)}. Write over them?`
        : `Restore ${files(plan.writes.length + plan.deletes.length)} as of [${checkpointIndex}] into ${path.basename(dir)}?`,
      {
        modal: true,
        detail:
          changed.length > 0
            ? `These files of ${dir} will be changed:\n\n${overwriteLines(changed).join('\n')}\n\nAll it writes:\n${listing}`
            : `${dir}:\n\n${listing}`,
      },
      changed.length > 0 ? 'Write Over Them' : 'Restore',
    );
    if (ok === undefined) return undefined;
    confirmed = changed.map((o) => o.relPath);
  }
  const done = restoreFiles(plan, dir, confirmed);
  ctx.log.info(
    `restored ${files(done.written.length)}, deleted ${done.deleted.length}, as of [${checkpointIndex}] of ${runId} into ${dir}`,
  );
  const open = await vscode.window.showInformationMessage(
    `Restored ${files(done.written.length)}${done.deleted.length > 0 ? `, deleted ${done.deleted.length}` : ''} into ${dir}.`,
    'Open Folder',
  );
  if (open === 'Open Folder') await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(dir), true);
  return dir;
}

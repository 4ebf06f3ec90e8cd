/**
 * `ocdb files <run> [--at <checkpoint>] [<path>]`: the files a coding agent's run changed, rebuilt from its own
 * edit tools (replay/fileHistory.ts) — listed with +/− line counts and the steps that changed them, or one file's
 * text as the run had made it at a checkpoint (at a `before_tool_call`: before that tool ran).
 * Exit codes: 0 done, 1 the file's text is not known, 2 usage, 3 not found.
 */
import { isAbsolute, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { OcdbError } from '../../model';
import { runFileHistory, type FileAt, type FileHistory } from '../../replay/fileHistory';
import { changedAtSteps } from '../../replay/fileVersions';
import { overwriteLines, overwrites, planSummary, restoreFiles, restorePlan } from '../../replay/fileRestore';
import type { CheckpointSummary } from '../../store';
import {
  EXIT,
  STORE_HELP,
  type CliIo,
  STORE_OPTION,
  openStoreFor,
  parseCommandArgs,
  type CliCommand,
} from '../cliCommand';
import { table } from '../format';

/** `[37]`, `37` (the index the UI shows) or a checkpoint id of the run. */
function checkpointOf(checkpoints: CheckpointSummary[], at: string): CheckpointSummary {
  const index = /^\[?(\d+)\]?$/.exec(at.trim());
  const found = index
    ? checkpoints.find((c) => c.index === Number(index[1]))
    : checkpoints.find((c) => c.checkpointId === at);
  if (!found)
    throw new OcdbError(
      'CheckpointNotFound',
      `--at ${at}: no such checkpoint in the run (it has [0]…[${checkpoints.length - 1}], or give a checkpoint id)`,
      { path: 'at' },
    );
  return found;
}

/**
 * `--restore <dir>`: writes the files as of the checkpoint into `dir`; files of `dir` it would write over or delete
 * are listed and need `--yes` (or a yes at the prompt of a terminal). Nothing is written before that.
 */
async function restore(io: CliIo, history: FileHistory, index: number, dir: string, yes: boolean): Promise<number> {
  const target = resolve(io.cwd, dir);
  const plan = restorePlan(history, index);
  io.err(`ocdb files: restoring into ${target}: ${planSummary(plan)}.`);
  for (const rel of plan.unknown) io.err(`  left out (text not known: edited before any read): ${rel}`);
  for (const p of plan.outside) io.err(`  left out (outside the session's folder): ${p}`);
  const changed = overwrites(plan, target);
  if (changed.length > 0) {
    io.err(`ocdb files: ${changed.length} file(s) in ${target} would be changed:`);
    for (const line of overwriteLines(changed)) io.err(`  ${line}`);
    let confirmed = yes;
    if (!confirmed && io.isTty) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        confirmed = /^y(es)?$/i.test((await rl.question('Write over them? [y/N] ')).trim());
      } finally {
        rl.close();
      }
    }
    if (!confirmed) {
      io.err('ocdb files: nothing written; pass --yes to write over the files listed above.');
      return EXIT.rejected;
    }
  }
  const done = restoreFiles(
    plan,
    target,
    changed.map((c) => c.relPath),
  );
  for (const rel of done.written) io.out(`written ${rel}`);
  for (const rel of done.deleted) io.out(`deleted ${rel}`);
  return EXIT.ok;
}

const steps = (f: FileAt): string => changedAtSteps(f).replace(/^steps? /, '');

export const filesCommand: CliCommand = {
  name: 'files',
  summary: "the files a coding agent's run changed, at any checkpoint, rebuilt from its edit tools",
  help: [
    'Usage: ocdb files <runId> [--at <checkpoint>] [<path>] [--json]',
    '       ocdb files <runId> [--at <checkpoint>] --restore <dir> [--yes]',
    '',
    'Rebuilds the files the agent changed from its own edit tools (Claude Code Write/Edit/MultiEdit/NotebookEdit,',
    'Codex apply_patch, Gemini write_file/replace), starting from what a read showed of each file. Without a path:',
    'the changed files with +/- line counts and the steps that changed them, the shell steps that may have changed',
    'files, and the reads that did not match the rebuilt text. With a path: its text at that checkpoint.',
    '  --at <c>    the checkpoint: its index as the UI shows it ([37] or 37) or its id (default: the last).',
    '              At a before_tool_call the files are as they were before that tool ran.',
    '  <path>      absolute, or relative to the folder the agent ran in',
    '  --json      print JSON',
    '  --restore <dir>  write the files as of the checkpoint into <dir> (a new git worktree, say); files of <dir>',
    '              it would write over or delete are listed, and written only with --yes (or a yes at the prompt)',
    '  --yes       confirm writing over the files listed',
    STORE_HELP,
    '',
    'Exit codes: 0 done, 1 the file text is not known (no read showed it before an edit), 2 usage, 3 not found,',
    '4 a restore not confirmed (nothing written).',
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      at: { type: 'string' },
      json: { type: 'boolean' },
      restore: { type: 'string' },
      yes: { type: 'boolean' },
    });
    const [runId, path] = positionals;
    if (!runId || positionals.length > 2 || (values.restore !== undefined && positionals.length > 1)) {
      io.err(`ocdb files: expected a run id and, optionally, a path.\n\n${this.help}`);
      return EXIT.usage;
    }
    const store = openStoreFor(io, values.store, false);
    try {
      const { history, checkpoints } = runFileHistory(store, runId);
      const last = checkpoints.at(-1);
      const at = values.at !== undefined ? checkpointOf(checkpoints, values.at) : last;
      const index = at?.index ?? -1;
      const files = history.filesAt(index);
      const where = at
        ? `[${at.index}] ${at.boundary}${at.toolName ? ` ${at.toolName}` : ''}${at.stepIndex >= 0 ? `, step ${at.stepIndex}` : ''}`
        : 'no checkpoint';
      if (values.restore !== undefined) return await restore(io, history, index, values.restore, values.yes === true);
      if (path !== undefined) {
        const wanted = isAbsolute(path) ? resolve(path) : resolve(history.cwd ?? io.cwd, path);
        const file = files.find((f) => f.path === wanted || f.displayPath === path);
        if (!file) {
          // not found there; where the run changes it later, say so (the user may have picked a checkpoint too early)
          const later = history
            .filesAt(Infinity)
            .find((f) => f.path === wanted || f.displayPath === path)
            ?.changes.find((c) => c.checkpointIndex > index);
          io.err(
            `ocdb files: ${path}: the run had not changed this file at ${where}${later ? ` (it changes it at [${later.checkpointIndex}], step ${later.stepIndex} ${later.toolName})` : ''}`,
          );
          return EXIT.notFound;
        }
        if (values.json) {
          io.out(JSON.stringify(file, null, 2));
          return EXIT.ok;
        }
        if (file.deleted) {
          io.err(`${file.displayPath}: deleted by the run at ${where}`);
          return EXIT.failed;
        }
        if (file.content === undefined) {
          io.err(
            `${file.displayPath}: its text at ${where} is not known — the run edited it before any read showed it (changed at step ${steps(file)}).`,
          );
          return EXIT.failed;
        }
        if (io.write) await io.write(file.content);
        else io.out(file.content.replace(/\n$/, ''));
        return EXIT.ok;
      }
      const shell = history.shellMarks.filter((m) => m.checkpointIndex <= index);
      if (values.json) {
        io.out(
          JSON.stringify(
            {
              runId,
              at: at ? { index: at.index, checkpointId: at.checkpointId, boundary: at.boundary } : null,
              cwd: history.cwd ?? null,
              files: files.map(({ content, original, ...f }) => ({
                ...f,
                contentKnown: content !== undefined,
                originalKnown: original !== undefined,
              })),
              shell,
            },
            null,
            2,
          ),
        );
        return EXIT.ok;
      }
      io.out(`Files changed by ${runId} up to ${where}${history.cwd ? ` (in ${history.cwd})` : ''}:`);
      if (files.length === 0) io.out('  (none by its edit tools)');
      else
        io.out(
          table(
            ['', 'FILE', '+', '-', 'CHANGED AT STEP', 'NOTE'],
            files.map((f) => [
              f.deleted ? 'D' : f.original === '' ? 'A' : 'M',
              f.displayPath,
              `+${f.added}`,
              `-${f.removed}`,
              steps(f),
              [
                f.content === undefined && !f.deleted ? 'text not known (edited before a read)' : '',
                f.mismatches.length > 0
                  ? `differs from a read at [${f.mismatches.map((m) => m.checkpointIndex).join('], [')}]`
                  : '',
              ]
                .filter(Boolean)
                .join('; '),
            ]),
          ),
        );
      for (const m of shell)
        io.out(`  files may have changed here (shell): [${m.checkpointIndex}] step ${m.stepIndex} ${m.toolName}`);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};

/**
 * `ocdb files <run> [--at <checkpoint>] [<path>]`: the files a coding agent's run changed, rebuilt from its own
 * edit tools (replay/fileHistory.ts) — listed with +/− line counts and the steps that changed them, or one file's
 * text as the run had made it at a checkpoint (at a `before_tool_call`: before that tool ran).
 * Exit codes: 0 done, 1 the file's text is not known, 2 usage, 3 not found.
 */
import { isAbsolute, resolve } from 'node:path';
import { OcdbError } from '../../model';
import { runFileHistory, type FileAt } from '../../replay/fileHistory';
import type { CheckpointSummary } from '../../store';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
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

const steps = (f: FileAt): string => [...new Set(f.changes.map((c) => c.stepIndex))].join(', ');

export const filesCommand: CliCommand = {
  name: 'files',
  summary: "the files a coding agent's run changed, at any checkpoint, rebuilt from its edit tools",
  help: [
    'Usage: ocdb files <runId> [--at <checkpoint>] [<path>] [--json]',
    '',
    'Rebuilds the files the agent changed from its own edit tools (Claude Code Write/Edit/MultiEdit/NotebookEdit,',
    'Codex apply_patch, Gemini write_file/replace), starting from what a read showed of each file. Without a path:',
    'the changed files with +/- line counts and the steps that changed them, the shell steps that may have changed',
    'files, and the reads that did not match the rebuilt text. With a path: its text at that checkpoint.',
    '  --at <c>    the checkpoint: its index as the UI shows it ([37] or 37) or its id (default: the last).',
    '              At a before_tool_call the files are as they were before that tool ran.',
    '  <path>      absolute, or relative to the folder the agent ran in',
    '  --json      print JSON',
    STORE_HELP,
    '',
    'Exit codes: 0 done, 1 the file text is not known (no read showed it before an edit), 2 usage, 3 not found.',
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      at: { type: 'string' },
      json: { type: 'boolean' },
    });
    const [runId, path] = positionals;
    if (!runId || positionals.length > 2) {
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
        ? `[${at.index}] ${at.boundary}${at.toolName ? ` ${at.toolName}` : ''}, step ${at.stepIndex}`
        : 'no checkpoint';
      if (path !== undefined) {
        const wanted = isAbsolute(path) ? resolve(path) : resolve(history.cwd ?? io.cwd, path);
        const file = files.find((f) => f.path === wanted || f.displayPath === path);
        if (!file)
          throw new OcdbError('InvalidInput', `${path}: the run had not changed this file at ${where}`, {
            path: 'path',
          });
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

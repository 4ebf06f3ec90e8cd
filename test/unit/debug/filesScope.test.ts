/**
 * The Files scope of the Variables view, on a Claude Code session (Read, two Edits of src/date.ts, an Edit of its
 * test, Bash steps): what a user sees at a checkpoint — the scope right after Checkpoint, each changed file with
 * git's letter, +/− lines and the steps that changed it, its text as the edits made it, the shell mark — and the
 * `fileOfVariable` answer the file commands act on. A fork shows the files it inherited; a run that changes no file
 * has no Files scope.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ForkService } from '../../../src/fork/forkService';
import { importPath } from '../../../src/importers';
import { RunView } from '../../../src/replay/runView';
import { FilesScope, SHELL_ENTRY } from '../../../src/debug/filesScope';
import { fileOfVariable } from '../../../src/debug/fileOfVariable';
import { FILE_VARIABLE_CONTEXT, Variables } from '../../../src/debug/variables';
import { SESSION_FILE, SESSION_ID, tempStore } from '../importers/helpers';

const RUN = `cc-${SESSION_ID}`;

function session() {
  const files = new FilesScope();
  const vars = new Variables(
    (ref) => ref.view.load(ref.index),
    () => undefined,
    () => undefined,
    (ref) => files.value(ref),
  );
  return { vars, files };
}

describe('the Files scope', () => {
  it('lists the files the agent had changed at a checkpoint, with their text, and marks a shell step', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION_FILE);
      const view = new RunView(t.store, RUN);
      const { vars } = session();
      const index = (boundary: string, n: number) =>
        view.summaries.filter((s) => s.toolName === 'Edit' && s.boundary === boundary)[n]?.index as number;

      // before the first Edit ran: the scope is there, the file is not yet changed
      const before = vars.scopes({ view, index: index('before_tool_call', 0) });
      assert.deepEqual(
        before.map((s) => s.name),
        ['Checkpoint', 'Files', 'Messages', 'Runtime Context', 'Tool Ledger', 'Artifacts'],
      );
      const filesBefore = vars.variables((before[1] as { variablesReference: number }).variablesReference);
      assert.deepEqual(
        filesBefore.map((v) => v.name),
        [],
      );

      // after the second Edit: src/date.ts, modified by steps 4 and 5, its text the edits' result
      const after = vars.scopes({ view, index: index('after_tool_call', 1) });
      const files = vars.variables((after[1] as { variablesReference: number }).variablesReference);
      const date = files.find((v) => v.name === 'src/date.ts');
      assert.ok(date, files.map((v) => v.name).join(', '));
      assert.match(date.value, /^M \+3 −1 · steps 4, 5/);
      assert.equal(
        (date as { __vscodeVariableMenuContext?: string }).__vscodeVariableMenuContext,
        FILE_VARIABLE_CONTEXT,
      );
      const fields = vars.variables(date.variablesReference);
      assert.deepEqual(
        fields.map((f) => f.name),
        ['status', 'lines', 'changedAt', 'path', 'text'],
      );
      const text = fields.find((f) => f.name === 'text');
      assert.match(text?.value ?? '', /isLeapYear/);
      assert.deepEqual(
        fileOfVariable({ variablesReference: date.variablesReference }, (r) => vars.container(r) as never),
        {
          runId: RUN,
          checkpointId: view.summaries[index('after_tool_call', 1)]?.checkpointId,
          checkpointIndex: index('after_tool_call', 1),
          path: '/home/dev/projects/calendar-kit/src/date.ts',
        },
      );
      assert.throws(
        () => fileOfVariable({ variablesReference: after[0]?.variablesReference }, (r) => vars.container(r) as never),
        /not a file of the Files scope/,
      );

      // the Bash after the edits: marked, and the file it may have changed says so
      const bash = view.summaries.find(
        (s) => s.toolName === 'Bash' && s.boundary === 'after_tool_call' && s.stepIndex === 6,
      );
      assert.ok(bash);
      const atBash = vars.scopes({ view, index: bash.index });
      const shellFiles = vars.variables((atBash[1] as { variablesReference: number }).variablesReference);
      assert.equal(shellFiles[0]?.name, SHELL_ENTRY);
      assert.match(shellFiles[0]?.value ?? '', /files may have changed here \(shell\): step 6 Bash/);
      assert.match(
        shellFiles.find((v) => v.name === 'src/date.ts')?.value ?? '',
        /may have changed since \(shell, step 6\)/,
      );
    } finally {
      t.close();
    }
  });

  it('a fork that has not changed a file itself shows the files it inherited at its first checkpoint', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION_FILE);
      const source = new RunView(t.store, RUN);
      const second = source.summaries.filter((c) => c.toolName === 'Edit' && c.boundary === 'before_tool_call')[1];
      assert.ok(second);
      const fork = new ForkService(t.store).createReplay(RUN, { fromCheckpointId: second.checkpointId }).runId;
      const view = new RunView(t.store, fork);
      const { vars } = session();
      const scopes = vars.scopes({ view, index: 0 });
      assert.equal(scopes[1]?.name, 'Files');
      const files = vars.variables((scopes[1] as { variablesReference: number }).variablesReference);
      assert.deepEqual(
        files.map((v) => [v.name, v.value]),
        [['src/date.ts', 'M +2 −1 · step 4 (before the fork)']],
      );
    } finally {
      t.close();
    }
  });

  it('a run whose tools change no file has no Files scope', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION_FILE);
      const view = new RunView(t.store, `${RUN}-agent-a7e1c2d`);
      const { vars, files } = session();
      assert.equal(files.historyOf(view), undefined);
      assert.ok(!vars.scopes({ view, index: 2 }).some((s) => s.name === 'Files'));
    } finally {
      t.close();
    }
  });
});

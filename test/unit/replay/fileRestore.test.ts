/**
 * Restoring a coding agent's files as of a checkpoint into a folder: into an empty folder everything is written
 * with no question; into a folder holding other text the files it would write over are listed and nothing is
 * written until confirmed (`--yes`), a later change nobody confirmed stops the restore, a linked folder is never
 * written through; a unified diff of the change is what the hover shows.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { runCli } from '../../../src/cli/main';
import { runFileHistory } from '../../../src/replay/fileHistory';
import { overwrites, restoreFiles, restorePlan } from '../../../src/replay/fileRestore';
import { changesOfCall, lastChange } from '../../../src/replay/fileVersions';
import { unifiedDiff } from '../../../src/replay/lineDiff';
import { SESSION_FILE, SESSION_ID, tempStore } from '../importers/helpers';

const RUN = `cc-${SESSION_ID}`;

describe('restoring files as of a checkpoint', () => {
  it('`ocdb files --restore` writes into an empty folder, and lists what it would write over before --yes', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION_FILE);
      const out: string[] = [];
      const err: string[] = [];
      const io = {
        out: (s: string) => out.push(s),
        err: (s: string) => err.push(s),
        isTty: false,
        env: {},
        cwd: t.dir,
      };
      const cli = async (...args: string[]) => {
        out.length = 0;
        err.length = 0;
        return runCli(['files', RUN, ...args, '--store', `${t.dir}/runs.db`], io);
      };
      const firstEdit = t.store
        .listCheckpoints(RUN)
        .find((c) => c.toolName === 'Edit' && c.boundary === 'after_tool_call');
      assert.ok(firstEdit);

      assert.equal(await cli('--restore', 'wt'), 0);
      assert.deepEqual(out, ['written src/date.ts', 'written test/date.test.ts']);
      const finalDate = fs.readFileSync(path.join(t.dir, 'wt/src/date.ts'), 'utf8');
      assert.match(finalDate, /isLeapYear\(y\) \? 29/);

      // the files as of the first Edit differ from what the folder now holds: listed, nothing written
      assert.equal(await cli('--at', `[${firstEdit.index}]`, '--restore', 'wt'), 4);
      assert.match(err.join('\n'), /1 file\(s\) in .*wt would be changed:\n {2}src\/date\.ts \(overwritten\)/);
      assert.match(err.join('\n'), /nothing written; pass --yes/);
      assert.equal(fs.readFileSync(path.join(t.dir, 'wt/src/date.ts'), 'utf8'), finalDate);

      assert.equal(await cli('--at', `[${firstEdit.index}]`, '--restore', 'wt', '--yes'), 0);
      assert.deepEqual(out, ['written src/date.ts']);
      const { history } = runFileHistory(t.store, RUN);
      assert.equal(
        fs.readFileSync(path.join(t.dir, 'wt/src/date.ts'), 'utf8'),
        history.filesAt(firstEdit.index).find((f) => f.displayPath === 'src/date.ts')?.content,
      );
    } finally {
      t.close();
    }
  });

  it('refuses a change nobody confirmed and never writes through a linked folder', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION_FILE);
      const { history } = runFileHistory(t.store, RUN);
      const plan = restorePlan(history, Infinity);
      const dir = path.join(t.dir, 'mine');
      fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'src/date.ts'), 'my own work\n');
      assert.deepEqual(overwrites(plan, dir), [{ relPath: 'src/date.ts', why: 'differs' }]);
      assert.throws(() => restoreFiles(plan, dir, []), /nobody confirmed: src\/date\.ts \(overwritten\)/);
      assert.equal(fs.readFileSync(path.join(dir, 'src/date.ts'), 'utf8'), 'my own work\n');
      assert.ok(!fs.existsSync(path.join(dir, 'test')), 'nothing written when one file is not confirmed');

      const elsewhere = path.join(t.dir, 'elsewhere');
      fs.mkdirSync(elsewhere);
      const linked = path.join(t.dir, 'linked');
      fs.mkdirSync(linked);
      fs.symlinkSync(elsewhere, path.join(linked, 'src'));
      assert.throws(
        () =>
          restoreFiles(
            plan,
            linked,
            overwrites(plan, linked).map((o) => o.relPath),
          ),
        /a link/,
      );
      assert.deepEqual(fs.readdirSync(elsewhere), []);
    } finally {
      t.close();
    }
  });

  it('the change of an Edit as a short unified diff, with its line numbers', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION_FILE);
      const { history, checkpoints } = runFileHistory(t.store, RUN);
      const edit = checkpoints.find((c) => c.toolName === 'Edit' && c.boundary === 'after_tool_call');
      assert.ok(edit?.toolCallId);
      const [change] = changesOfCall(history, edit.toolCallId);
      assert.equal(change?.file.displayPath, 'src/date.ts');
      const diff = unifiedDiff(change?.before ?? '', change?.after ?? '', { context: 1 });
      assert.match(diff[0] ?? '', /^@@ -\d+,\d+ \+\d+,\d+ @@$/);
      assert.ok(diff.some((l) => l.startsWith('+') && l.includes('isLeapYear')));
      assert.ok(diff.some((l) => l.startsWith('-')));
      assert.deepEqual(lastChange(history, edit.index, 'src/date.ts')?.after, change?.after);
      assert.deepEqual(unifiedDiff('a\nb\nc\n', 'a\nB\nc\n'), ['@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c']);
      assert.deepEqual(unifiedDiff('x\n', 'x\n'), []);
      assert.equal(unifiedDiff('', 'a\nb\nc\nd\n', { maxLines: 3 }).at(-1), '… 2 more lines');
    } finally {
      t.close();
    }
  });
});

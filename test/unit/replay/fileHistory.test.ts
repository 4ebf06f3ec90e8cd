/**
 * The files a coding agent changed, rebuilt at every checkpoint from its own edit tools: a Claude Code session
 * (Read, two Edits, a later Edit of another file), a real Codex rollout's apply_patch, Gemini CLI's write_file /
 * replace, a read that disagrees with the rebuilt text, an edit before any read, and `ocdb files` with `--at`
 * as the UI numbers checkpoints ([n]) or by id, and a path relative to the run's folder or absolute; a fork's
 * files start as its source had made them at the fork point (inherited), its own changes on top.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolCallRecord } from '../../../src/model';
import { fileHistory, runFileHistory, type FileAt } from '../../../src/replay/fileHistory';
import { changedAtSteps } from '../../../src/replay/fileVersions';
import { applyHunks, numberedText, parseApplyPatch } from '../../../src/model/fileEdits';
import type { CheckpointSummary } from '../../../src/store';
import { importPath } from '../../../src/importers';
import { runCli } from '../../../src/cli/main';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { FIXTURES, tempStore } from '../importers/helpers';

const SESSION = `${FIXTURES}/claude-code/7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11.jsonl`;
const RUN = 'cc-7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11';
const CODEX = `${FIXTURES}/codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl`;

const DATE_AFTER = [
  "import { isLeapYear } from './calendar';",
  'const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];',
  'export function parseDate(s: string): Date {',
  "  const [y, m, d] = s.split('-').map(Number);",
  '  const max = m === 2 && isLeapYear(y) ? 29 : DAYS[m - 1];',
  '  if (d > max) throw new RangeError(`invalid day ${d}`);',
  '  return new Date(Date.UTC(y, m - 1, d));',
  '}',
  '',
].join('\n');

/** A run of calls, one checkpoint pair each (before / after), for the hand-made cases. */
function synthetic(calls: { name: string; args: unknown; result?: unknown; error?: unknown }[]) {
  const records: ToolCallRecord[] = [];
  const checkpoints: CheckpointSummary[] = [];
  calls.forEach((c, i) => {
    const toolCallId = `call-${i}`;
    records.push({
      toolCallId,
      toolName: c.name,
      args: c.args,
      argsHash: '0000000000000000',
      ...(c.result !== undefined ? { result: c.result } : {}),
      ...(c.error !== undefined ? { error: c.error } : {}),
      sideEffectLevel: 'write',
      replayPolicy: 'manual_confirm',
      startedAt: i,
      endedAt: i,
    } as ToolCallRecord);
    for (const boundary of ['before_tool_call', 'after_tool_call'] as const)
      checkpoints.push({
        checkpointId: `cp-${checkpoints.length}`,
        runId: 'r',
        index: checkpoints.length,
        boundary,
        stepIndex: i,
        toolCallId,
        toolName: c.name,
      } as CheckpointSummary);
  });
  return fileHistory(checkpoints, records, '/w');
}

describe('files at every checkpoint', () => {
  it('a Claude Code session: the file as its Read and two Edits made it, at each checkpoint', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION);
      const { history, checkpoints } = runFileHistory(t.store, RUN);
      assert.equal(history.cwd, '/home/dev/projects/calendar-kit');
      const firstEdit = checkpoints.find((c) => c.toolName === 'Edit' && c.boundary === 'before_tool_call');
      assert.ok(firstEdit);
      assert.deepEqual(history.filesAt(firstEdit.index), [], 'at the Edit’s before_tool_call the edit has not run');
      const afterFirst = history.filesAt(firstEdit.index + 1);
      assert.deepEqual(
        afterFirst.map((f) => [f.displayPath, f.added, f.removed]),
        [['src/date.ts', 2, 1]],
      );
      const end = history.filesAt(Infinity);
      const date = end.find((f) => f.displayPath === 'src/date.ts');
      assert.equal(date?.content, DATE_AFTER);
      assert.deepEqual(
        date?.changes.map((c) => c.stepIndex),
        [4, 5],
      );
      assert.equal(date?.mismatches.length, 0);
      const test = end.find((f) => f.displayPath === 'test/date.test.ts');
      assert.deepEqual([test?.added, test?.removed], [6, 0]);
      assert.match(test?.content ?? '', /rejects 1900-02-29[\s\S]*accepts 2000-02-29/);
      // every Bash step is marked: what it did to files cannot be known
      assert.deepEqual(
        history.shellMarks.map((m) => m.toolName),
        ['Bash', 'Bash', 'Bash', 'Bash'],
      );
    } finally {
      t.close();
    }
  });

  it("a fork starts from its source's files at the fork point, and its own edits apply on top", async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION);
      const source = runFileHistory(t.store, RUN);
      const edits = source.checkpoints.filter((c) => c.toolName === 'Edit' && c.boundary === 'before_tool_call');
      const [, second] = edits;
      assert.ok(second);
      // forked at the second Edit's before_tool_call: the first Edit is inherited, the second has not run
      const created = new ForkService(t.store).createReplay(RUN, {
        fromCheckpointId: second.checkpointId,
        captured: true,
      });
      const before = runFileHistory(t.store, created.runId);
      const [date] = before.history.filesAt(0);
      assert.equal(date?.displayPath, 'src/date.ts');
      assert.deepEqual(date?.content, source.history.filesAt(second.index)[0]?.content);
      assert.deepEqual(
        date?.changes.map((c) => [c.stepIndex, c.inherited, c.checkpointIndex]),
        [[4, true, -1]],
      );
      assert.doesNotMatch(date?.content ?? '', /import \{ isLeapYear \}/);
      // the fork goes on (its recorded results): the second Edit is its own, on top of the inherited text
      const outcome = await runFork(t.store, created.forkRequestId);
      assert.equal(outcome.divergence, undefined);
      const after = runFileHistory(t.store, created.runId).history.filesAt(Infinity);
      const end = after.find((f) => f.displayPath === 'src/date.ts');
      assert.equal(end?.content, DATE_AFTER);
      assert.equal(end?.mismatches.length, 0);
      assert.deepEqual(
        end?.changes.map((c) => [c.stepIndex, c.inherited === true]),
        [
          [4, true],
          [5, false],
        ],
      );
      assert.equal(changedAtSteps(end as FileAt), 'steps 4 (before the fork), 5');
      assert.deepEqual(
        after.map((f) => [f.displayPath, f.added, f.removed]),
        source.history.filesAt(Infinity).map((f) => [f.displayPath, f.added, f.removed]),
      );
    } finally {
      t.close();
    }
  });

  it('a real Codex rollout: the file its apply_patch added, relative to the session folder', async () => {
    const t = tempStore();
    try {
      const summary = await importPath(t.store, CODEX);
      const { history } = runFileHistory(t.store, summary.runIds[0] as string);
      const files = history.filesAt(Infinity);
      assert.deepEqual(
        files.map((f) => [f.path, f.displayPath, f.content, f.original, f.added]),
        [['/workspace/synthetic-project/gamma.txt', 'gamma.txt', 'synthetic\n', '', 1]],
      );
      assert.deepEqual(
        history.shellMarks.map((m) => m.toolName),
        ['exec_command'],
      );
    } finally {
      t.close();
    }
  });

  it('Gemini write_file then replace; a later read that differs is marked; an edit before any read has no text', () => {
    const h = synthetic([
      { name: 'write_file', args: { file_path: '/w/a.py', content: 'x = 1\ny = 2\n' }, result: 'ok' },
      { name: 'replace', args: { file_path: '/w/a.py', old_string: 'y = 2', new_string: 'y = 3' }, result: 'ok' },
      { name: 'read_file', args: { absolute_path: '/w/a.py' }, result: 'x = 1\ny = 4\n' },
      { name: 'Edit', args: { file_path: '/w/b.ts', old_string: 'a', new_string: 'b\nc' }, result: 'ok' },
      {
        name: 'Edit',
        args: { file_path: '/w/c.ts', old_string: 'q', new_string: 'r' },
        error: { message: 'no match' },
      },
    ]);
    const atReplace = h.filesAt(3);
    assert.equal(atReplace[0]?.content, 'x = 1\ny = 3\n');
    assert.equal(atReplace[0]?.original, '');
    const end = h.filesAt(Infinity);
    const a = end.find((f) => f.displayPath === 'a.py');
    assert.deepEqual(
      a?.mismatches.map((m) => m.checkpointIndex),
      [5],
      'the read at [5] shows other text',
    );
    assert.equal(a?.content, 'x = 1\ny = 4\n', 'from there on the read is the file');
    const b = end.find((f) => f.displayPath === 'b.ts');
    assert.equal(b?.content, undefined);
    assert.deepEqual([b?.added, b?.removed], [2, 1]);
    assert.equal(
      end.find((f) => f.displayPath === 'c.ts'),
      undefined,
      'a failed edit changed nothing',
    );
  });

  it('Claude Code Read output and Codex patch hunks parse as the tools write them', () => {
    assert.deepEqual(numberedText('     1→a\n     2→\n     3→b\n\n<system-reminder>x</system-reminder>'), {
      content: 'a\n\nb\n',
      fromLine: 1,
    });
    assert.equal(numberedText('File does not exist.'), undefined);
    const ops = parseApplyPatch(
      '*** Begin Patch\n*** Update File: src/m.rs\n@@ fn main\n fn main() {\n-    old();\n+    new();\n }\n*** Delete File: x.txt\n*** End Patch',
    );
    assert.deepEqual(
      ops.map((o) => [o.op, o.path]),
      [
        ['patch', 'src/m.rs'],
        ['delete', 'x.txt'],
      ],
    );
    const hunks = ops[0]?.op === 'patch' ? ops[0].hunks : [];
    assert.equal(applyHunks('use a;\nfn main() {\n    old();\n}\n', hunks), 'use a;\nfn main() {\n    new();\n}\n');
    assert.equal(applyHunks('fn other() {}\n', hunks), undefined);
  });

  it('`ocdb files` lists the changed files and prints one as of a checkpoint ([n], id, relative or absolute path)', async () => {
    const t = tempStore();
    try {
      await importPath(t.store, SESSION);
      const out: string[] = [];
      const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s), isTty: false, env: {}, cwd: '/' };
      const cli = async (...args: string[]) => {
        out.length = 0;
        const code = await runCli(['files', RUN, ...args, '--store', `${t.dir}/runs.db`], io);
        return { code, text: out.join('\n') };
      };
      const list = await cli();
      assert.equal(list.code, 0);
      assert.match(list.text, /M\s+src\/date\.ts\s+\+3\s+-1\s+4, 5/);
      assert.match(list.text, /files may have changed here \(shell\): \[\d+\] step \d+ Bash/);
      assert.deepEqual(await cli('src/date.ts'), { code: 0, text: DATE_AFTER.replace(/\n$/, '') });
      assert.deepEqual(await cli('/home/dev/projects/calendar-kit/src/date.ts'), {
        code: 0,
        text: DATE_AFTER.replace(/\n$/, ''),
      });
      const cps = t.store.listCheckpoints(RUN);
      const edit = cps.find((c) => c.toolName === 'Edit' && c.boundary === 'after_tool_call');
      assert.ok(edit);
      const byIndex = await cli('--at', `[${edit.index}]`, 'src/date.ts');
      assert.match(byIndex.text, /const max = m === 2/);
      assert.doesNotMatch(byIndex.text, /import \{ isLeapYear \}/, 'the second Edit has not run yet');
      assert.deepEqual(await cli('--at', edit.checkpointId, 'src/date.ts'), byIndex);
      const before = await cli('--at', String(edit.index - 1), 'src/date.ts');
      assert.equal(before.code, 3, 'not found (not a usage error)');
      assert.match(
        before.text,
        new RegExp(
          `had not changed this file at \\[\\d+\\] before_tool_call Edit, step 4 \\(it changes it at \\[${edit.index}\\], step 4 Edit\\)`,
        ),
      );
      // the run's end (agent_end) has no step of its own: none is printed
      assert.match(list.text, /up to \[\d+\] agent_end \(in /);
      assert.match((await cli('--at', '[999]')).text, /no such checkpoint/);
    } finally {
      t.close();
    }
  });
});

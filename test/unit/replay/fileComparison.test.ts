/**
 * The files two runs left differently: a Claude Code session and a fork of it made before its second Edit (the
 * fork inherits the first Edit, and has not run on). `ocdb diff` lists them; each side's text is the file at that
 * run's end, or, where a run did not change it, the file as it was before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../../../src/cli/main';
import { ForkService } from '../../../src/fork/forkService';
import { importPath } from '../../../src/importers';
import { compareRunFiles } from '../../../src/replay/fileComparison';
import { runFileHistory } from '../../../src/replay/fileHistory';
import { FIXTURES, tempStore } from '../importers/helpers';

const SESSION = `${FIXTURES}/claude-code/7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11.jsonl`;
const RUN = 'cc-7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11';

test('the files a run and its fork left differently, listed by ocdb diff', async () => {
  const t = tempStore();
  try {
    await importPath(t.store, SESSION);
    const source = runFileHistory(t.store, RUN);
    const second = source.checkpoints.filter((c) => c.toolName === 'Edit' && c.boundary === 'before_tool_call')[1];
    assert.ok(second);
    const fork = new ForkService(t.store).createReplay(RUN, { fromCheckpointId: second.checkpointId }).runId;
    const files = compareRunFiles(t.store, RUN, fork);
    assert.deepEqual(
      files.map((f) => f.displayPath),
      ['src/date.ts', 'test/date.test.ts'],
    );
    const [date, tests] = files;
    const end = source.history.filesAt(Infinity);
    assert.equal(date?.leftText, end.find((f) => f.displayPath === 'src/date.ts')?.content);
    assert.equal(date?.rightText, source.history.filesAt(second.index)[0]?.content, 'the fork: the first Edit only');
    // the fork never changed the test file: its side is the file as the session's Read showed it
    assert.equal(tests?.right, undefined);
    assert.equal(tests?.rightText, end.find((f) => f.displayPath === 'test/date.test.ts')?.original);
    assert.notEqual(tests?.rightText, tests?.leftText);
    // a run compared with itself: nothing differs
    assert.deepEqual(compareRunFiles(t.store, RUN, RUN), []);

    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s), isTty: false, env: {}, cwd: '/' };
    assert.equal(await runCli(['diff', RUN, fork, '--store', `${t.dir}/runs.db`], io), 0);
    const text = out.join('\n');
    assert.match(text, /Files that differ at the end \(2\):/);
    assert.match(text, /src\/date\.ts {2}\(\+3 −1 ↔ \+2 −1\)/);
    assert.match(text, /test\/date\.test\.ts {2}\(\+6 −0 ↔ unchanged\)/);
  } finally {
    t.close();
  }
});

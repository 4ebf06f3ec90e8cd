/**
 * `run.trackFiles`: a real agent process, recorded with the SDK, writes, rewrites and deletes files through its tools
 * in a git repository and in a plain folder. The run's Files at each checkpoint are those files as the tools left
 * them (at a before_tool_call, before that tool ran), each version stored once and each text once by content; an
 * excluded file is not recorded.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { runFileHistory } from '../../../src/replay/fileHistory';
import { fileStatusLetter } from '../../../src/replay/fileVersions';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';

const AGENT = path.join(__dirname, '../../fixtures/trackFilesAgent.ts');

function runAgent(store: string, runId: string, dir: string): void {
  const r = spawnSync(process.execPath, ['--import', 'tsx', AGENT, store, runId, dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /done/);
}

function folder(git: boolean): string {
  const dir = path.join(tmpDir(), 'project');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'README.md'), '# demo\n');
  fs.writeFileSync(path.join(dir, 'old.txt'), 'old\n');
  if (git) {
    const g = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
    g('init', '-q');
    g('add', '-A');
    g('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start');
  }
  return dir;
}

for (const git of [true, false]) {
  test(`trackFiles in ${git ? 'a git repository' : 'a plain folder (a walk)'}: the files at each checkpoint, stored once`, () => {
    const dir = folder(git);
    const storePath = path.join(tmpDir(), 'runs.db');
    runAgent(storePath, 'tracked', dir);
    const store = openRunStore(storePath, { create: false });
    try {
      const { history, checkpoints } = runFileHistory(store, 'tracked');
      assert.equal(history.cwd, dir);
      const end = history.filesAt(Infinity);
      assert.deepEqual(
        end.map((f) => [fileStatusLetter(f), f.displayPath, f.added, f.removed]),
        [
          ['D', 'old.txt', 0, 1],
          ['M', 'README.md', 4, 0],
          ['A', 'src/copy.ts', 1, 0],
          ['A', 'src/new.ts', 1, 0],
        ],
      );
      assert.equal(end[1]?.content, '# demo\n\nhello, world\n\nMore.\n');
      // at the second README save's before_tool_call: the first save's text (its own tools are no edit tools the
      // history knows: what is there comes from the tracked versions)
      const calls = store.listToolCalls('tracked');
      const second = calls.filter((c) => c.toolName === 'save_file')[4];
      const before = checkpoints.find((c) => c.toolCallId === second?.toolCallId && c.boundary === 'before_tool_call');
      assert.ok(before);
      assert.equal(
        history.filesAt(before.index).find((f) => f.displayPath === 'README.md')?.content,
        '# demo\n\nhello, world\n',
      );
      // every version once: README before, twice after; old.txt before and deleted; the two new files. The text the
      // two new files share is one blob.
      const versions = store.listFileVersions('tracked');
      assert.deepEqual(
        versions.map((v) => [path.relative(dir, v.path), v.checkpointIndex < 0 ? 'before' : 'after']),
        [
          ['README.md', 'before'],
          ['README.md', 'after'],
          ['src/new.ts', 'after'],
          ['src/copy.ts', 'after'],
          ['README.md', 'after'],
          ['old.txt', 'before'],
          ['old.txt', 'after'],
        ],
      );
      const texts = versions.map((v) => v.contentHash).filter((h) => h !== undefined);
      assert.equal(new Set(texts).size, texts.length - 1, 'the text of src/new.ts and src/copy.ts stored once');
    } finally {
      store.close();
    }
  });
}

/**
 * An imported session's files, rebuilt once by its import and stored: on the real sessions of test/fixtures/importers
 * (Claude Code, with its forks and subagents; Codex; Gemini CLI), what the store gives back is at every checkpoint what
 * rebuilding the run from its tool calls gives — the files, their texts, counts, changes, mismatches and shell marks —
 * and reading it reads no tool call. A session that grew keeps what it had stored and adds the new versions; a store
 * imported before (no stored files) still answers by rebuilding; a fork made by the debugger starts from its stored
 * source. On SQLite and PostgreSQL (OCDB_TEST_ENGINE).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import { rebuiltFileHistory, runFileHistory, type FileHistory } from '../../../src/replay/fileHistory';
import { openRunStore, type RunStore } from '../../../src/store';
import { tmpLocation } from '../../helpers/engines';
import { noCalls } from '../../helpers/noCalls';
import { FIXTURES, SESSION_FILE, SESSION_ID } from '../importers/helpers';

const SESSIONS = [
  SESSION_FILE,
  path.join(FIXTURES, 'claude-code-real', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl'),
  path.join(FIXTURES, 'claude-code-real', 'compaction', 'dag_compact_after_rewind.jsonl'),
  path.join(FIXTURES, 'claude-code-real', 'sidechain-2.0', '88a8d761-7b9a-4bf1-a8ca-c1febe6bf358.jsonl'),
  path.join(FIXTURES, 'claude-code-real', 'spotter-subagent', 'agent-a2898e3.jsonl'),
  path.join(FIXTURES, 'codex', 'rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl'),
  path.join(FIXTURES, 'codex', 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl'),
  path.join(FIXTURES, 'gemini', 'session-2025-10-05T07-11-eefc44a3.jsonl'),
  path.join(FIXTURES, 'gemini', 'session-2025-10-05T07-11-eefc44a3.json'),
];
const RUN = 'cc-7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11';

/** Both histories at every checkpoint (and before the first, and at the end), shell marks and folder alike. */
function assertSame(stored: FileHistory, rebuilt: FileHistory, count: number, what: string): number {
  assert.equal(stored.cwd, rebuilt.cwd, `${what}: folder`);
  assert.deepStrictEqual(stored.shellMarks, rebuilt.shellMarks, `${what}: shell marks`);
  let files = 0;
  for (const i of [-1, ...Array.from({ length: count }, (_, k) => k), Infinity]) {
    const want = rebuilt.filesAt(i);
    assert.deepStrictEqual(stored.filesAt(i), want, `${what}: the files at [${i}]`);
    files = Math.max(files, want.length);
  }
  return files;
}

function allRuns(store: RunStore): string[] {
  return store.listRuns({ limit: 10_000 }).runs.map((r) => r.runId);
}

describe('an imported session’s files, stored by its import', () => {
  it('read back, they are what rebuilding the run gives, at every checkpoint of every real session', async () => {
    const store = openRunStore(tmpLocation());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-rebuilt-'));
    try {
      let files = 0;
      let shells = 0;
      let mismatches = 0;
      let runs = 0;
      // the leap-year session with its first Edit's old text not in the file: that Edit disagrees (a mismatch), the
      // file's text is not known until a read shows it again
      const otherId = '7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c99';
      const lines = fs.readFileSync(SESSION_FILE, 'utf8').replaceAll(SESSION_ID, otherId).split('\n');
      const firstEdit = lines.findIndex((l) => l.includes('"name":"Edit"'));
      lines[firstEdit] = (lines[firstEdit] as string).replace('"old_string":"', '"old_string":"// not in the file\\n');
      fs.writeFileSync(path.join(dir, `${otherId}.jsonl`), lines.join('\n'));
      for (const file of [...SESSIONS, path.join(dir, `${otherId}.jsonl`)]) {
        const result = await importPath(store, file);
        assert.equal(result.files[0]?.outcome, 'imported', `${file}: ${result.files[0]?.reason}`);
      }
      for (const runId of allRuns(store)) {
        assert.ok(store.getRebuiltFiles(runId), `${runId}: its import stored its files`);
        const checkpoints = store.listCheckpoints(runId);
        const stored = runFileHistory(noCalls(store), runId).history;
        const rebuilt = rebuiltFileHistory(store, runId);
        files += assertSame(stored, rebuilt, checkpoints.length, runId);
        shells += rebuilt.shellMarks.length;
        mismatches += rebuilt.filesAt(Infinity).reduce((n, f) => n + f.mismatches.length, 0);
        runs++;
      }
      // the fixtures hold edits, shell steps and a read that disagrees: the comparison is not of empty histories
      assert.ok(runs >= SESSIONS.length, `${runs} runs`);
      assert.ok(files >= 3, `${files} files`);
      assert.ok(shells > 0, 'shell steps');
      assert.ok(mismatches > 0, 'an edit that disagreed with the rebuilt text');
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a session that grew keeps its stored versions and adds the new ones; a second import adds nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-rebuilt-'));
    const store = openRunStore(tmpLocation());
    try {
      const lines = fs.readFileSync(SESSION_FILE, 'utf8').split(/(?<=\n)/);
      const file = path.join(dir, path.basename(SESSION_FILE));
      // up to just after the first Edit's result: the later Edits and the Read that checks them come with the rest
      const cut = lines.findIndex((l) => l.includes('"tool_use_id"') && l.includes('date.ts has been updated')) + 1;
      assert.ok(cut > 0 && cut < lines.length);
      fs.writeFileSync(file, lines.slice(0, cut).join(''));
      await importPath(store, file);
      const before = store.getRebuiltFiles(RUN);
      assert.ok(before && before.snapshots.length > 0);
      assertSame(
        runFileHistory(store, RUN).history,
        rebuiltFileHistory(store, RUN),
        store.listCheckpoints(RUN).length,
        'first part',
      );

      fs.appendFileSync(file, lines.slice(cut).join(''));
      const grown = await importPath(store, file);
      assert.equal(grown.files[0]?.continued, true, grown.files[0]?.reason);
      const after = store.getRebuiltFiles(RUN);
      assert.ok(after);
      // what was final stays as stored; versions were added after it
      const kept = (h: typeof before) => h.snapshots.filter((s) => s.checkpointIndex < before.through);
      assert.deepStrictEqual(kept(after), kept(before));
      assert.ok(after.snapshots.length > kept(before).length, 'new versions stored');
      const count = store.listCheckpoints(RUN).length;
      assertSame(runFileHistory(noCalls(store), RUN).history, rebuiltFileHistory(store, RUN), count, 'grown');

      const again = await importPath(store, file);
      assert.equal(again.files[0]?.outcome, 'skipped');
      assert.deepStrictEqual(store.getRebuiltFiles(RUN), after);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a run imported before its files were stored is rebuilt when asked; a fork starts from its source’s stored files', async () => {
    const location = tmpLocation();
    const store = openRunStore(location);
    try {
      await importPath(store, SESSION_FILE);
      const stored = runFileHistory(store, RUN).history;
      const count = store.listCheckpoints(RUN).length;

      // a fork at the checkpoint after the first Edit, by the debugger: inherits the stored files there
      const edit = store.listCheckpoints(RUN).find((c) => c.toolName === 'Edit' && c.boundary === 'after_tool_call');
      assert.ok(edit);
      const created = new ForkService(store).createReplay(RUN, { fromCheckpointId: edit.checkpointId, captured: true });
      await runFork(store, created.forkRequestId);
      const forkCount = store.listCheckpoints(created.runId).length;
      const inherited = assertSame(
        runFileHistory(store, created.runId).history,
        rebuiltFileHistory(store, created.runId),
        forkCount,
        'fork',
      );
      assert.ok(inherited >= 1, 'the fork inherits the edited file');

      // as a store imported before: nothing stored, the files rebuilt from the calls — the same
      store.putRebuiltFiles(RUN, undefined);
      assert.equal(store.getRebuiltFiles(RUN), undefined);
      assertSame(runFileHistory(store, RUN).history, stored, count, 'rebuilt when asked');
      assertSame(
        runFileHistory(store, created.runId).history,
        rebuiltFileHistory(store, created.runId),
        forkCount,
        'fork of a rebuilt source',
      );
    } finally {
      store.close();
    }
  });
});

/**
 * An imported session's stored files travel with it: real sessions of test/fixtures/importers (Claude Code with a
 * fork and a sub-agent, Codex, Gemini CLI) imported into a local SQLite file, pushed with `ocdb push` to a team store
 * (another SQLite file, or under OCDB_TEST_ENGINE=postgres a PostgreSQL schema) and pulled back with `ocdb pull`
 * into a fresh SQLite file. On both copies the run holds its file rows as the source does, the files read back
 * without reading a tool call are the source's at every checkpoint, and `ocdb files --at` a late checkpoint prints
 * what it prints on the source. A run copied before its rows travelled gets them when pushed again. An `ocdb export`
 * does not carry them (the export is the DebugRun; the rows are what its tool calls rebuild): loaded back, the run
 * answers the same by rebuilding.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { importPath } from '../../../src/importers';
import { runFileHistory } from '../../../src/replay/fileHistory';
import { openRunStore, type RunStore } from '../../../src/store';
import { tmpLocation } from '../../helpers/engines';
import { noCalls } from '../../helpers/noCalls';
import { tmpDir } from '../../helpers/tmp';
import { FIXTURES, SESSION_FILE } from '../importers/helpers';

const SESSIONS = [
  SESSION_FILE,
  path.join(FIXTURES, 'claude-code-real', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl'),
  path.join(FIXTURES, 'claude-code-real', 'compaction', 'dag_compact_after_rewind.jsonl'),
  path.join(FIXTURES, 'claude-code-real', 'spotter-subagent', 'agent-a2898e3.jsonl'),
  path.join(FIXTURES, 'codex', 'rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl'),
  path.join(FIXTURES, 'gemini', 'session-2025-10-05T07-11-eefc44a3.jsonl'),
];
/** The leap-year session: Edits of src/date.ts, a shell step, a Read that checks them. */
const RUN = 'cc-7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11';

const dir = tmpDir('ocdb-copied-files-');
const local = path.join(dir, 'local.db');

async function ocdb(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), isTty: false, env: {}, cwd: dir };
  const code = await runCli(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function withStore<T>(location: string, fn: (store: RunStore) => T): T {
  const store = openRunStore(location, { create: false });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** Every run's stored rows and its files at every checkpoint, as `store` reads them back. */
function filesOf(store: RunStore, runIds: readonly string[], readCalls: boolean) {
  return runIds.map((runId) => {
    const { history, checkpoints } = runFileHistory(readCalls ? store : noCalls(store), runId);
    return {
      runId,
      rows: store.getRebuiltFiles(runId),
      at: [-1, ...checkpoints.map((c) => c.index), Infinity].map((i) => history.filesAt(i)),
      shellMarks: history.shellMarks,
    };
  });
}

describe('an imported session’s stored files, copied with the run', () => {
  let runIds: string[] = [];
  let source: ReturnType<typeof filesOf>;
  let late = 0;

  before(async () => {
    const store = openRunStore(local, { create: true });
    try {
      for (const file of SESSIONS) {
        const r = await importPath(store, file);
        assert.equal(r.files[0]?.outcome, 'imported', `${file}: ${r.files[0]?.reason}`);
      }
      runIds = store.listRuns({ limit: 1000 }).runs.map((r) => r.runId);
      source = filesOf(store, runIds, false);
      // the last checkpoint after the leap-year session's last Edit: its files are the end's
      const cps = store.listCheckpoints(RUN);
      late = cps.filter((c) => c.toolName === 'Edit' && c.boundary === 'after_tool_call').at(-1)?.index ?? -1;
      assert.ok(late > 0);
    } finally {
      store.close();
    }
    // what is compared is not empty: files with texts, a fork's inherited ones, shell steps
    assert.ok(
      source.every((s) => s.rows),
      'every imported run stored its files',
    );
    const withTexts = source.filter((s) => s.at.at(-1)?.some((f) => f.content !== undefined)).map((s) => s.runId);
    assert.ok(withTexts.length >= 2, `runs whose files have texts: ${withTexts.join(', ')}`);
    assert.ok(
      source.some((s) => s.rows?.snapshots.some((x) => x.checkpointIndex === -1)),
      'a fork inherits files',
    );
    assert.ok(
      source.some((s) => s.shellMarks.length > 0),
      'shell steps',
    );
  });

  it('push to the team store and pull back: the rows come along, read back as the source reads them', async () => {
    const team = tmpLocation('team.db');
    const back = path.join(dir, 'back.db');
    const push = await ocdb(['push', ...runIds, '--to', team, '--store', local]);
    assert.equal(push.code, EXIT.ok, push.err);
    const pull = await ocdb(['pull', ...runIds, '--from', team, '--store', back]);
    assert.equal(pull.code, EXIT.ok, pull.err);
    for (const [where, location] of [
      ['team', team],
      ['pulled back', back],
    ] as const) {
      const copied = withStore(location, (s) => filesOf(s, runIds, false));
      for (const [i, c] of copied.entries()) {
        const want = source[i] as (typeof source)[number];
        assert.deepStrictEqual(c.rows, want.rows, `${where} ${c.runId}: its stored rows`);
        assert.deepStrictEqual(c.at, want.at, `${where} ${c.runId}: the files at every checkpoint`);
        assert.deepStrictEqual(c.shellMarks, want.shellMarks, `${where} ${c.runId}: shell marks`);
      }
      for (const args of [
        ['files', RUN, '--at', `[${late}]`],
        ['files', RUN, '--at', `[${late}]`, 'src/date.ts'],
      ]) {
        const mine = await ocdb([...args, '--store', local]);
        const theirs = await ocdb([...args, '--store', location]);
        assert.equal(mine.code, EXIT.ok, mine.err);
        assert.deepStrictEqual(theirs, mine, `${where}: ocdb ${args.join(' ')}`);
      }
    }
  });

  it('a run copied before its rows travelled gets them when pushed again', async () => {
    const team = tmpLocation('team2.db');
    assert.equal((await ocdb(['push', RUN, '--to', team, '--store', local])).code, EXIT.ok);
    withStore(team, (s) => s.putRebuiltFiles(RUN, undefined));
    const again = await ocdb(['push', RUN, '--to', team, '--store', local]);
    assert.equal(again.code, EXIT.ok, again.err);
    assert.match(again.out, /unchanged/);
    const want = source.find((s) => s.runId === RUN);
    assert.deepStrictEqual(
      withStore(team, (s) => s.getRebuiltFiles(RUN)),
      want?.rows,
    );
  });

  it('an export loaded back answers the same, rebuilding from its tool calls', async () => {
    const file = path.join(dir, 'run.json');
    const into = path.join(dir, 'loaded.db');
    assert.equal((await ocdb(['export', RUN, '--out', file, '--store', local])).code, EXIT.ok);
    assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /rebuiltFiles|file_versions/);
    const load = await ocdb(['load', file, '--store', into]);
    assert.equal(load.code, EXIT.ok, load.err);
    const loaded = withStore(into, (s) => filesOf(s, [RUN], true))[0];
    const want = source.find((s) => s.runId === RUN);
    assert.equal(loaded?.rows, undefined, 'nothing stored: rebuilt when asked');
    assert.deepStrictEqual(loaded?.at, want?.at);
  });
});

/**
 * `ocdb push` / `ocdb pull` as a user runs them (in-process runCli): from a local SQLite file to a team store —
 * another SQLite file, or under OCDB_TEST_ENGINE=postgres a schema of the PostgreSQL test server — and back: a fork goes with its
 * parent and its settled fork request, pushing twice copies nothing and says so, push then pull gives identical
 * exports, a run that exists with other content is an error naming it with nothing copied, a run still being
 * recorded is refused, a crashed one travels as crashed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { writeDemoStore } from '../../../src/demo';
import { openRecorder } from '../../../src/recorder';
import { storeLocationLabel } from '../../../src/model';
import { openRunStore, writeRunExport, type RunStore } from '../../../src/store';
import { testContext } from '../../helpers/context';
import { tmpLocation } from '../../helpers/engines';
import { tmpDir } from '../../helpers/tmp';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli.js');

const dir = tmpDir('ocdb-transfer-');
const local = path.join(dir, 'local.db');
let forkRunId: string;
let forkRequestId: string;

async function ocdb(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), isTty: false, env, cwd: dir };
  const code = await runCli(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function exportText(store: RunStore, runId: string): string {
  const chunks: string[] = [];
  writeRunExport(store, runId, (c) => chunks.push(c));
  return chunks.join('\n');
}

/** The store as ocdb prints it (a URL without its password), as a regular expression. */
function labelRe(location: string): string {
  const shown = withStore(location, (s) => storeLocationLabel(s.path));
  return shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function withStore<T>(file: string, fn: (store: RunStore) => T): T {
  const store = openRunStore(file, { create: false });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

describe('ocdb push / pull', () => {
  before(async () => {
    const store = openRunStore(local, { create: true });
    writeDemoStore(store);
    store.close();
    const fork = await ocdb([
      'fork',
      'demo-coding-fix',
      '#3',
      '--policy',
      '*=reuse_result',
      '--run',
      '--json',
      '--store',
      local,
    ]);
    assert.equal(fork.code, EXIT.ok, fork.err);
    const body = JSON.parse(fork.out) as { runId: string; forkRequestId: string; outcome: { status: string } };
    assert.equal(body.outcome.status, 'completed');
    forkRunId = body.runId;
    forkRequestId = body.forkRequestId;
  });

  it('pushes a fork after its parent, with its fork request; the exports are identical', async () => {
    const shared = tmpLocation('shared-1.db');
    const r = await ocdb(['push', forkRunId, '--to', shared, '--store', local]);
    assert.equal(r.code, EXIT.ok, r.err);
    const lines = r.out.split('\n');
    assert.match(lines[0] ?? '', /^copied demo-coding-fix \(code-fixer, \d+ checkpoints\) \[ancestor\]$/);
    assert.match(lines[1] ?? '', new RegExp(`^copied ${forkRunId} \\(fork of demo-coding-fix, \\d+ checkpoints\\)$`));
    assert.match(lines.at(-1) ?? '', new RegExp(`^2 runs copied to ${labelRe(shared)}, 1 fork request\\.$`));
    withStore(shared, (target) =>
      withStore(local, (source) => {
        assert.deepEqual(
          target.listRuns().runs.map((x) => x.runId),
          source
            .listRuns()
            .runs.map((x) => x.runId)
            .filter((id) => id === forkRunId || id === 'demo-coding-fix'),
        );
        for (const id of ['demo-coding-fix', forkRunId]) assert.equal(exportText(target, id), exportText(source, id));
        assert.deepEqual(target.getForkRequest(forkRequestId), source.getForkRequest(forkRequestId));
        assert.equal(target.getForkRequest(forkRequestId).status, 'completed');
      }),
    );
  });

  it('pushing twice copies nothing the second time and says so', async () => {
    const shared = tmpLocation('shared-2.db');
    assert.equal((await ocdb(['push', forkRunId, '--to', shared, '--store', local])).code, EXIT.ok);
    const seq = withStore(shared, (s) => s.changeSeq());
    const again = await ocdb(['push', forkRunId, 'demo-coding-fix', '--to', shared, '--store', local]);
    assert.equal(again.code, EXIT.ok, again.err);
    assert.match(again.out, /unchanged demo-coding-fix: already in the target with the same content/);
    assert.match(again.out, new RegExp(`Nothing to copy: all 2 runs are already in ${labelRe(shared)}\\.$`));
    assert.equal(
      withStore(shared, (s) => s.changeSeq()),
      seq,
      'the target store was not written',
    );
  });

  it('push then pull into a fresh store gives identical exports (the built ocdb, OCDB_STORE as --store)', () => {
    assert.ok(fs.existsSync(CLI), `${CLI} missing: run npm run build`);
    const shared = tmpLocation('shared-3.db');
    const back = path.join(dir, 'back.db');
    const run = (args: string[], store: string) =>
      spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, OCDB_STORE: store } });
    const push = run(['push', forkRunId, 'demo-research-crashed', '--to', shared], local);
    assert.equal(push.status, 0, push.stderr);
    const pull = run(['pull', forkRunId, 'demo-research-crashed', '--from', shared], back);
    assert.equal(pull.status, 0, pull.stderr);
    assert.match(pull.stdout, /3 runs copied to .*back\.db, 1 fork request\./);
    for (const id of ['demo-coding-fix', forkRunId, 'demo-research-crashed']) {
      const a = run(['export', id], local);
      const b = run(['export', id], back);
      assert.equal(a.status, 0, a.stderr);
      assert.equal(b.stdout, a.stdout, `${id}: the export after push and pull is the original's`);
    }
    withStore(back, (s) => assert.equal(s.getRun('demo-research-crashed').crashed, true, 'still shown crashed'));
  });

  it('a run in the target with different content is an error naming it, and nothing is copied', async () => {
    const shared = tmpLocation('shared-4.db');
    const changed = withStore(local, (s) => s.exportRun('demo-coding-fix'));
    changed.metadata = { ...changed.metadata, editedElsewhere: true };
    const target = openRunStore(shared, { create: true });
    target.loadRun(changed);
    const seq = target.changeSeq();
    target.close();
    const r = await ocdb(['push', 'demo-support-escalation', forkRunId, '--to', shared, '--store', local]);
    assert.equal(r.code, EXIT.failed);
    assert.match(
      r.err,
      new RegExp(
        `Run demo-coding-fix is in ${labelRe(shared)} with different content than in .*local\\.db; nothing was copied`,
      ),
    );
    withStore(shared, (s) => {
      assert.equal(s.changeSeq(), seq);
      assert.equal(s.hasRun('demo-support-escalation'), false, 'the run named before the conflict was not copied');
      assert.equal(s.hasRun(forkRunId), false);
    });
  });

  it('refuses a run still being recorded; unknown ids and one store are errors', async () => {
    // the push below runs in this process, in this turn: the run's start is committed as it returns
    const recorder = openRecorder({ store: local, fork: false, heartbeatMs: 0, groupCommit: false });
    const live = recorder.startRun({ agentId: 'live-agent', runtimeContext: testContext() });
    try {
      const shared = tmpLocation('shared-5.db');
      const r = await ocdb(['push', live.runId, '--to', shared, '--store', local]);
      assert.equal(r.code, EXIT.usage);
      assert.match(
        r.err,
        new RegExp(`Run ${live.runId} in .*local\\.db is still being recorded by process ${process.pid}`),
      );
      const missing = await ocdb(['pull', 'no-such-run', '--from', local, '--store', shared]);
      assert.equal(missing.code, EXIT.notFound);
      assert.match(missing.err, /no-such-run/);
      const same = await ocdb(['push', 'demo-coding-fix', '--to', local, '--store', local]);
      assert.equal(same.code, EXIT.usage);
      assert.match(same.err, /--to names the same store as --store/);
      const usage = await ocdb(['push', 'demo-coding-fix', '--store', local]);
      assert.equal(usage.code, EXIT.usage);
      assert.match(usage.err, /--to <store>/);
    } finally {
      live.end();
      recorder.close();
    }
  });

  it('--with-forks copies the forks of a named run after it', async () => {
    const shared = tmpLocation('shared-6.db');
    const r = await ocdb(['push', 'demo-support-refund', '--with-forks', '--to', shared, '--store', local]);
    assert.equal(r.code, EXIT.ok, r.err);
    assert.match(
      r.out,
      /copied demo-support-refund \(support-desk.*\n.*copied demo-support-refund-auditor \(fork of demo-support-refund, \d+ checkpoints\) \[fork\]/,
    );
    withStore(shared, (s) => assert.equal(s.getRun('demo-support-refund-auditor').parentRunId, 'demo-support-refund'));
  });

  it('--with-forks skips a fork still waiting for its runner, and copies the settled one', async () => {
    const pending = await ocdb([
      'fork',
      'demo-coding-fix',
      '#3',
      '--policy',
      '*=reuse_result',
      '--json',
      '--store',
      local,
    ]);
    assert.equal(pending.code, EXIT.ok, pending.err);
    const waiting = (JSON.parse(pending.out) as { runId: string }).runId;
    const shared = tmpLocation('shared-7.db');
    const r = await ocdb(['push', 'demo-coding-fix', '--with-forks', '--to', shared, '--store', local]);
    assert.equal(r.code, EXIT.ok, r.err);
    assert.match(r.out, new RegExp(`skipped ${waiting}: still being recorded`));
    assert.match(r.out, new RegExp(`copied ${forkRunId} \\(fork of demo-coding-fix`));
    assert.match(r.out, new RegExp(`2 runs copied to ${labelRe(shared)}, 1 skipped, 1 fork request\\.`));
    withStore(shared, (s) => assert.equal(s.hasRun(waiting), false));
  });
});

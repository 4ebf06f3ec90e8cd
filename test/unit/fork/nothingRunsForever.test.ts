/**
 * Every run and fork request settles, through real processes: `ocdb fork --run --program` whose program exits
 * before it claims the fork reports it failed at once (with the exit code); a fork nobody claims (created and left,
 * as a debugger's `fork` request in an editor that does not run it) reads failed `unclaimed` and its run crashed
 * once its heartbeat is a minute old; a run recorded over HTTP by `ocdb serve` whose agent vanished reads crashed
 * while the server lives. A minute passing is the fork run's heartbeat made a minute old (the state time leaves).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../../src/cli/cliCommand';
import { writeDemoStore } from '../../../src/demo';
import { claimForkRequest } from '../../../src/fork/forkRequests';
import { HEARTBEAT_STALE_MS } from '../../../src/store/liveness';
import { openRunStore, type RunStore } from '../../../src/store';
import { serverFilePath } from '../../../src/server/serverFile';
import { tmpDir } from '../../helpers/tmp';
import { call } from '../server/httpClient';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli.js');

function demo(): string {
  const store = path.join(tmpDir(), 'runs.db');
  const s = openRunStore(store);
  writeDemoStore(s);
  s.close();
  return store;
}

/** What a minute without a claim or a request leaves: the run's heartbeat that old. */
function aMinuteLater(store: RunStore, runId: string): void {
  store.heartbeat(runId, Date.now() - HEARTBEAT_STALE_MS - 1000);
}

test('an agent program that exits before it claims the fork: the fork fails at once, naming the exit code', () => {
  const store = demo();
  const args = ['fork', 'demo-support-refund', '0', '--policy', '*=reuse_result', '--run', '--program', 'exit 3'];
  const r = spawnSync(process.execPath, [CLI, ...args, '--store', store, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, EXIT.failed, r.stdout + r.stderr);
  const json = JSON.parse(r.stdout) as { forkRequestId: string; runId: string };
  const s = openRunStore(store, { create: false });
  try {
    const request = s.getForkRequest(json.forkRequestId);
    assert.equal(request.status, 'failed');
    const error = request.error as { code: string; message: string; exitCode: number };
    assert.equal(error.code, 'agent_exited');
    assert.equal(error.exitCode, 3);
    assert.match(error.message, /exited with code 3 before it claimed fork/);
  } finally {
    s.close();
  }
});

test('a fork nothing runs reads pending, then failed `unclaimed` a minute on, and its run crashed', () => {
  const store = demo();
  // created and left, as `ocdb fork` without --run, or a debugger's fork request in nvim-dap
  const r = spawnSync(process.execPath, [CLI, 'fork', 'demo-support-refund', '0', '--policy', '*=reuse_result'], {
    encoding: 'utf8',
    env: { ...process.env, OCDB_STORE: store },
  });
  assert.equal(r.status, EXIT.ok, r.stdout + r.stderr);
  const s = openRunStore(store, { create: false });
  try {
    const fork = s.listRuns({}).runs.find((x) => x.mode === 'fork');
    assert.ok(fork);
    const requestId = (fork.metadata.fork as { forkRequestId: string }).forkRequestId;
    assert.equal(s.getForkRequest(requestId).status, 'pending', 'just created: waiting for its runner');
    assert.equal(s.getRun(fork.runId).crashed, false);
    aMinuteLater(s, fork.runId);
    const settled = s.getForkRequest(requestId);
    assert.equal(settled.status, 'failed');
    assert.equal((settled.error as { code: string }).code, 'unclaimed');
    assert.match((settled.error as { message: string }).message, /Nothing ran fork .* within 60 s/);
    assert.equal(s.getRun(fork.runId).crashed, true, 'its run reads crashed, not running');
    // a runner that comes late is refused: the request settled
    assert.throws(() => claimForkRequest(s, requestId, Date.now()), /already run \(failed\)/);
  } finally {
    s.close();
  }
});

test('a run recorded over HTTP whose agent vanished reads crashed while the server lives', async () => {
  const store = path.join(tmpDir(), 'runs.db');
  const child = spawn(process.execPath, [CLI, 'serve', '--store', store], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('Ctrl-C stops')) resolve();
      });
      child.once('exit', () => reject(new Error('ocdb serve exited')));
    });
    const { url, token } = JSON.parse(fs.readFileSync(serverFilePath(store), 'utf8')) as {
      url: string;
      token: string;
    };
    const created = await call(url, {
      path: '/runs',
      token,
      body: {
        agentId: 'http-bot',
        runtimeContext: {
          user: { userId: 'u-1', roleId: 'r', permissions: [] },
          conversation: { sessionId: 's' },
          project: { projectId: 'p' },
          task: { taskId: 't', workflowId: 'w', stepStates: {} },
          tools: { availableTools: [] },
          model: { provider: 'openai', model: 'gpt-4.1-mini', promptVersion: 'v1' },
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const runId = (created.body as { runId: string }).runId;
    const s = openRunStore(store, { create: false });
    try {
      assert.equal(s.getRun(runId).crashed, false, 'its agent just wrote');
      aMinuteLater(s, runId);
      assert.equal(s.getRun(runId).crashed, true, 'no request for a minute: the agent is gone, the server is not');
      // the agent was only slow: its next request makes the run live again
      const cp = await call(url, {
        path: `/runs/${runId}/checkpoints`,
        token,
        body: { boundary: 'before_prompt_build' },
      });
      assert.equal(cp.status, 201, JSON.stringify(cp.body));
      assert.equal(s.getRun(runId).crashed, false);
    } finally {
      s.close();
    }
  } finally {
    child.kill('SIGTERM');
  }
});

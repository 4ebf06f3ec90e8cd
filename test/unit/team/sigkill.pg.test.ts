/**
 * A local-first agent (an SDK recorder pointed at a team store, its default) killed with SIGKILL mid-run: a real
 * child process records checkpoints into its local store (group commit: a turn's writes in one transaction) and
 * says each one it recorded; the test kills it without warning. What it loses is what it recorded but had not
 * committed when it died — measured here as checkpoints and as milliseconds of recording, and bounded by one
 * second. The run it left is found by the next shipper (resumable) and reaches the team store as crashed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openRunStore } from '../../../src/store';
import { TeamShipper, teamCachePath } from '../../../src/team/teamShipper';
import { pgSchemaUrl } from '../../helpers/engines';

const ROOT = join(__dirname, '..', '..', '..');
const home = mkdtempSync(join(tmpdir(), 'ocdb-sigkill-home-'));
const savedHome = process.env.HOME;
// the local store of a team store lives under ~/.ocdb/stores/<hash>/: a home of the test's own, the agent's too
process.env.HOME = home;

after(() => {
  process.env.HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
});

/** The agent: records checkpoints as fast as its turns go, printing `cp <n> <runId>` after each. */
function agentScript(url: string): string {
  return `const { openRecorder } = require(${JSON.stringify(join(ROOT, 'src', 'recorder'))});
    const { testContext } = require(${JSON.stringify(join(ROOT, 'test', 'helpers', 'context'))});
    const recorder = openRecorder({ store: ${JSON.stringify(url)}, heartbeatMs: 200, fork: false });
    const run = recorder.startRun({ agentId: 'killed', runtimeContext: testContext() });
    let n = 0;
    const turn = () => {
      run.checkpoint(n % 2 === 0 ? 'before_prompt_build' : 'before_model_call');
      n++;
      process.stdout.write('cp ' + n + ' ' + run.runId + '\\n');
      setImmediate(turn);
    };
    turn();`;
}

test('a local-first agent killed with SIGKILL mid-run loses at most its last second, and the run still ships', async (t) => {
  const url = pgSchemaUrl();
  openRunStore(url, { create: true }).close();
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env.OCDB_TEAM_STORE; // the default: local-first
  const agent = spawn(process.execPath, ['--import', 'tsx', '-e', agentScript(url)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let reported = 0;
  let runId = '';
  let stderr = '';
  agent.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const killedAt = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    agent.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^cp (\d+) (\S+)$/.exec(line);
        if (!m) continue;
        reported = Number(m[1]);
        runId = m[2] ?? '';
      }
      // mid-run: well after its start, while it is writing as fast as it can
      if (reported >= 300 && agent.exitCode === null && !agent.killed) {
        agent.kill('SIGKILL');
        resolve(Date.now());
      }
    });
    agent.on('exit', (code) => reject(new Error(`the agent ended by itself (${code}): ${stderr}`)));
  });
  await new Promise((resolve) => agent.once('exit', resolve));

  // what reached its local store's disk
  const local = openRunStore(teamCachePath(url), { create: false });
  let stored: number;
  let lastAt: number;
  try {
    const run = local.getRun(runId);
    assert.equal(run.status, 'running');
    assert.equal(run.crashed, true, 'the dead agent reads crashed');
    stored = run.checkpointCount;
    lastAt = run.lastCheckpointAt ?? run.startedAt;
  } finally {
    local.close();
  }
  const lostCheckpoints = Math.max(0, reported - stored);
  const lostMs = Math.max(0, killedAt - lastAt);
  t.diagnostic(
    `SIGKILL after ${reported} checkpoints reported: ${stored} on disk, ${lostCheckpoints} lost; the last one kept was recorded ${lostMs} ms before the kill`,
  );
  assert.ok(stored > 0 && stored <= reported + 1, `${stored} stored of ${reported} reported`);
  assert.ok(lostMs <= 1000, `the last ${lostMs} ms of recording were lost (bound: 1 s)`);

  // the next shipper on this machine finds the run the killed agent left and ships it, crashed
  const shipper = new TeamShipper(url, teamCachePath(url));
  try {
    const team = openRunStore(url, { create: false });
    try {
      for (let i = 0; !team.hasRun(runId) && i < 1200; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(team.hasRun(runId), 'the killed run reached the team store');
      const there = team.getRun(runId);
      assert.equal(there.checkpointCount, stored, 'with every checkpoint its local store kept');
      assert.equal(there.crashed, true, 'as crashed');
    } finally {
      team.close();
    }
  } finally {
    shipper.close();
  }
});

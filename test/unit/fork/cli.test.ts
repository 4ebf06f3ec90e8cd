/**
 * `ocdb replay` and `ocdb fork` as a user runs them (in-process runCli): exit
 * codes 0 / 4 / 5 / 1 / 3, the plan table, --run, --json, --program running
 * the example agent under OCDB_FORK, and a real-model replay against a fake
 * endpoint.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { writeDemoStore } from '../../../src/demo';
import { openRecorder } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/agents/fakeModelServer';
import { runRefundAgent } from '../../fixtures/agents/refundAgent';

let dir: string;
let storePath: string;
let server: FakeModelServer;
let agentRunId: string;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-cli-fork-'));
  storePath = path.join(dir, 'runs.db');
  const store = openRunStore(storePath);
  writeDemoStore(store);
  server = await startFakeModelServer((_req, i) =>
    i % 2 === 0
      ? { content: 'Checking.', toolCalls: [{ id: `c${i}`, name: 'lookup_order', args: { orderId: 'o-1' } }] }
      : { content: 'All good.' },
  );
  const recorder = openRecorder({ runStore: store, fork: false, heartbeatMs: 0 });
  agentRunId = await runRefundAgent(recorder, server.url);
  recorder.close();
  store.close();
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function ocdb(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    isTty: false,
    env: { ...process.env, ...env },
    cwd: dir,
  };
  const code = await runCli([...args, '--store', storePath], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('ocdb replay', () => {
  it('--captured exits 0 with no divergence on the demo runs', async () => {
    for (const runId of ['demo-support-refund', 'demo-research-crashed', 'demo-support-escalation']) {
      const r = await ocdb(['replay', runId, '--captured']);
      assert.equal(r.code, EXIT.ok, `${runId}: ${r.err}`);
      assert.match(r.out, /No divergence from the recording/);
    }
  });

  it('without --captured needs an endpoint, and replays against it', async () => {
    const missing = await ocdb(['replay', agentRunId], { OCDB_MODEL_BASE_URL: '' });
    assert.equal(missing.code, EXIT.usage);
    assert.match(missing.err, /--base-url/);
    const real = await ocdb(['replay', agentRunId, '--from', '1', '--base-url', server.url, '--json']);
    assert.equal(real.code, EXIT.ok, real.err);
    const outcome = JSON.parse(real.out) as { status: string; runId: string };
    assert.equal(outcome.status, 'completed');
  });

  it('exits 3 for an unknown run', async () => {
    assert.equal((await ocdb(['replay', 'ghost', '--captured'])).code, EXIT.notFound);
  });
});

describe('ocdb fork', () => {
  it('prints the plan and exits 4 naming the irreversible tools when rejected', async () => {
    const r = await ocdb([
      'fork',
      'demo-support-refund',
      '20',
      '--policy',
      '*=re_execute',
      '--ack',
      'issue_refund,send_email',
    ]);
    assert.equal(r.code, EXIT.rejected);
    assert.match(r.out, /issue_refund\s+external_irreversible.*BLOCKED/);
    assert.match(r.err, /issue_refund/);
  });

  it('creates and runs a fork with a patch, exiting 0 with --run', async () => {
    fs.writeFileSync(path.join(dir, 'patch.json'), JSON.stringify({ task: { stepStates: { audit: 'requested' } } }));
    const r = await ocdb([
      'fork',
      'demo-coding-fix',
      '#3',
      '--patch',
      'patch.json',
      '--policy',
      '*=reuse_result',
      '--run',
      '--json',
    ]);
    assert.equal(r.code, EXIT.ok, r.err);
    const body = JSON.parse(r.out) as { runId: string; outcome: { status: string } };
    assert.equal(body.outcome.status, 'completed');
    const store = openRunStore(storePath, { create: false });
    try {
      const first = store.getCheckpointAt(body.runId, 0);
      assert.equal((first.runtimeContext.task.stepStates as Record<string, unknown>).audit, 'requested');
      assert.equal(store.getRun(body.runId).parentRunId, 'demo-coding-fix');
    } finally {
      store.close();
    }
  });

  it('exits 5 when a mocked result makes the captured fork diverge', async () => {
    fs.writeFileSync(path.join(dir, 'empty.json'), '[]');
    const store = openRunStore(storePath, { create: false });
    const from = store.listCheckpoints('demo-support-refund').find((c) => c.boundary === 'after_model_call')?.index;
    store.close();
    const r = await ocdb([
      'fork',
      'demo-support-refund',
      String(from),
      '--policy',
      '*=reuse_result',
      '--policy',
      'lookup_customer=mock_result',
      '--mock',
      'lookup_customer=empty.json',
      '--run',
    ]);
    assert.equal(r.code, EXIT.diverged, r.out + r.err);
    assert.match(r.out, /Divergence: step \d+/);
  });

  it('exits 2 on a bad --policy and 3 on an unknown checkpoint', async () => {
    assert.equal((await ocdb(['fork', 'demo-support-refund', '3', '--policy', 'x=sometimes'])).code, EXIT.usage);
    assert.equal((await ocdb(['fork', 'demo-support-refund', 'nope'])).code, EXIT.notFound);
  });

  it('--run --program runs the agent program under OCDB_FORK', async () => {
    const agent = path.join(__dirname, '../../fixtures/agents/refundAgent.ts');
    const tsx = pathToFileURL(path.join(__dirname, '../../../node_modules/tsx/dist/loader.mjs')).href;
    const r = await ocdb(
      [
        'fork',
        agentRunId,
        '0',
        '--policy',
        '*=reuse_result',
        '--run',
        '--program',
        `"${process.execPath}" --import "${tsx}" "${agent}"`,
      ],
      { MODEL_URL: server.url, NODE_PATH: '' },
    );
    assert.equal(r.code, EXIT.ok, r.out + r.err);
    assert.match(r.out, /Agent program exited with 0; fork .*: completed/);
  });

  it("--run --program --json keeps the agent program's stdout out of the JSON (it goes to stderr)", () => {
    const agent = path.join(__dirname, '../../fixtures/agents/refundAgent.ts');
    const tsx = pathToFileURL(path.join(__dirname, '../../../node_modules/tsx/dist/loader.mjs')).href;
    const program = `echo "agent says hello on stdout" && "${process.execPath}" --import "${tsx}" "${agent}"`;
    const cli = path.join(__dirname, '../../../dist/cli.js');
    const args = ['fork', agentRunId, '0', '--policy', '*=reuse_result', '--run', '--program', program, '--json'];
    const r = spawnSync(process.execPath, [cli, ...args, '--store', storePath], {
      encoding: 'utf8',
      cwd: dir,
      env: { ...process.env, MODEL_URL: server.url, NODE_PATH: '' },
    });
    assert.equal(r.status, EXIT.ok, r.stdout + r.stderr);
    const json = JSON.parse(r.stdout) as { request: { status: string } };
    assert.equal(json.request.status, 'completed');
    assert.match(r.stderr, /agent says hello on stdout/);
  });
});

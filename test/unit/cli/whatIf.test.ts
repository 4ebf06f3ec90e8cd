/**
 * The what-if loop as a user drives it from the command line and over HTTP, on
 * the demo store: `ocdb fork --plan` predicts the divergence, `ocdb fork --run`
 * ends diverged (exit 5) and says where, `ocdb show` (and `--json`), `ocdb
 * runs`, `GET /runs/:id` and `GET /forks/:id` all say "diverged at step 5 ·
 * system prompt", the runs tree gives it its own icon, `--model recorded`
 * goes on with the recorded outputs, and `ocdb diff` compares the demo's
 * auditor fork with its parent: the fork point, user.roleId, the first
 * divergent checkpoint.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { writeDemoStore } from '../../../src/demo';
import { runView } from '../../../src/extension/runsTreeModel';
import type { RunComparison } from '../../../src/replay/runComparison';
import { compareRuns } from '../../../src/replay/runComparison';
import { comparisonSides } from '../../../src/replay/comparisonText';
import { startServer, type RunningServer } from '../../../src/server/httpServer';
import { openRunStore, type SqlRunStore } from '../../../src/store';
import { call } from '../server/httpClient';

let dir: string;
let storePath: string;
let patchFile: string;
let forkPoint: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-whatif-'));
  storePath = path.join(dir, 'runs.db');
  const store = openRunStore(storePath);
  writeDemoStore(store);
  forkPoint = String(
    store.listCheckpoints('demo-support-refund').find((c) => c.stepIndex === 5 && c.boundary === 'before_prompt_build')
      ?.index,
  );
  store.close();
  patchFile = path.join(dir, 'auditor.json');
  fs.writeFileSync(patchFile, JSON.stringify({ user: { roleId: 'auditor' } }));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function ocdb(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    isTty: false,
    env: { ...process.env, OCDB_MODEL_BASE_URL: '' },
    cwd: dir,
  };
  const code = await runCli([...args, '--store', storePath], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('a captured fork with a context edit', () => {
  let forkRunId = '';
  let forkRequestId = '';

  it('is predicted by the plan, ends diverged (exit 5) and says what to do next', async () => {
    const plan = await ocdb([
      'fork',
      'demo-support-refund',
      forkPoint,
      '--patch',
      patchFile,
      '--policy',
      '*=reuse_result',
      '--plan',
    ]);
    assert.equal(plan.code, EXIT.ok, plan.err);
    assert.match(plan.out, /Prediction: this edit changes the system prompt at step 5; a captured fork stops there\./);
    const r = await ocdb([
      'fork',
      'demo-support-refund',
      forkPoint,
      '--patch',
      patchFile,
      '--policy',
      '*=reuse_result',
      '--run',
      '--json',
    ]);
    assert.equal(r.code, EXIT.diverged, r.err);
    const body = JSON.parse(r.out) as { runId: string; forkRequestId: string; outcome: { status: string } };
    assert.equal(body.outcome.status, 'diverged');
    forkRunId = body.runId;
    forkRequestId = body.forkRequestId;
    const text = await ocdb([
      'fork',
      'demo-support-refund',
      forkPoint,
      '--patch',
      patchFile,
      '--policy',
      '*=reuse_result',
      '--run',
    ]);
    assert.equal(text.code, EXIT.diverged);
    assert.match(text.out, /: diverged at step 5 · system prompt, \d+ checkpoints/);
    assert.match(text.out, /--model recorded/);
  });

  it('ocdb show, show --json and ocdb runs say diverged at step 5 · system prompt', async () => {
    const show = await ocdb(['show', forkRunId]);
    assert.match(show.out, /status {4}diverged at step 5 · system prompt/);
    assert.match(show.out, /diverged {2}step 5, \[30\] before_model_call: the system prompt differs/);
    const json = JSON.parse((await ocdb(['show', forkRunId, '--json'])).out) as {
      run: { status: string; error: { code: string } };
      statusText: string;
      divergence: { stepIndex: number; field: string; forkCheckpointId: string };
    };
    assert.equal(json.run.status, 'diverged');
    assert.equal(json.run.error.code, 'diverged');
    assert.equal(json.statusText, 'diverged at step 5 · system prompt');
    assert.deepEqual([json.divergence.stepIndex, json.divergence.field], [5, 'systemPrompt']);
    const runs = await ocdb(['runs', '--status', 'diverged']);
    assert.match(runs.out, new RegExp(`${forkRunId}.*diverged at step 5 · system prompt`));
  });

  it('HTTP GET /runs/:id and GET /forks/:id say the same', async () => {
    const store: SqlRunStore = openRunStore(storePath);
    const server: RunningServer = await startServer({ store });
    try {
      const run = await call(server.url, { path: `/runs/${forkRunId}`, token: server.token });
      assert.equal((run.body as { status: string }).status, 'diverged');
      assert.equal((run.body as { statusText: string }).statusText, 'diverged at step 5 · system prompt');
      const fork = await call(server.url, { path: `/forks/${forkRequestId}`, token: server.token });
      const body = fork.body as { status: string; statusText: string; divergence: { stepIndex: number } };
      assert.equal(body.status, 'diverged');
      assert.equal(body.statusText, 'diverged at step 5 · system prompt');
      assert.equal(body.divergence.stepIndex, 5);
      // the recorded-outputs mode over HTTP: the field is modelOverride.mode
      const source = store.listCheckpoints('demo-support-refund')[Number(forkPoint)]?.checkpointId;
      const planned = await call(server.url, {
        path: '/fork/plan',
        token: server.token,
        body: {
          sourceRunId: 'demo-support-refund',
          sourceCheckpointId: source,
          contextPatch: { user: { roleId: 'auditor' } },
          modelOverride: { mode: 'recorded' },
        },
      });
      assert.equal(planned.status, 200, JSON.stringify(planned.body));
      assert.match(
        (planned.body as { predictedDivergence: { message: string } }).predictedDivergence.message,
        /recorded outputs go on/,
      );
      // the runs tree: its own icon, not the red ✗ of a failed run
      const view = runView(store.getRun(forkRunId), Date.now());
      assert.equal(view.icon.id, 'git-compare');
      assert.notEqual(view.icon.color, 'list.errorForeground');
      assert.match(view.description ?? '', /^diverged at step 5 · system prompt · fork/);
    } finally {
      await server.close();
      store.close();
    }
  });

  it('--model recorded goes on with the recorded outputs to the end', async () => {
    const r = await ocdb([
      'fork',
      'demo-support-refund',
      forkPoint,
      '--patch',
      patchFile,
      '--policy',
      '*=reuse_result',
      '--model',
      'recorded',
      '--run',
    ]);
    assert.equal(r.code, EXIT.ok, r.out + r.err);
    assert.match(r.out, /: completed, \d+ checkpoints/);
    assert.match(r.out, /Divergence: step 5/);
  });
});

describe('ocdb diff', () => {
  it('names the fork point, user.roleId and the first divergent checkpoint of the demo auditor fork', async () => {
    const r = await ocdb(['diff', 'demo-support-refund', 'demo-support-refund-auditor']);
    assert.equal(r.code, EXIT.ok, r.err);
    assert.match(
      r.out,
      /Fork point: demo-support-refund-auditor forks demo-support-refund at \[29\] before_prompt_build \(step 5, demo-support-refund-cp029\)/,
    );
    assert.match(r.out, /user\.roleId: "support_agent" → "auditor"/);
    assert.match(
      r.out,
      /First divergence: step 5 · context \(user\.roleId, user\.permissions\) — demo-support-refund \[30\] demo-support-refund-cp030 vs demo-support-refund-auditor \[1\] demo-support-refund-auditor-cp001/,
    );
    assert.match(r.out, /steps 0-4: inherited/);
    assert.match(r.out, /issue_refund: 1 → 0 calls/);
    assert.match(r.out, /Tokens: \d+ → \d+ \(−\d+\)/);
    const json = JSON.parse(
      (await ocdb(['diff', 'demo-support-refund', 'demo-support-refund-auditor', '--json'])).out,
    ) as RunComparison;
    assert.equal(json.relation, 'fork');
    assert.equal(json.forkPoint?.checkpointId, 'demo-support-refund-cp029');
    assert.ok(json.steps.filter((s) => s.inherited).every((s) => s.same && s.stepIndex < 5));
    assert.ok(json.contextChanges.some((c) => c.path === 'user.roleId' && c.right === 'auditor'));
    assert.equal(json.firstDivergence?.right?.checkpointId, 'demo-support-refund-auditor-cp001');
    const missing = await ocdb(['diff', 'demo-support-refund', 'no-such-run']);
    assert.equal(missing.code, EXIT.notFound);
  });

  it("a fork's side includes its inherited prefix, so only what changed differs", () => {
    const store = openRunStore(storePath);
    try {
      const { left, right } = comparisonSides(
        compareRuns(store, 'demo-support-refund', 'demo-support-refund-auditor', { sharedSteps: 'whole' }),
      );
      const body = (t: string) => t.split('\n').slice(2);
      const l = body(left);
      const r = body(right);
      const upTo = (lines: string[]) => lines.slice(0, lines.indexOf('── fork point ──'));
      assert.ok(upTo(l).length > 20, 'the shared prefix is there');
      assert.deepEqual(upTo(r), upTo(l), 'the inherited steps read the same on both sides');
      assert.ok(
        r.some((line) => /You act as auditor/.test(line)),
        'the new system prompt shows',
      );
      assert.ok(
        r.some((line) => line === 'context user.roleId = "auditor"'),
        'the role change shows',
      );
    } finally {
      store.close();
    }
  });

  it('two unrelated runs of the same agent are aligned by step and tool call', async () => {
    const r = await ocdb(['diff', 'demo-support-refund', 'demo-support-escalation', '--json']);
    assert.equal(r.code, EXIT.ok, r.err);
    const c = JSON.parse(r.out) as RunComparison;
    assert.equal(c.relation, 'unrelated');
    assert.equal(c.forkPoint, undefined);
    assert.ok(c.firstDivergence, 'the first difference is named');
    assert.ok(c.steps.length > 0 && c.steps.every((s) => !s.inherited));
  });
});

/**
 * Model-graded assertions of `ocdb what-if`, against a local OpenAI-compatible endpoint started here: each
 * fork's end and its recording's are put to the model, answered pass / fail with a reason, counted as a rate
 * beside the recordings'; the batch prices the grading and asks before spending over --max-cost; the key
 * reaches no output, report or batch file; an endpoint that fails, or answers something that is no verdict or
 * no completion at all, gives each run a clear error and the batch goes on to the end.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import type { WhatIfReport } from '../../../src/cohort/whatIfBatch';
import { readVerdict } from '../../../src/cohort/modelGrader';
import { writeDemoStore } from '../../../src/demo';
import { writeSupportCohort } from '../../../src/demo/supportCohort';
import { openRunStore } from '../../../src/store';
import {
  startFakeModelServer,
  type FakeCompletionRequest,
  type FakeModelServer,
} from '../../fixtures/agents/fakeModelServer';
import { tmpDir } from '../../helpers/tmp';

const COHORT = 6;
const KEY = 'sk-grader-test-5b1e9c0d7a3f42e8';
const AUDITOR = { user: { roleId: 'auditor', permissions: ['orders:read', 'cases:write'] } };
const QUESTION = 'no_refund_m=Did the agent finish without issuing a refund?';

const dir = tmpDir('ocdb-graded-');
const storePath = path.join(dir, 'runs.db');

before(() => {
  const store = openRunStore(storePath);
  writeDemoStore(store);
  writeSupportCohort(store, COHORT);
  store.close();
  fs.writeFileSync(path.join(dir, 'auditor.json'), JSON.stringify(AUDITOR));
});

const servers: FakeModelServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** What the test's grader answers: a refund in the run's tool calls fails the question, with the reason. */
function judge(request: FakeCompletionRequest): { content: string } {
  const text = request.messages.map((m) => m.content ?? '').join('\n');
  const refunded = /- issue_refund\(/.test(text);
  return {
    content: refunded
      ? '```json\n{"verdict": "fail", "reason": "issue_refund was called"}\n```'
      : '{"verdict": "pass", "reason": "no refund in the tool calls"}',
  };
}

async function ocdb(server: FakeModelServer, extra: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    isTty: false,
    env: { ...process.env, OCDB_GRADER_KEY: KEY, OCDB_MODEL_BASE_URL: '', OCDB_MODEL: '' },
    cwd: dir,
  };
  const args = [
    'what-if',
    '--agent',
    'support-desk',
    '--patch',
    'auditor.json',
    '--policy',
    '*=reuse_result',
    '--assert',
    "no_refund=!tool('issue_refund')",
    '--assert-model',
    QUESTION,
    '--base-url',
    server.url,
    '--api-key-env',
    'OCDB_GRADER_KEY',
    '--model-name',
    'gpt-4o-mini',
    '--fresh',
    ...extra,
    '--store',
    storePath,
  ];
  const code = await runCli(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const forkCount = () => {
  const store = openRunStore(storePath);
  try {
    return store.listRuns({ mode: 'fork' }).total;
  } finally {
    store.close();
  }
};

describe('what-if with a model-graded assertion', () => {
  it('prices the grading and, above --max-cost without --yes, starts nothing and asks the model nothing', async () => {
    const server = await startFakeModelServer(judge, { requireKey: KEY });
    servers.push(server);
    const forks = forkCount();
    const r = await ocdb(server, ['--max-cost', '0.0000001']);
    assert.equal(r.code, EXIT.failed, r.err);
    assert.match(r.err, /asks the model for about \d+ tokens \(\d+ of them grading\) ≈ \$0\.00/);
    assert.match(r.err, /not started; pass --yes/);
    assert.equal(server.requests.length, 0);
    assert.equal(forkCount(), forks, 'no fork was created');
  });

  it('grades every fork and its recording pass / fail with a reason, as a rate, and keeps the key out of everything', async () => {
    const server = await startFakeModelServer(judge, { requireKey: KEY });
    servers.push(server);
    const junit = path.join(dir, 'graded.xml');
    const r = await ocdb(server, ['--yes', '--json', '--junit', 'graded.xml']);
    const report = JSON.parse(r.out) as WhatIfReport;
    const n = report.total;
    assert.equal(n, COHORT + 2);
    // two questions a run (the fork's end and the recording's), each with the key
    assert.equal(server.requests.length, 2 * n);
    assert.ok(server.requests.every((q) => q.authorization === `Bearer ${KEY}` && q.model === 'gpt-4o-mini'));

    for (const x of report.results) {
      const expr = x.assertions.find((a) => a.name === 'no_refund');
      const graded = x.assertions.find((a) => a.name === 'no_refund_m');
      assert.ok(expr && graded, x.sourceRunId);
      // the model sees what the expression sees: a refund in the run's calls
      assert.equal(graded.passed, expr.passed, x.sourceRunId);
      assert.equal(graded.sourcePassed, expr.sourcePassed, x.sourceRunId);
      assert.equal(graded.reason, graded.passed ? 'no refund in the tool calls' : 'issue_refund was called');
      assert.ok((x.grading?.tokens ?? 0) > 0 && (x.grading?.costUsd ?? 0) > 0, 'grading is counted and priced');
    }
    const refund = report.results.find((x) => x.sourceRunId === 'demo-support-refund');
    assert.equal(refund?.assertions.find((a) => a.name === 'no_refund_m')?.sourcePassed, false);
    assert.equal(refund?.assertions.find((a) => a.name === 'no_refund_m')?.passed, true);

    const rate = report.rates.assertions.find((a) => a.name === 'no_refund_m');
    const exprRate = report.rates.assertions.find((a) => a.name === 'no_refund');
    assert.equal(rate?.question, 'Did the agent finish without issuing a refund?');
    assert.deepEqual(
      [rate?.passed, rate?.failed, rate?.sourcePassed],
      [exprRate?.passed, exprRate?.failed, exprRate?.sourcePassed],
    );
    assert.equal(r.code, (rate?.failed ?? 0) > 0 ? EXIT.failed : EXIT.ok);
    assert.ok((report.estimate?.gradingTokens ?? 0) > 0);

    const xml = fs.readFileSync(junit, 'utf8');
    if ((rate?.failed ?? 0) > 0)
      assert.match(xml, /name="no_refund_m"><failure message="[^"]*: issue_refund was called"/);
    const batch = report.batchFile ? fs.readFileSync(report.batchFile, 'utf8') : '';
    for (const text of [r.out, r.err, xml, batch]) assert.ok(!text.includes(KEY), 'the key appears nowhere');

    // the same in words
    const words = await ocdb(server, ['--yes']);
    assert.match(
      words.out,
      /Assertion no_refund_m \(asked the model: Did the agent finish without issuing a refund\?\): \d+\/\d+ forks pass/,
    );
    assert.match(words.out, /Grading: \d+ tokens ≈ \$0\.\d+/);
    assert.ok(!words.out.includes(KEY) && !words.err.includes(KEY));
  });

  it('an endpoint that fails: each run says so, the grader stops asking after three in a row, the batch finishes', async () => {
    const server = await startFakeModelServer(judge, { failFirst: 1_000, failStatus: 500 });
    servers.push(server);
    const r = await ocdb(server, ['--yes', '--json']);
    assert.equal(r.code, EXIT.failed);
    const report = JSON.parse(r.out) as WhatIfReport;
    assert.equal(report.results.length, COHORT + 2, 'every run has its result');
    const graded = report.results.map((x) => x.assertions.find((a) => a.name === 'no_refund_m'));
    assert.ok(graded.every((a) => a?.passed === false && a.sourcePassed === undefined));
    assert.match(
      graded[0]?.error ?? '',
      /^the grader's endpoint failed: http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed after 4 attempts \(last: HTTP 500/,
    );
    assert.ok(graded.some((a) => /^not asked: the grader's endpoint failed 3 times in a row/.test(a?.error ?? '')));
    // the expression assertion is still answered, and the forks ran
    assert.ok(report.results.every((x) => x.outcome !== 'failed' && x.assertions.some((a) => a.name === 'no_refund')));
  });

  it('an endpoint answering no verdict, or no completion at all: a clear error per run, never a pass', async () => {
    const rambling = await startFakeModelServer(() => ({ content: 'Hmm, it depends on the policy.' }));
    const html = await startFakeModelServer(() => ({ content: 'unused' }), { rawBody: '<html>Bad gateway</html>' });
    servers.push(rambling, html);
    const a = JSON.parse((await ocdb(rambling, ['--yes', '--json'])).out) as WhatIfReport;
    for (const x of a.results) {
      const g = x.assertions.find((y) => y.name === 'no_refund_m');
      assert.equal(g?.passed, false);
      assert.equal(
        g?.error,
        'the grader answered no verdict (expected {"verdict": "pass"|"fail", "reason": …}): "Hmm, it depends on the policy."',
      );
    }
    const b = await ocdb(html, ['--yes', '--json']);
    assert.equal(b.code, EXIT.failed);
    const g = (JSON.parse(b.out) as WhatIfReport).results[0]?.assertions.find((y) => y.name === 'no_refund_m');
    assert.match(g?.error ?? '', /answered something that is not JSON: <html>Bad gateway<\/html>/);
  });

  it('without an endpoint or a model, --assert-model is refused before anything runs', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      isTty: false,
      env: { ...process.env, OCDB_MODEL_BASE_URL: '', OCDB_MODEL: '' },
      cwd: dir,
    };
    const forks = forkCount();
    const code = await runCli(
      ['what-if', '--agent', 'support-desk', '--assert-model', QUESTION, '--store', storePath],
      io,
    );
    assert.equal(code, EXIT.usage);
    assert.match(err.join('\n'), /--assert-model needs a model endpoint and a model: pass --base-url and --model-name/);
    assert.equal(forkCount(), forks);
  });
});

describe('reading a verdict', () => {
  it('takes JSON (fenced or not), pass/passed booleans, and PASS / FAIL words; nothing else', () => {
    assert.deepEqual(readVerdict('{"verdict":"FAIL","reason":"refunded"}'), { passed: false, reason: 'refunded' });
    assert.deepEqual(readVerdict('```json\n{"pass": true}\n```'), { passed: true, reason: '' });
    assert.deepEqual(readVerdict('PASS: the order id is quoted'), { passed: true, reason: 'the order id is quoted' });
    assert.deepEqual(readVerdict('no — a refund was issued'), { passed: false, reason: 'a refund was issued' });
    assert.throws(() => readVerdict('{"verdict": "maybe"}'), /no verdict/);
    assert.throws(() => readVerdict(''), /an empty answer/);
  });
});

/**
 * What-if across runs as a user drives it: the demo store plus a generated support-desk cohort, one auditor
 * patch over every run. `ocdb what-if` says which runs diverge and where, which would now issue no refund (and
 * that the recordings did), exits 1 where the assertion fails, writes a JUnit report whose failures are those
 * runs, and ends with a certificate that nothing was executed; `*=re_execute` refuses before anything is created,
 * listing the irreversible tools and their runs; an interrupted batch resumes from its batch file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { runWhatIf, type WhatIfReport } from '../../../src/cohort/whatIfBatch';
import { writeDemoStore } from '../../../src/demo';
import { cohortScript, writeSupportCohort } from '../../../src/demo/supportCohort';
import { isOcdbError } from '../../../src/model';
import { openRunStore, type RunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';

const COHORT = 30;
const AUDITOR = { user: { roleId: 'auditor', permissions: ['orders:read', 'cases:write'] } };
const NO_REFUND = "!tool('issue_refund')";

const dir = tmpDir('ocdb-cohort-');
const storePath = path.join(dir, 'runs.db');

before(() => {
  const store = openRunStore(storePath);
  writeDemoStore(store);
  writeSupportCohort(store, COHORT);
  store.close();
  fs.writeFileSync(path.join(dir, 'auditor.json'), JSON.stringify(AUDITOR));
});

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

function withStore<T>(f: (store: RunStore) => T): T {
  const store = openRunStore(storePath);
  try {
    return f(store);
  } finally {
    store.close();
  }
}

const forkCount = (store: RunStore) => store.listRuns({ mode: 'fork' }).total;

/** The cohort runs that issued a refund and kept no prompt template: the patch cannot change their prompt. */
const legacyRefunds = Array.from({ length: COHORT }, (_, i) => cohortScript(i))
  .filter((s) => s.kind === 'legacy_prompt')
  .map((s) => s.runId);

describe('ocdb what-if over the support-desk cohort', () => {
  let report: WhatIfReport;

  it('reports divergences, the runs that would now issue no refund, the certificate, and exits 1 on a failed assertion', async () => {
    assert.ok(legacyRefunds.length > 0, 'the generated cohort has runs recorded without a prompt template');
    const junit = path.join(dir, 'out.xml');
    const r = await ocdb([
      'what-if',
      '--agent',
      'support-desk',
      '--patch',
      'auditor.json',
      '--policy',
      '*=reuse_result',
      '--assert',
      `no_refund=${NO_REFUND}`,
      '--junit',
      'out.xml',
      '--json',
      '--concurrency',
      '3',
    ]);
    assert.equal(r.code, EXIT.failed, r.err);
    report = JSON.parse(r.out) as WhatIfReport;
    // the demo's recorded support runs (the auditor fork is a fork: not in the cohort) and the generated ones
    assert.equal(report.total, COHORT + 2);
    assert.match(r.err, new RegExp(`what-if: ${COHORT + 2}/${COHORT + 2} runs \\(100%\\)`));

    const refund = report.results.find((x) => x.sourceRunId === 'demo-support-refund');
    assert.equal(refund?.outcome, 'diverged');
    assert.equal(refund?.detail, 'diverged at step 0 · system prompt');
    assert.deepEqual(refund?.assertions, [{ name: 'no_refund', passed: true, sourcePassed: false }]);
    assert.ok(refund?.toolChanges.some((c) => c.toolName === 'issue_refund' && c.change === 'removed'));

    // a run without a prompt template renders no other prompt: the walk reaches the refund, answered from the recording
    for (const id of legacyRefunds) {
      const legacy = report.results.find((x) => x.sourceRunId === id);
      assert.equal(legacy?.outcome, 'same', id);
      assert.deepEqual(legacy?.assertions, [{ name: 'no_refund', passed: false, sourcePassed: false }], id);
    }
    const failing = report.results.filter((x) => x.assertions.some((a) => !a.passed)).map((x) => x.sourceRunId);
    assert.deepEqual(failing.sort(), [...legacyRefunds].sort());
    const rate = report.rates.assertions[0];
    assert.equal(rate?.failed, legacyRefunds.length);
    assert.ok((rate?.sourcePassed ?? 0) < (rate?.passed ?? 0), 'fewer recordings than forks issue no refund');

    // the certificate: every call answered from the recording, nothing executed, issue_refund among them
    const cert = report.certificate;
    assert.equal(cert.clean, true);
    assert.deepEqual(cert.executed, []);
    assert.equal(
      cert.rows.reduce((n, row) => n + row.executed, 0),
      0,
    );
    const irreversible = cert.rows.find((row) => row.sideEffectLevel === 'external_irreversible');
    assert.ok(
      (irreversible?.recording ?? 0) >= legacyRefunds.length,
      'the legacy runs met issue_refund and send_email',
    );
    assert.match(cert.statement, /0 executed .*no write or external_irreversible tool ran/);
    // what the ledgers of the forks say, not what the plan said: every own call reused
    withStore((store) => {
      for (const x of report.results) {
        for (const call of store.listToolCallFacts(x.forkRunId as string))
          assert.equal(call.replayPolicy, 'reuse_result');
      }
    });

    const xml = fs.readFileSync(junit, 'utf8');
    assert.match(
      xml,
      new RegExp(`<testsuites name="ocdb what-if" tests="${2 * (COHORT + 2) + 1}" failures="${legacyRefunds.length}">`),
    );
    for (const id of legacyRefunds) {
      assert.match(xml, new RegExp(`classname="what-if\\.${id}" name="no_refund"><failure`));
    }
    assert.match(xml, /name="gate certificate"><system-out>/);
  });

  it('prints the same in words: where runs diverge, the failing runs first, the rates, the certificate', async () => {
    const r = await ocdb([
      'what-if',
      '--agent',
      'support-desk',
      '--patch',
      'auditor.json',
      '--policy',
      '*=reuse_result',
      '--assert',
      NO_REFUND,
      '--fresh',
    ]);
    assert.equal(r.code, EXIT.failed);
    const lines = r.out.split('\n');
    assert.match(lines[1] ?? '', new RegExp(`^  (${legacyRefunds.join('|')}): same as recorded · FAILED !tool`));
    assert.match(r.out, /demo-support-refund: diverged at step 0 · system prompt · tool calls: .*issue_refund −1/);
    assert.match(r.out, /Diverged at: step 0 × \d+/);
    assert.match(r.out, /Assertion !tool\('issue_refund'\) \(!tool\('issue_refund'\)\): \d+\/32 forks pass/);
    assert.match(r.out, /Certificate:\n {2}SIDE EFFECT +FROM RECORDING +MOCKED +EXECUTED +REFUSED/);
    assert.match(r.out, /external_irreversible +\d+ +0 +0 +0/);
  });

  it('refuses *=re_execute before creating anything, listing the irreversible tools and their runs (exit 4)', async () => {
    const before = withStore(forkCount);
    const r = await ocdb([
      'what-if',
      '--agent',
      'support-desk',
      '--patch',
      'auditor.json',
      '--policy',
      '*=re_execute',
      '--assert',
      NO_REFUND,
      '--junit',
      'refused.xml',
    ]);
    assert.equal(r.code, EXIT.rejected);
    assert.match(r.err, /What-if refused before running anything/);
    const refunding = Array.from({ length: COHORT }, (_, i) => cohortScript(i)).filter(
      (s) => s.kind === 'refund' || s.kind === 'legacy_prompt',
    ).length;
    // every run that recorded a refund (the demo's and the cohort's), the first few named
    assert.match(
      r.err,
      new RegExp(
        `issue_refund \\(external_irreversible, re_execute from '\\*'\\) in ${refunding + 1} runs: cohort-support-`,
      ),
    );
    assert.match(
      r.err,
      /Nothing ran\. Name each tool with its own policy and acknowledge it \(--policy issue_refund=re_execute/,
    );
    assert.match(r.err, /send_email \(external_irreversible/);
    assert.equal(withStore(forkCount), before, 'no fork was created');
    assert.equal(fs.existsSync(path.join(dir, 'refused.xml')), false);
  });

  it("acknowledging '*' unlocks nothing; naming the tool and acknowledging it does (for that tool only)", async () => {
    await assert.rejects(
      withStore((store) =>
        runWhatIf(store, {
          cohort: { runIds: ['demo-support-refund'] },
          fork: { toolPolicyMap: { '*': 're_execute' } },
          acknowledgedTools: ['*'],
        }),
      ),
      (e: unknown) => isOcdbError(e, 'ForkRejected') && /issue_refund/.test(e.message),
    );
    await assert.rejects(
      withStore((store) =>
        runWhatIf(store, {
          cohort: { runIds: ['demo-support-refund'] },
          fork: { toolPolicyMap: { '*': 'reuse_result', issue_refund: 're_execute' } },
        }),
      ),
      (e: unknown) => isOcdbError(e, 'ForkRejected') && /issue_refund/.test(e.message) && !/send_email/.test(e.message),
    );
  });
});

describe('a batch interrupted and resumed', () => {
  it('keeps each finished run in the batch file and forks only the rest when run again', async () => {
    const batchFile = path.join(dir, 'resume.jsonl');
    const spec = {
      cohort: { agentId: 'support-desk', limit: 12 },
      fork: { contextPatch: AUDITOR, toolPolicyMap: { '*': 'reuse_result' as const } },
      assertions: [{ name: 'no_refund', expression: NO_REFUND }],
    };
    const controller = new AbortController();
    const store = openRunStore(storePath);
    try {
      const forksBefore = forkCount(store);
      const first = await runWhatIf(store, spec, {
        batchFile,
        concurrency: 2,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.done >= 5) controller.abort();
        },
      });
      const done = first.results.length;
      assert.ok(done >= 5 && done < 12, `stopped part way (${done})`);
      // the interruption may cut the last line short: it is dropped, that run is forked again
      fs.appendFileSync(batchFile, '{"result":{"sourceRunId":"cohort-sup');
      const forksAfterFirst = forkCount(store);
      const progress: number[] = [];
      const second = await runWhatIf(store, spec, {
        batchFile,
        concurrency: 4,
        onProgress: (p) => progress.push(p.resumed),
      });
      assert.equal(second.resumed, done);
      assert.equal(second.results.length, 12);
      assert.equal(forkCount(store) - forksAfterFirst, 12 - done, 'only the runs not done were forked');
      assert.ok(forksAfterFirst - forksBefore >= done);
      const lines = fs.readFileSync(batchFile, 'utf8').trim().split('\n');
      assert.equal(lines.length, 1 + 12);
      // another batch in the same file starts over
      const third = await runWhatIf(store, { ...spec, assertions: [] }, { batchFile });
      assert.equal(third.resumed, 0);
    } finally {
      store.close();
    }
  });
});

describe('fork points', () => {
  it('forks each run at the first checkpoint an expression matches, and says which runs have none', async () => {
    const store = openRunStore(storePath);
    try {
      const report = await runWhatIf(store, {
        cohort: { runIds: ['demo-support-refund', 'demo-support-escalation'] },
        at: { kind: 'expression', expression: "boundary == 'before_tool_call' && toolName == 'issue_refund'" },
        fork: {
          toolPolicyMap: { '*': 'reuse_result', issue_refund: 'mock_result' },
          toolMockResults: { issue_refund: { status: 'declined' } },
        },
        assertions: [{ name: 'declined', expression: "tool('issue_refund').result.status == 'declined'" }],
      });
      const [refund, escalation] = report.results;
      const at = store
        .listCheckpoints('demo-support-refund')
        .find((c) => c.boundary === 'before_tool_call' && c.toolName === 'issue_refund');
      assert.equal(refund?.forkCheckpointIndex, at?.index);
      assert.equal(refund?.outcome, 'diverged', refund?.detail); // the mocked result is a new message to the model
      assert.deepEqual(refund?.assertions, [{ name: 'declined', passed: true, sourcePassed: false }]);
      assert.equal(escalation?.outcome, 'failed');
      assert.match(escalation?.detail ?? '', /has no checkpoint where .*issue_refund/);
      assert.equal(report.certificate.rows.find((r) => r.sideEffectLevel === 'external_irreversible')?.mock, 1);
    } finally {
      store.close();
    }
  });
});

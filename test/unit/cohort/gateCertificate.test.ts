/**
 * The certificate, the JUnit report and the command-line forms of a batch, on results shaped as a batch makes
 * them: a write tool that ran unnamed breaks the certificate (and the JUnit report says so); one named with its
 * own policy and acknowledged does not, and `*` never counts as naming it; assertions and fork points parse as
 * typed; run data with XML's special characters stays well-formed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseForkPoint } from '../../../src/cohort/cohortSelection';
import { gateCertificate } from '../../../src/cohort/gateCertificate';
import { junitReport } from '../../../src/cohort/junitReport';
import { ratesOf, type WhatIfReport } from '../../../src/cohort/whatIfBatch';
import { WhatIfSpecSchema, type GateEntry, type WhatIfRunResult } from '../../../src/cohort/whatIfSpec';
import { parseAssertion } from '../../../src/cli/commands/whatIfCommand';

function result(id: string, gate: GateEntry[], extra: Partial<WhatIfRunResult> = {}): WhatIfRunResult {
  return {
    sourceRunId: id,
    sourceStatus: 'completed',
    forkRunId: `${id}-fork`,
    outcome: 'same',
    detail: 'same as recorded',
    toolChanges: [],
    assertions: [],
    tokens: { source: 0, fork: 0, spent: 0 },
    timeMs: { source: 0, fork: 0 },
    gate,
    ...extra,
  };
}

const reused = (toolName: string, level: GateEntry['sideEffectLevel'], count = 1): GateEntry => ({
  toolName,
  sideEffectLevel: level,
  policy: 'reuse_result',
  answeredBy: 'recording',
  count,
});
const executed = (toolName: string, level: GateEntry['sideEffectLevel']): GateEntry => ({
  toolName,
  sideEffectLevel: level,
  policy: 're_execute',
  answeredBy: 'executed',
  count: 1,
});

describe('the gate certificate', () => {
  it('counts every call by side-effect level and answer, and is clean when nothing ran', () => {
    const spec = WhatIfSpecSchema.parse({ cohort: {}, fork: { toolPolicyMap: { '*': 'reuse_result' } } });
    const cert = gateCertificate(spec, [
      result('a', [reused('lookup_order', 'read_only', 2), reused('issue_refund', 'external_irreversible')]),
      result('b', [reused('lookup_order', 'read_only')]),
    ]);
    assert.equal(cert.clean, true);
    assert.equal(cert.calls, 4);
    assert.deepEqual(
      cert.rows.map((r) => [r.sideEffectLevel, r.recording, r.executed]),
      [
        ['read_only', 3, 0],
        ['external_irreversible', 1, 0],
      ],
    );
    assert.match(cert.statement, /^4 tool calls in 2 forks: 4 answered without running, 0 executed/);
  });

  it("is broken by a write tool that ran without its own name, and '*' does not name it", () => {
    const spec = WhatIfSpecSchema.parse({
      cohort: {},
      fork: { toolPolicyMap: { '*': 're_execute' } },
      acknowledgedTools: ['*', 'write_case_report'],
    });
    const cert = gateCertificate(spec, [
      result('a', [executed('write_case_report', 'write'), executed('format_currency', 'none')]),
    ]);
    assert.equal(cert.clean, false);
    assert.match(cert.statement, /^GATE VIOLATION: write_case_report \(write\) ran/);
    assert.deepEqual(
      cert.executed.map((e) => [e.toolName, e.allowed]),
      [
        ['format_currency', true],
        ['write_case_report', false],
      ],
    );
    const report: WhatIfReport = {
      spec,
      total: 1,
      resumed: 0,
      results: [],
      rates: ratesOf(spec, []),
      certificate: cert,
    };
    assert.match(junitReport(report), /name="gate certificate"><failure message="GATE VIOLATION/);
  });

  it('is clean when the write tool was named with its own policy and acknowledged', () => {
    const spec = WhatIfSpecSchema.parse({
      cohort: {},
      fork: { toolPolicyMap: { '*': 'reuse_result', write_case_report: 're_execute' } },
      acknowledgedTools: ['write_case_report'],
    });
    const cert = gateCertificate(spec, [result('a', [executed('write_case_report', 'write')])]);
    assert.equal(cert.clean, true);
    assert.match(cert.statement, /were named and acknowledged; nothing else ran/);
  });
});

describe('the JUnit report', () => {
  it('fails a run whose fork failed or whose assertion failed, not one that only diverged; escapes run data', () => {
    const spec = WhatIfSpecSchema.parse({ cohort: {}, fork: {}, assertions: [{ name: 'a<b', expression: 'x' }] });
    const results = [
      result('r&1', [], {
        outcome: 'diverged',
        detail: 'diverged at step 2 · system prompt',
        assertions: [{ name: 'a<b', passed: true }],
      }),
      result('r2', [], {
        outcome: 'failed',
        detail: 'Run r2 has no "step 9"',
        failureCode: 'checkpoint_not_found',
        assertions: [],
      }),
      result('r3', [], { assertions: [{ name: 'a<b', passed: false, sourcePassed: true }] }),
    ];
    const xml = junitReport({
      spec,
      total: 3,
      resumed: 0,
      results,
      rates: ratesOf(spec, results),
      certificate: gateCertificate(spec, results),
    });
    assert.match(xml, /<testsuites name="ocdb what-if" tests="6" failures="2">/);
    assert.match(xml, /classname="what-if\.r&amp;1" name="fork"><system-out>diverged: diverged at step 2/);
    assert.match(
      xml,
      /classname="what-if\.r2" name="fork"><failure message="Run r2 has no &quot;step 9&quot;" type="checkpoint_not_found">/,
    );
    assert.match(
      xml,
      /classname="what-if\.r3" name="a&lt;b"><failure message="does not hold at the fork&apos;s end \(it held in the recording\)"/,
    );
    assert.doesNotMatch(xml, /name="a<b"/);
  });
});

describe('what the command line takes', () => {
  it('reads [name=]expression without mistaking an == for a name', () => {
    assert.deepEqual(parseAssertion("no_refund=!tool('issue_refund')"), {
      name: 'no_refund',
      expression: "!tool('issue_refund')",
    });
    assert.deepEqual(parseAssertion("user.roleId == 'auditor'"), {
      name: "user.roleId == 'auditor'",
      expression: "user.roleId == 'auditor'",
    });
    assert.deepEqual(parseAssertion("!tool('issue_refund')"), {
      name: "!tool('issue_refund')",
      expression: "!tool('issue_refund')",
    });
  });

  it('reads fork points: first, an index, a step, a boundary, or an expression', () => {
    assert.deepEqual(parseForkPoint(undefined), { kind: 'first' });
    assert.deepEqual(parseForkPoint('#12'), { kind: 'index', index: 12 });
    assert.deepEqual(parseForkPoint('step:5'), { kind: 'step', stepIndex: 5 });
    assert.deepEqual(parseForkPoint('step:5:before_model_call'), {
      kind: 'step',
      stepIndex: 5,
      boundary: 'before_model_call',
    });
    assert.deepEqual(parseForkPoint('boundary:before_tool_call'), { kind: 'boundary', boundary: 'before_tool_call' });
    assert.deepEqual(parseForkPoint("toolName == 'issue_refund'"), {
      kind: 'expression',
      expression: "toolName == 'issue_refund'",
    });
  });
});

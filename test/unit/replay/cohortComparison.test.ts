/**
 * The N-way comparison on the demo store: the refund run as the baseline beside its auditor fork and the
 * escalation run. The fork is the same up to its fork point and differs after it (no refund); the unrelated
 * escalation differs from the first step; each step names which run differs and how, and `ocdb compare` prints
 * it.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cohortComparisonLines, compareCohort } from '../../../src/replay/cohortComparison';
import { compareRuns } from '../../../src/replay/runComparison';
import { isOcdbError } from '../../../src/model';
import { openDemoStore } from './demoStore';

const store = openDemoStore();
after(() => store.close());

describe('a baseline beside several runs', () => {
  const c = compareCohort(store, 'demo-support-refund', ['demo-support-refund-auditor', 'demo-support-escalation']);

  it('keeps what each pair comparison says, per run', () => {
    const pair = compareRuns(store, 'demo-support-refund', 'demo-support-refund-auditor');
    assert.equal(c.baseline.runId, 'demo-support-refund');
    assert.deepEqual(
      c.members.map((m) => [m.summary.runId, m.relation]),
      [
        ['demo-support-refund-auditor', 'fork'],
        ['demo-support-escalation', 'unrelated'],
      ],
    );
    assert.deepEqual(c.members[0]?.firstDivergence, pair.firstDivergence);
    assert.equal(c.members[0]?.firstDivergence?.stepIndex, 5);
    assert.equal(c.members[1]?.firstDivergence?.stepIndex, 0);
  });

  it('lines the runs up by step: the fork the same before step 5, the escalation different from step 0', () => {
    const step = (i: number) => c.steps.find((s) => s.stepIndex === i);
    assert.equal(step(2)?.cells[0]?.same, true);
    assert.equal(step(2)?.cells[0]?.inherited, true);
    assert.equal(step(2)?.cells[1]?.same, false);
    assert.equal(step(5)?.cells[0]?.same, false);
    assert.ok(
      step(5)?.cells[0]?.differences.some(
        (d) => d.kind === 'toolCalls' && /issue_refund → write_case_report/.test(d.detail),
      ),
    );
    // the escalation has 3 steps: the baseline's later ones are missing there
    assert.equal(step(8)?.cells[1]?.present, false);
    assert.ok(step(8)?.cells[1]?.differences.some((d) => d.kind === 'missing'));
    const refund = c.tools.find((t) => t.toolName === 'issue_refund');
    assert.deepEqual(refund, {
      toolName: 'issue_refund',
      baselineCalls: 1,
      calls: [
        { calls: 0, changed: 0 },
        { calls: 0, changed: 0 },
      ],
    });
  });

  it('prints the differing steps with the run each difference belongs to', () => {
    const text = cohortComparisonLines(c).join('\n');
    assert.match(text, /^Baseline demo-support-refund \(completed\) beside 2 runs:/);
    assert.match(text, /\[1\] demo-support-refund-auditor \(completed, fork\): first differs at step 5/);
    assert.match(text, /step 5: \[1\] .*toolCalls \(issue_refund → write_case_report\).* · \[2\] missing/);
    assert.match(text, /issue_refund: baseline 1 · \[1\] 0 · \[2\] 0/);
  });

  it('asks for at least one other run', () => {
    assert.throws(
      () => compareCohort(store, 'demo-support-refund', []),
      (e: unknown) => isOcdbError(e, 'InvalidInput'),
    );
  });
});

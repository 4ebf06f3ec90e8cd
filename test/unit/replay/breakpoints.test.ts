import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BreakpointSet,
  divergenceCheckpointId,
  globMatches,
  hitConditionMet,
  valueAtPath,
} from '../../../src/replay/breakpoints';
import { ReplayCursor } from '../../../src/replay/replayCursor';
import { RunView } from '../../../src/replay/runView';
import { isOcdbError } from '../../../src/model';
import type { SqlRunStore } from '../../../src/store';
import { openDemoStore } from './demoStore';

/** Continues from `start` (forward) and returns the stops seen until the end. */
function allStops(view: RunView, set: BreakpointSet, start = 0) {
  const cursor = new ReplayCursor(view.summaries, start);
  const stops: { index: number; reason: string; description: string }[] = [];
  for (;;) {
    const r = cursor.seek('forward', (i) => set.check(view, i).stop);
    if (!r.stop) return stops;
    stops.push({ index: r.index, reason: r.stop.reason, description: r.stop.description });
  }
}

describe('breakpoints over a recorded run', () => {
  let store: SqlRunStore;
  let refund: RunView;
  let research: RunView;
  before(() => {
    store = openDemoStore();
    refund = new RunView(store, 'demo-support-refund');
    research = new RunView(store, 'demo-research-rag');
  });
  after(() => store.close());

  it('function breakpoints match tool-name globs before the call; unknown names are unverified', () => {
    const set = new BreakpointSet();
    const res = set.setFunctionBreakpoints([{ name: 'issue_*' }, { name: 'teleport' }], refund.toolNames());
    assert.equal(res[0]?.verified, true);
    assert.equal(res[1]?.verified, false);
    assert.match(res[1]?.message ?? '', /never calls a tool matching `teleport`/);
    const stops = allStops(refund, set);
    assert.equal(stops.length, 1);
    assert.equal(refund.summaries[stops[0]?.index ?? -1]?.toolName, 'issue_refund');
    assert.equal(stops[0]?.reason, 'function breakpoint');
  });

  it('function breakpoint conditions see args and result', () => {
    const set = new BreakpointSet();
    set.setFunctionBreakpoints(
      [{ name: 'get_shipping_events', condition: 'args.trackingNumber != null' }],
      refund.toolNames(),
    );
    const stops = allStops(refund, set);
    assert.equal(stops.length, 1, 'only the retry passes a tracking number');
    const set2 = new BreakpointSet();
    set2.setFunctionBreakpoints(
      [{ name: 'get_shipping_events', condition: 'error.name == "UpstreamTimeout"' }],
      refund.toolNames(),
    );
    const failed = allStops(refund, set2);
    assert.equal(failed.length, 1);
    assert.ok((failed[0]?.index ?? 0) < (stops[0]?.index ?? 0), 'the failing call comes first');
  });

  it('a bad condition leaves the breakpoint unverified with the reason', () => {
    const set = new BreakpointSet();
    const [r] = set.setFunctionBreakpoints([{ name: 'issue_refund', condition: 'args.amount >' }], refund.toolNames());
    assert.equal(r?.verified, false);
    assert.match(r?.message ?? '', /Expression `args.amount >`/);
  });

  it('hit conditions count condition-true hits', () => {
    assert.equal(hitConditionMet('3', 3), true);
    assert.equal(hitConditionMet('>=2', 1), false);
    assert.equal(hitConditionMet('%2', 4), true);
    assert.throws(
      () => hitConditionMet('often', 1),
      (e: unknown) => isOcdbError(e, 'InvalidInput'),
    );
    const set = new BreakpointSet();
    set.setFunctionBreakpoints([{ name: '*', hitCondition: '>=3' }], refund.toolNames());
    const stops = allStops(refund, set);
    const calls = refund.summaries.filter((s) => s.boundary === 'before_tool_call').length;
    assert.equal(stops.length, calls - 2);
  });

  it('source breakpoints sit on transcript lines; a header line is unverified', () => {
    const set = new BreakpointSet();
    const t = refund.transcript();
    const toolLine = t.lines.find((l) => l.toolName === 'send_email' && l.boundary === 'before_tool_call');
    assert.ok(toolLine);
    const res = set.setSourceBreakpoints(refund.runId, t, [{ line: toolLine.line }, { line: 0 }]);
    assert.deepEqual(
      res.map((r) => r.verified),
      [true, false],
    );
    assert.match(res[1]?.message ?? '', /no checkpoint/);
    const stops = allStops(refund, set);
    assert.deepEqual(
      stops.map((s) => s.index),
      [toolLine.checkpointIndex],
    );
  });

  it('log points print and do not stop', () => {
    const set = new BreakpointSet();
    set.setFunctionBreakpoints([{ name: 'lookup_*', logMessage: 'calling {toolName}' }], refund.toolNames());
    const logs: string[] = [];
    for (let i = 0; i < refund.summaries.length; i++) {
      const r = set.check(refund, i);
      assert.equal(r.stop, undefined);
      logs.push(...r.logs);
    }
    assert.deepEqual(logs, ['calling lookup_customer', 'calling lookup_order']);
  });

  it('data breakpoints stop where a runtime-context path changes', () => {
    const set = new BreakpointSet();
    set.setDataBreakpoints([{ dataId: 'runtimeContext.task.stepStates.eligibility' }]);
    const stops = allStops(refund, set);
    assert.ok(stops.length >= 1);
    for (const s of stops) {
      const before = valueAtPath(refund.load(s.index - 1).runtimeContext, 'task.stepStates.eligibility');
      const now = valueAtPath(refund.load(s.index).runtimeContext, 'task.stepStates.eligibility');
      assert.notDeepEqual(before, now);
      assert.equal(s.reason, 'data breakpoint');
    }
  });

  it('exception filters: tool error, irreversible side effect, model stopped for length', () => {
    const set = new BreakpointSet();
    set.setExceptionFilters(['toolError']);
    const errs = allStops(refund, set);
    assert.equal(errs.length, 1);
    assert.match(errs[0]?.description ?? '', /get_shipping_events failed/);

    set.setExceptionFilters(['irreversibleSideEffect']);
    const risky = allStops(refund, set).map((s) => refund.summaries[s.index]?.toolName);
    assert.deepEqual(risky, ['issue_refund', 'write_case_report', 'send_email']);

    set.setExceptionFilters(['modelLength']);
    const cut = allStops(research, set);
    assert.equal(cut.length, 1);
    assert.equal(research.summaries[cut[0]?.index ?? -1]?.finishReason, 'length');

    assert.throws(
      () => set.setExceptionFilters(['everything']),
      (e: unknown) => isOcdbError(e, 'InvalidInput'),
    );
  });

  it("replay divergence: the fork runner's diverged error points at the prompt that differed", () => {
    const cps = refund.summaries;
    const at = cps[10]?.checkpointId;
    assert.equal(
      divergenceCheckpointId(
        { error: { code: 'diverged', divergence: { sourceCheckpointId: at } }, metadata: {} },
        cps,
      ),
      at,
    );
    const step3Call = cps.filter((c) => c.stepIndex === 3 && c.boundary === 'before_model_call').at(-1);
    assert.equal(
      divergenceCheckpointId(
        {
          error: { code: 'diverged', message: 'x', divergence: { stepIndex: 3, sourceCheckpointId: 'elsewhere' } },
          metadata: {},
        },
        cps,
      ),
      step3Call?.checkpointId,
    );
    assert.equal(divergenceCheckpointId({ metadata: { divergence: { stepIndex: 3 } } }, cps), step3Call?.checkpointId);
    assert.equal(divergenceCheckpointId({ error: { name: 'ToolError' }, metadata: {} }, cps), undefined);
    const set = new BreakpointSet();
    set.setExceptionFilters(['replayDivergence']);
    const diverged = Object.assign(Object.create(Object.getPrototypeOf(refund) as object) as RunView, refund, {
      divergenceCheckpointId: step3Call?.checkpointId,
    });
    const stops = allStops(diverged, set);
    assert.deepEqual(
      stops.map((s) => [s.index, s.reason]),
      [[step3Call?.index, 'exception']],
    );
  });

  it('globs are anchored', () => {
    assert.equal(globMatches('issue_*', 'issue_refund'), true);
    assert.equal(globMatches('issue_*', 'reissue_refund'), false);
    assert.equal(globMatches('lookup_?rder', 'lookup_order'), true);
    assert.equal(globMatches('*_*_refund', 'issue_full_refund'), true);
    assert.equal(globMatches('a.b', 'aXb'), false, 'a dot is a dot');
    assert.equal(globMatches('*', ''), true);
    assert.equal(globMatches('?', ''), false);
  });
});

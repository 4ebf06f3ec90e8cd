import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ReplayCursor } from '../../../src/replay/replayCursor';
import { isOcdbError } from '../../../src/model';
import type { CheckpointSummary, SqlRunStore } from '../../../src/store';
import { openDemoStore } from './demoStore';

describe('ReplayCursor stepping rules', () => {
  let store: SqlRunStore;
  let cps: CheckpointSummary[];
  before(() => {
    store = openDemoStore();
    cps = store.listCheckpoints('demo-support-refund');
  });
  after(() => store.close());
  const at = (i: number) => cps[i] as CheckpointSummary;

  it('next and back move one checkpoint and stop at the ends', () => {
    const c = new ReplayCursor(cps);
    assert.equal(c.target('back'), 0);
    for (let i = 0; i < cps.length - 1; i++) assert.equal(c.moveTo(c.target('next')), i + 1);
    assert.equal(c.current.boundary, 'agent_end');
    assert.equal(c.target('next'), c.index, 'agent_end stays put');
    for (let i = cps.length - 1; i > 0; i--) assert.equal(c.moveTo(c.target('back')), i - 1);
  });

  it('step in goes to the next tool boundary of the same ReAct step, else to the next checkpoint', () => {
    const c = new ReplayCursor(cps, 0);
    const t = c.target('stepIn');
    assert.equal(at(t).boundary, 'before_tool_call');
    assert.equal(at(t).stepIndex, 0);
    assert.ok(cps.slice(1, t).every((s) => s.boundary !== 'before_tool_call' && s.boundary !== 'after_tool_call'));
    // from the last tool boundary of a step, step in is a plain next
    const lastOfStep0 = cps.filter((s) => s.stepIndex === 0).at(-1) as CheckpointSummary;
    c.moveTo(lastOfStep0.index);
    assert.equal(c.target('stepIn'), lastOfStep0.index + 1);
  });

  it('step out goes to the first checkpoint of the next step, and from the last step to agent_end', () => {
    const c = new ReplayCursor(cps, 2);
    const t = c.target('stepOut');
    assert.equal(at(t).stepIndex, 1);
    assert.equal(at(t).boundary, 'before_prompt_build');
    const lastStep = Math.max(...cps.map((s) => s.stepIndex));
    c.moveTo(cps.findIndex((s) => s.stepIndex === lastStep));
    assert.equal(at(c.target('stepOut')).boundary, 'agent_end');
  });

  it('seek stops at the first checkpoint check() reports, else at the end / start', () => {
    const c = new ReplayCursor(cps, 0);
    const r = c.seek('forward', (i) => (at(i).toolName === 'issue_refund' ? 'hit' : undefined));
    assert.equal(r.stop, 'hit');
    assert.equal(at(r.index).toolName, 'issue_refund');
    assert.equal(at(r.index).boundary, 'before_tool_call');
    const back = c.seek('backward', () => undefined);
    assert.equal(back.stop, undefined);
    assert.equal(c.index, 0);
    const fwd = c.seek('forward', () => undefined);
    assert.equal(fwd.index, cps.length - 1);
  });

  it('names an unknown checkpoint and refuses an empty run', () => {
    const c = new ReplayCursor(cps);
    assert.throws(
      () => c.indexOf('nope'),
      (e: unknown) => isOcdbError(e, 'CheckpointNotFound') && /nope/.test(e.message),
    );
    assert.throws(
      () => new ReplayCursor([]),
      (e: unknown) => isOcdbError(e, 'CheckpointNotFound'),
    );
  });
});

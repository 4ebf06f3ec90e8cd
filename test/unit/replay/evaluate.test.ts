import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  checkpointState,
  compileExpression,
  desugar,
  evaluateExpression,
  hoverToolResult,
  interpolate,
  isTruthy,
  type EvalState,
} from '../../../src/replay/evaluate';
import { RunView } from '../../../src/replay/runView';
import { isOcdbError } from '../../../src/model';
import type { SqlRunStore } from '../../../src/store';
import { openDemoStore } from './demoStore';

describe('expression language', () => {
  let store: SqlRunStore;
  let view: RunView;
  let atRefund: EvalState;
  let atEnd: EvalState;
  before(() => {
    store = openDemoStore();
    view = new RunView(store, 'demo-support-refund');
    const refund = view.summaries.find((s) => s.boundary === 'before_tool_call' && s.toolName === 'issue_refund');
    assert.ok(refund);
    atRefund = checkpointState(view.load(refund.index), refund.index, (id) => view.toolCall(id));
    atEnd = checkpointState(view.load(view.summaries.length - 1), view.summaries.length - 1, (id) => view.toolCall(id));
  });
  after(() => store.close());

  it('reads paths into the checkpoint state, with negative indexes', () => {
    assert.equal(evaluateExpression('runtimeContext.user.userId', atRefund), 'agent-u-48213');
    const last = atEnd.messages[atEnd.messages.length - 1] as { content: unknown };
    assert.deepEqual(evaluateExpression('messages[-1].content', atEnd), last.content);
    assert.equal(evaluateExpression('toolLedger[0].toolName', atEnd), 'lookup_customer');
    assert.equal(evaluateExpression('boundary', atRefund), 'before_tool_call');
  });

  it('gives a tool boundary its own call, result included (the recording knows it)', () => {
    assert.equal(evaluateExpression('toolName', atRefund), 'issue_refund');
    assert.notEqual(evaluateExpression('result', atRefund), null);
    assert.equal(evaluateExpression('args.orderId', atRefund), 'A-10442');
  });

  it('tool() finds a call by name (the latest) or by id', () => {
    const byName = evaluateExpression('tool("get_shipping_events")', atEnd) as { toolCallId: string; error?: unknown };
    assert.ok(byName.toolCallId);
    assert.equal(byName.error, undefined, 'the latest get_shipping_events call (the retry) succeeded');
    const first = atEnd.toolLedger.find((t) => t.toolName === 'get_shipping_events');
    assert.ok(first);
    assert.deepEqual(evaluateExpression(`tool("${first.toolCallId}").error.name`, atEnd), 'UpstreamTimeout');
    assert.equal(evaluateExpression("tool('no_such_tool')", atEnd), null);
  });

  it('tool("issue_refund") at that call\'s own before_tool_call is that call, result included', () => {
    // the snapshot of a before_tool_call does not hold its own call yet: tool() must still find it
    const own = evaluateExpression('tool("issue_refund")', atRefund) as { toolCallId: string; result?: unknown };
    assert.ok(own, 'tool("issue_refund") is not null at its own before_tool_call');
    assert.equal(own.toolCallId, evaluateExpression('toolCallId', atRefund));
    assert.deepEqual(own.result, evaluateExpression('result', atRefund));
    assert.equal(evaluateExpression('tool("issue_refund").args.orderId', atRefund), 'A-10442');
  });

  it('messages.length (null in JMESPath) says to write length(messages); length() counts', () => {
    assert.throws(
      () => evaluateExpression('messages.length', atRefund),
      (e: unknown) =>
        isOcdbError(e, 'InvalidInput') &&
        /messages is an array/.test(e.message) &&
        /length\(messages\)/.test(e.message),
    );
    assert.throws(() => evaluateExpression('systemPrompt.length', atRefund), /length\(systemPrompt\)/);
    assert.equal(evaluateExpression('length(messages)', atRefund), atRefund.messages.length);
    // a path that is null for another reason stays null
    assert.equal(evaluateExpression('runtimeContext.nothing.length', atRefund), null);
  });

  it('compares and combines with ==, !=, <, >, contains, &&, ||, ! — bare numbers and "strings" are literals', () => {
    assert.equal(evaluateExpression('args.amount > 100 && args.currency == "EUR"', atRefund), true);
    assert.equal(
      evaluateExpression('args.amount < 100 || !(runtimeContext.user.roleId != "support_agent")', atRefund),
      true,
    );
    assert.equal(evaluateExpression("contains(runtimeContext.user.permissions, 'refunds:issue')", atRefund), true);
    assert.equal(evaluateExpression('stepIndex == `5`', atRefund), true);
  });

  it('desugars only outside quotes and never touches indexes or slices', () => {
    assert.equal(desugar('messages[-1].content'), 'messages[-1].content');
    assert.equal(desugar('messages[1:3]'), 'messages[1:3]');
    assert.equal(desugar('a.b == "x"'), 'a.b == `"x"`');
    assert.equal(desugar('a."odd-key".b > 2.5'), 'a."odd-key".b > `2.5`');
    assert.equal(desugar("contains(a, 'x 1')"), "contains(a, 'x 1')");
  });

  it('reports syntax errors as InvalidInput naming the expression', () => {
    assert.throws(
      () => evaluateExpression('runtimeContext.user.(', atRefund),
      (e: unknown) => isOcdbError(e, 'InvalidInput') && /runtimeContext\.user\.\(/.test(e.message),
    );
    assert.throws(
      () => compileExpression('a &&'),
      (e: unknown) => isOcdbError(e, 'InvalidInput'),
    );
  });

  it('uses JMESPath truthiness for conditions', () => {
    for (const v of [false, null, '', [], {}]) assert.equal(isTruthy(v), false);
    for (const v of [true, 0, 'x', [1], { a: 1 }]) assert.equal(isTruthy(v), true);
  });

  it("hover on a tool name or call id gives that call's result, or its error", () => {
    const refund = hoverToolResult('issue_refund', view);
    assert.equal(refund.found, true);
    const failed = view.ledger.find((t) => t.error !== undefined);
    assert.ok(failed);
    assert.deepEqual(hoverToolResult(failed.toolCallId, view).value, { error: failed.error });
    assert.equal(hoverToolResult('runtimeContext', view).found, false);
  });

  it('interpolates {expressions} in log messages and shows a failing part in place', () => {
    assert.equal(
      interpolate('refund {args.amount} {args.currency}', atRefund),
      `refund ${String(evaluateExpression('args.amount', atRefund))} EUR`,
    );
    assert.match(interpolate('bad {a &&}', atRefund), /^bad <Expression/);
  });
});

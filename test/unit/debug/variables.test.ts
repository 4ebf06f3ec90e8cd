import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FrameRef } from '../../../src/debug/frames';
import type { StagedPatch } from '../../../src/debug/stagedEdits';
import { LONG_STRING, UNPAGED_ITEMS, Variables, previewValue } from '../../../src/debug/variables';
import { checkpointState, evaluateExpression } from '../../../src/replay/evaluate';
import { RunView } from '../../../src/replay/runView';
import type { SqlRunStore } from '../../../src/store';
import { RunWriter } from '../../../src/writer/runWriter';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';
import { openDemoStore } from '../replay/demoStore';

describe('Variables', () => {
  let store: SqlRunStore;
  let view: RunView;
  let staged: StagedPatch | undefined;
  let vars: Variables;
  let end: FrameRef;
  before(() => {
    store = openDemoStore();
    view = new RunView(store, 'demo-support-refund');
    vars = new Variables(
      (ref) => ref.view.load(ref.index),
      () => staged,
    );
    end = { view, index: view.summaries.length - 1 };
  });
  after(() => store.close());

  const scope = (ref: FrameRef, name: string) => {
    const s = vars.scopes(ref).find((x) => x.name === name);
    assert.ok(s, name);
    return s;
  };

  it('pages large arrays by start and count', () => {
    const messages = scope(end, 'Messages');
    assert.equal(messages.indexedVariables, view.load(end.index).messages.length);
    const page = vars.variables(messages.variablesReference, 5, 4);
    assert.deepEqual(
      page.map((v) => v.name),
      ['5', '6', '7', '8'],
    );
    assert.deepEqual(
      page.map((v) => v.evaluateName),
      ['messages[5]', 'messages[6]', 'messages[7]', 'messages[8]'],
    );
  });

  it('an array asked for whole (no count) comes as index ranges, nested when they would be more than 100', () => {
    const xs = Array.from({ length: 25_000 }, (_, i) => `item ${i}`);
    const root = vars.evaluateResult(end, 'xs', xs, 'watch');
    assert.equal(root.indexedVariables, 25_000);
    const top = vars.variables(root.variablesReference);
    assert.deepEqual(
      top.map((v) => [v.name, v.indexedVariables, v.presentationHint?.kind]),
      [
        ['[0 … 9999]', 10_000, 'virtual'],
        ['[10000 … 19999]', 10_000, 'virtual'],
        ['[20000 … 24999]', 5_000, 'virtual'],
      ],
    );
    const third = vars.variables((top[2] as { variablesReference: number }).variablesReference);
    assert.equal(third.length, 50);
    assert.equal(third[1]?.name, '[20100 … 20199]');
    const items = vars.variables((third[1] as { variablesReference: number }).variablesReference);
    assert.equal(items.length, UNPAGED_ITEMS);
    assert.deepEqual([items[0]?.name, items[0]?.value], ['20100', '"item 20100"']);
    // a paging client asks a range for a page of it, counted from the range's first item
    assert.deepEqual(
      vars.variables((third[1] as { variablesReference: number }).variablesReference, 98, 10).map((v) => v.name),
      ['20198', '20199'],
    );
    // at most UNPAGED_ITEMS items are listed whole; the paged request of the whole array still gets items
    const short = vars.evaluateResult(end, 'ys', xs.slice(0, UNPAGED_ITEMS), 'watch');
    assert.equal(vars.variables(short.variablesReference).length, UNPAGED_ITEMS);
    assert.deepEqual(
      vars.variables(root.variablesReference, 12_345, 2).map((v) => v.name),
      ['12345', '12346'],
    );
    // an array has no named children; an object no indexed ones
    assert.deepEqual(vars.variables(root.variablesReference, undefined, undefined, 'named'), []);
    assert.deepEqual(vars.variables(scope(end, 'Checkpoint').variablesReference, undefined, undefined, 'indexed'), []);
  });

  it('shortens long strings in the value and gives them whole as one child', () => {
    const long = 'x'.repeat(LONG_STRING + 50);
    assert.ok(previewValue(long).length < long.length);
    const checkpoint = vars.variables(scope(end, 'Checkpoint').variablesReference);
    const prompt = checkpoint.find((v) => v.name === 'systemPrompt');
    assert.ok(prompt && prompt.variablesReference > 0);
    const [whole] = vars.variables(prompt.variablesReference);
    assert.equal(whole?.value, view.load(end.index).systemPrompt);
  });

  it('tool ledger entries carry args, result or error, side effect, policy and duration', () => {
    const ledger = vars.variables(scope(end, 'Tool Ledger').variablesReference);
    const failed = ledger.find((v) => v.value.includes('✗'));
    assert.ok(failed);
    const fields = Object.fromEntries(vars.variables(failed.variablesReference).map((v) => [v.name, v.value]));
    assert.equal(fields.toolName, '"get_shipping_events"');
    assert.equal(fields.sideEffectLevel, '"read_only"');
    assert.equal(fields.durationMs, '10004');
    assert.ok(fields.error && fields.args && fields.replayPolicy);
  });

  it("a held call's entry shows heldByDebuggerMs, and its evaluate name gives the same number", () => {
    const held = tmpStore();
    const writer = RunWriter.create(held, {
      runId: 'held-run',
      agentId: 'agent',
      state: { runtimeContext: testContext() },
    });
    writer.beginTool({ toolCallId: 'held', toolName: 'lookup', args: { id: 1 }, sideEffectLevel: 'read_only' });
    writer.held('held', 1_500);
    writer.finishTool('held', 'success', { ok: true });
    writer.end({ status: 'completed' });
    const heldView = new RunView(held, 'held-run');
    const heldVars = new Variables(
      (ref) => ref.view.load(ref.index),
      () => undefined,
    );
    const last = { view: heldView, index: heldView.summaries.length - 1 };
    const ledgerScope = heldVars.scopes(last).find((x) => x.name === 'Tool Ledger');
    assert.ok(ledgerScope);
    const [entry] = heldVars.variables(ledgerScope.variablesReference);
    assert.ok(entry);
    const field = heldVars.variables(entry.variablesReference).find((v) => v.name === 'heldByDebuggerMs');
    assert.equal(field?.value, '1500');
    assert.ok(field?.evaluateName);
    const state = checkpointState(heldView.load(last.index), last.index, (id) => heldView.toolCall(id));
    const value = evaluateExpression(field.evaluateName, state);
    assert.equal(value, 1_500, `${field.evaluateName} evaluates to the hold shown`);
    held.close();
  });

  it('the Runtime Context shows staged edits at the checkpoint they were made at, and knows its paths', () => {
    const cp = view.load(0);
    staged = { runId: view.runId, checkpointId: cp.checkpointId, contextPatch: { user: { roleId: 'auditor' } } };
    const ctx = vars.variables(scope({ view, index: 0 }, 'Runtime Context').variablesReference);
    const user = ctx.find((v) => v.name === 'user');
    assert.ok(user);
    const roleId = vars.variables(user.variablesReference).find((v) => v.name === 'roleId');
    assert.equal(roleId?.value, '"auditor"');
    assert.equal(roleId?.evaluateName, 'runtimeContext.user.roleId');
    assert.deepEqual(vars.container(user.variablesReference)?.contextPath, ['user']);
    const elsewhere = vars.variables(scope({ view, index: 1 }, 'Runtime Context').variablesReference);
    const user1 = elsewhere.find((v) => v.name === 'user');
    assert.equal(
      vars.variables(user1?.variablesReference ?? 0).find((v) => v.name === 'roleId')?.value,
      '"support_agent"',
    );
    staged = undefined;
  });
});

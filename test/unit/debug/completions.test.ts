/** Debug Console / Watch completions and the argument checks of the standard DAP requests (pure parts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { completionsAt, type CompletionSource } from '../../../src/debug/completions';
import { SILENT_COMMANDS, toDapError } from '../../../src/debug/dapErrors';
import { NOT_SUPPORTED, parseRequestArgs } from '../../../src/debug/requestArgs';
import { contextPathOf } from '../../../src/debug/stagedEdits';
import { OcdbError } from '../../../src/model';

const state: Record<string, unknown> = {
  runtimeContext: { user: { roleId: 'analyst' }, 'cost-center': 'x' },
  runId: 'r',
  messages: [{ role: 'user' }, { role: 'assistant' }],
};
const src: CompletionSource = {
  fields: Object.keys(state),
  toolNames: ['lookup_order', 'lookup_customer', 'issue_refund'],
  valueOf: (path) => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], state),
};
const labels = (text: string, cursor = text.length) => completionsAt(text, cursor, src).map((c) => c.label);

describe('completions', () => {
  it('top-level fields and functions by prefix', () => {
    assert.deepEqual(labels('ru').sort(), ['runId', 'runtimeContext']);
    assert.ok(labels('starts').includes('starts_with()'));
    assert.ok(labels('').includes('tool()'));
  });
  it('keys after a dot, quoted when they are not identifiers', () => {
    const items = completionsAt('runtimeContext.', 15, src);
    assert.deepEqual(
      items.map((i) => [i.label, i.text]),
      [
        ['user', 'user'],
        ['cost-center', '"cost-center"'],
      ],
    );
    assert.deepEqual(labels('x && runtimeContext.user.r'), ['roleId']);
    assert.deepEqual(labels('runtimeContext."co'), ['cost-center']);
  });
  it('tool names inside tool(" and tool(\'', () => {
    assert.deepEqual(labels('tool("lookup_'), ['lookup_customer', 'lookup_order']);
    const [item] = completionsAt("tool('iss", 9, src);
    assert.deepEqual([item?.text, item?.start, item?.length], ["issue_refund')", 6, 3]);
  });
  it('indexes after [ for arrays, nothing for other values', () => {
    assert.deepEqual(labels('messages['), ['0]', '1]', '-1]']);
    assert.deepEqual(labels('runId['), []);
  });
  it('completes at the cursor, not at the end of the text', () => {
    assert.deepEqual(labels('runtimeContext.us == 1', 17), ['user']);
  });
});

describe('request arguments', () => {
  it('name the missing or invalid argument', () => {
    assert.throws(() => parseRequestArgs('setBreakpoints', {}), /setBreakpoints: argument source is required\.$/);
    assert.throws(
      () => parseRequestArgs('variables', { variablesReference: 'x' }),
      /variables: argument variablesReference is invalid: .* \(got the string "x"\)/,
    );
    assert.throws(() => parseRequestArgs('scopes', 3), /scopes: the arguments must be an object/);
  });
  it('default pathFormat to path and pass requests without a schema through', () => {
    assert.deepEqual(parseRequestArgs('initialize', { adapterID: 'a' }), { adapterID: 'a', pathFormat: 'path' });
    assert.equal(parseRequestArgs('fork', 7), 7);
  });
  it('refuse the requests the adapter does not implement, saying what to do', () => {
    assert.match(NOT_SUPPORTED.restart ?? '', /disconnect and launch again/);
    assert.equal(NOT_SUPPORTED.attach, undefined, 'attach is answered (a running agent)');
  });
});

describe('setExpression paths', () => {
  it('a runtime-context path becomes its segments', () => {
    assert.deepEqual(contextPathOf('runtimeContext.user.roleId'), ['user', 'roleId']);
    assert.deepEqual(contextPathOf('runtimeContext.items[2]."cost-center"'), ['items', 2, 'cost-center']);
  });
  it('anything else is not a path', () => {
    for (const e of ['runtimeContext', 'messages[0]', 'runtimeContext.a || 1', 'runtimeContextX.a']) {
      assert.equal(contextPathOf(e), undefined, e);
    }
  });
});

describe('silent errors', () => {
  it("evaluate in every context and the views' own lookups are silent; a step or an edit is shown", () => {
    const err = new OcdbError('InvalidInput', 'no');
    for (const c of ['evaluate', 'completions', 'variables', 'scopes', 'stackTrace']) {
      assert.ok(SILENT_COMMANDS.has(c));
      assert.equal(toDapError(err, c).showUser, false, c);
    }
    for (const c of ['next', 'launch', 'setVariable', 'setExpression', 'goto'])
      assert.equal(toDapError(err, c).showUser, true, c);
  });
});

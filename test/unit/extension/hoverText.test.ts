/**
 * The tool-call hover of a transcript: args and result as shortened JSON with
 * a link that opens the whole value, and hostile strings that stay text.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeBlock, shortJson, toolCallHoverMarkdown, valueLink } from '../../../src/extension/hoverText';
import { COMMANDS } from '../../../src/extension/ids';
import type { ToolCallRecord } from '../../../src/model';
import { openDemoStore } from './demoStore';

test('the hover of a demo tool call shows its side effect, policy, args and result, with links to the whole values', () => {
  const demo = openDemoStore();
  try {
    const call = demo.store.listToolCalls('demo-support-refund').find((c) => c.toolName === 'lookup_order');
    assert.ok(call);
    const md = toolCallHoverMarkdown('demo-support-refund', call);
    assert.match(md, /\*\*lookup\\_order\*\*/);
    assert.match(md, /read_only — reads data, changes nothing · policy reuse_result/);
    assert.match(md, /"orderId": "A-10442"/);
    assert.match(md, /\*\*Result\*\*/);
    const link = md.match(/\]\((command:[^)]+)\)/g) ?? [];
    assert.equal(link.length, 2, 'one link for the args, one for the result');
    const arg = JSON.parse(
      decodeURIComponent((link[1] ?? '').replace(/^\]\(command:agentTimeTravel\.showValue\?/, '').slice(0, -1)),
    );
    assert.deepEqual(arg, [{ runId: 'demo-support-refund', toolCallId: call.toolCallId, part: 'result' }]);
  } finally {
    demo.cleanup();
  }
});

test('a failed call shows its error instead of a result', () => {
  const demo = openDemoStore();
  try {
    const failed = demo.store.listToolCalls('demo-support-refund').find((c) => c.error !== undefined);
    assert.ok(failed);
    const md = toolCallHoverMarkdown('demo-support-refund', failed);
    assert.match(md, /\*\*\$\(error\) Error\*\*/);
    assert.doesNotMatch(md, /\*\*Result\*\*/);
  } finally {
    demo.cleanup();
  }
});

test('long values are cut to a few lines and say so; short ones are whole', () => {
  const long = shortJson({ items: Array.from({ length: 50 }, (_, i) => ({ i, text: 'x'.repeat(40) })) });
  assert.equal(long.cut, true);
  assert.ok(long.text.split('\n').length <= 15);
  assert.ok(long.text.endsWith('…'));
  assert.deepEqual(shortJson({ a: 1 }), { text: '{\n  "a": 1\n}', cut: false });
});

test('hostile strings cannot close the code fence or inject HTML / command links', () => {
  const hostile = '<img src=x onerror=alert(1)> ``` [x](command:workbench.action.terminal.new)';
  const block = codeBlock(hostile);
  assert.ok(block.startsWith('````json\n'), 'the fence is longer than any backtick run inside');
  const call: ToolCallRecord = {
    toolCallId: 'call_1',
    toolName: '<img src=x onerror=alert(1)>',
    args: { q: hostile },
    argsHash: '0123456789abcdef',
    result: hostile,
    sideEffectLevel: 'read_only',
    replayPolicy: 'reuse_result',
    startedAt: 0,
    endedAt: 5,
  };
  const md = toolCallHoverMarkdown('r', call);
  assert.ok(md.includes('\\<img src=x onerror=alert\\(1\\)\\>'), 'the tool name is escaped');
  const outsideBlocks = md.replace(/(`{3,})json\n[\s\S]*?\n\1/g, '');
  assert.doesNotMatch(outsideBlocks, /(^|[^\\])<img/, 'HTML outside code blocks is escaped');
  assert.doesNotMatch(outsideBlocks, /command:workbench/);
  assert.ok(valueLink({ runId: 'r', toolCallId: 'c', part: 'args' }).startsWith(`command:${COMMANDS.showValue.id}?`));
});

test('a tool output of several lines shows as those lines, not as one escaped JSON string', () => {
  const base: ToolCallRecord = {
    toolCallId: 'toolu_1',
    toolName: 'Bash',
    args: { command: 'bd ready' },
    argsHash: 'h',
    sideEffectLevel: 'external_irreversible',
    replayPolicy: 'forbid_replay',
    startedAt: 0,
    endedAt: 985,
  };
  const output = '📋 Ready work (2 issues):\n1. [P1] spotter-a0y\n2. [P2] spotter-b11';
  const md = toolCallHoverMarkdown('cc-1', { ...base, result: output });
  assert.ok(md.includes('```text\n📋 Ready work (2 issues):\n1. [P1] spotter-a0y\n2. [P2] spotter-b11\n```'), md);
  assert.doesNotMatch(md, /\\n/);
  // Claude Code's Task answers a list of text blocks; an object's multi-line field is set out below its JSON
  const blocks = toolCallHoverMarkdown('cc-1', { ...base, result: [{ type: 'text', text: 'Found it.\nLine 2' }] });
  assert.ok(blocks.includes('```text\nFound it.\nLine 2\n```'), blocks);
  const fields = toolCallHoverMarkdown('demo', { ...base, result: { exitCode: 1, output: 'FAIL a\n  expected 1' } });
  assert.match(fields, /"output": "\(2 lines, below\)"/);
  assert.ok(fields.includes('`output`\n\n```text\nFAIL a\n  expected 1\n```'), fields);
});

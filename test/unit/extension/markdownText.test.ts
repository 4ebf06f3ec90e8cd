/**
 * Run data never becomes a link, an image, an icon or a command in what VS
 * Code renders: tooltips and hovers (markdown, rendered here with markdown-it
 * and GFM autolinks as VS Code's renderer does) and notifications (VS Code's
 * own `[label](target)` link syntax).
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import MarkdownIt from 'markdown-it';
import type { ToolCallRecord } from '../../../src/model';
import type { CheckpointSummary, RunSummary } from '../../../src/store';
import { positionTooltip } from '../../../src/extension/format';
import { toolCallHoverMarkdown } from '../../../src/extension/hoverText';
import { mdCode, mdText, notificationText } from '../../../src/extension/markdownText';
import { checkpointView, runView, toolCallView } from '../../../src/extension/runsTreeModel';

const md = new MarkdownIt({ linkify: true, html: false });

/** VS Code's notification link syntax (src/vs/base/common/linkedText.ts). */
const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

export const HOSTILE_STRINGS = [
  '[click me](command:workbench.action.terminal.new)',
  '![](https://evil.example/beacon.png)',
  '<img src="https://evil.example/b.png">',
  'https://evil.example/autolink',
  '$(alert) icon',
  '`code` ``more`` ```',
  '# heading\n\n[x](command:evil)',
  '[a]\n(command:evil)',
  '[ref]: https://evil.example\n[ref]',
  '**bold** _em_ ~~strike~~ | table |',
  '<https://evil.example/auto>',
  'www.evil.example',
  '\\[escaped\\](command:evil)',
];

function assertInert(markdown: string, where: string): void {
  const html = md.render(markdown);
  assert.doesNotMatch(html, /<a |<img |<h\d/, `${where}: ${JSON.stringify(markdown)} rendered ${html}`);
  // theme icons: `$(name)` of the data, not preceded by a backslash
  assert.doesNotMatch(markdown, /(^|[^\\])\$\(alert\)/, where);
}

const run = (over: Partial<RunSummary>): RunSummary => ({
  runId: 'r',
  sessionId: 's',
  agentId: 'a',
  status: 'failed',
  mode: 'fork',
  startedAt: 0,
  endedAt: 10,
  metadata: {},
  checkpointCount: 1,
  toolCallCount: 1,
  toolErrorCount: 0,
  stepCount: 1,
  inputTokens: 0,
  outputTokens: 0,
  crashed: false,
  changeSeq: 1,
  ...over,
});

const call = (over: Partial<ToolCallRecord>): ToolCallRecord => ({
  toolCallId: 't',
  toolName: 'tool',
  args: {},
  argsHash: '0123456789abcdef',
  sideEffectLevel: 'none',
  replayPolicy: 'reuse_result',
  startedAt: 0,
  endedAt: 1,
  ...over,
});

test('runs tree, status bar and hover tooltips render run data as plain text', () => {
  for (const s of HOSTILE_STRINGS) {
    assertInert(
      runView(run({ runId: s, agentId: s, parentRunId: s, forkFromCheckpointId: s, error: { message: s } }), 0)
        .tooltip ?? '',
      'run tooltip',
    );
    const cp: CheckpointSummary = {
      checkpointId: s,
      runId: s,
      index: 0,
      boundary: 'before_tool_call',
      stepIndex: 0,
      toolName: s,
      messageCount: 0,
      createdAt: 0,
    } as CheckpointSummary;
    assertInert(checkpointView(cp).tooltip ?? '', 'checkpoint tooltip');
    assertInert(
      toolCallView(call({ toolName: s, toolCallId: s, args: { s }, error: { name: 'E', message: s } })).tooltip ?? '',
      'tool tooltip (error)',
    );
    assertInert(toolCallView(call({ toolName: s, toolCallId: s, result: s })).tooltip ?? '', 'tool tooltip (result)');
    assertInert(positionTooltip({ runId: s, checkpointCount: 3 }, { index: 0, toolName: s }), 'status bar tooltip');
    const hoverHead = toolCallHoverMarkdown(s, call({ toolName: s, toolCallId: s })).split('\n\n---\n\n')[0] ?? '';
    assertInert(hoverHead, 'hover');
  }
});

test('escaped text still reads as the data', () => {
  const html = md.renderInline(mdText('[click me](command:x) $(alert) a_b'));
  assert.equal(html, '[click me](command:x) $(alert) a_b');
  assert.equal(md.renderInline(mdCode('a ``b`` c')), '<code>a ``b`` c</code>');
});

test('notifications never carry a link made of data', () => {
  for (const s of HOSTILE_STRINGS) {
    const text = notificationText(`Imported 1 run: ${s}`);
    assert.equal([...text.matchAll(NOTIFICATION_LINK)].length, 0, text);
    assert.match(text, /^Imported 1 run: /);
  }
  assert.equal(
    notificationText('Fork f failed: see [docs](https://x.example).'),
    'Fork f failed: see [docs] (https://x.example).',
  );
});

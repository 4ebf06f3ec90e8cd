/**
 * What `ocdb view`'s file holds, read as text: secrets redacted as in an export (a key in a tool's arguments, in
 * its result, in an artifact), a checkpoint anchor per transcript line, the runs and their status as plain HTML,
 * nothing the CSP would let reach the network, and a size that stays bounded for a 2,000-checkpoint run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viewFileHtml } from '../../../src/cli/viewFile';
import { openRecorder } from '../../../src/recorder';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

const KEY = 'sk-proj-abcdefghijklmnopqrstuvwx';

test('secrets are redacted everywhere in the file, and each checkpoint is an anchor', () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: false });
  const run = recorder.startRun({ agentId: 'a', runId: 'secret-run', runtimeContext: testContext() });
  run.checkpoint('before_model_call', { messages: [{ role: 'user', content: `use ${KEY}` }] });
  run.checkpoint('after_model_call', { usage: { inputTokens: 10, outputTokens: 2 } });
  const id = run.beginTool(
    'call_api',
    { apiKey: KEY, q: 'x' },
    { sideEffectLevel: 'read_only', replayPolicy: 'reuse_result' },
  );
  run.finishTool(id, 'success', { echoed: `Authorization: Bearer ${KEY}` });
  run.artifact({ type: 'text', name: 'notes.txt', content: `token=${KEY}\n` });
  run.end();
  recorder.close();
  const html = viewFileHtml(store, 'secret-run', { withForks: true, bundle: '/* page */' });
  assert.ok(!html.includes(KEY), 'the key appears nowhere');
  assert.ok(!html.includes('abcdefghijklmnop'), 'nor a part of it');
  assert.match(html, /\[REDACTED\]/);
  for (let i = 0; i < store.getRun('secret-run').checkpointCount; i++) assert.match(html, new RegExp(`id="cp=${i}"`));
  assert.match(
    html,
    /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;|default-src 'none'/,
  );
  assert.doesNotMatch(html, /<(?:img|link|iframe)\b|https?:\/\//, 'nothing that loads from elsewhere');
  assert.match(html, /secret-run: run · completed · 5 checkpoints · 1 step · /);
});

test('a 2,000-checkpoint run makes a file of bounded size', () => {
  const store = tmpStore();
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, fork: false });
  const run = recorder.startRun({ agentId: 'a', runId: 'long', runtimeContext: testContext() });
  for (let step = 0; step < 500; step++) {
    run.checkpoint('before_model_call', {});
    run.checkpoint('after_model_call', {
      messages: [...run.messages, { role: 'assistant', content: `step ${step} ${'lorem ipsum '.repeat(40)}` }],
      usage: { inputTokens: 100, outputTokens: 10 },
    });
    const id = run.beginTool(
      'search',
      { q: `query ${step}`, page: step },
      { sideEffectLevel: 'read_only', replayPolicy: 'reuse_result' },
    );
    run.finishTool(id, 'success', { hits: Array.from({ length: 20 }, (_, i) => `result ${i} ${'x'.repeat(80)}`) });
  }
  run.end();
  recorder.close();
  assert.equal(store.getRun('long').checkpointCount, 2001);
  const html = viewFileHtml(store, 'long', { withForks: true, bundle: '/* page */' });
  const kib = Buffer.byteLength(html) / 1024;
  // excerpts, not values: each of the 2,001 lines costs a few hundred bytes, whatever the conversation's size
  assert.ok(kib < 2048, `${kib.toFixed(0)} KiB`);
  assert.match(html, /id="cp=2000"/);
});

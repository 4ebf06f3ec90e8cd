/**
 * The webview's edges: the HTML shell's Content Security Policy and the zod
 * message unions both sides validate with.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { contentSecurityPolicy, webviewHtml } from '../../../src/extension/webviewHtml';
import { HostMessageSchema, PageMessageSchema, parseMessage } from '../../../src/webview/protocol';

test('the page has a strict CSP: nothing by default, scripts only with the nonce, no inline or eval', () => {
  const csp = contentSecurityPolicy('https://webview.test', 'abc123');
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-abc123'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  const html = webviewHtml({
    cspSource: 'https://webview.test',
    scriptUri: 'https://webview.test/dist/webview.js',
    styleUri: 'https://webview.test/media/contextEditor.css',
    codiconsUri: 'https://webview.test/dist/codicons/codicon.css"><script>alert(1)</script>',
    nonce: 'abc123',
  });
  assert.match(html, /<script nonce="abc123" src="https:\/\/webview.test\/dist\/webview.js"><\/script>/);
  assert.equal((html.match(/<script/g) ?? []).length, 1, 'a hostile URI cannot add a script');
  assert.match(html, /id="vscode-codicon-stylesheet"/);
});

test('messages from the page are validated, and a bad one says where it is wrong', () => {
  assert.deepEqual(parseMessage(PageMessageSchema, { type: 'ready' }), { ok: true, value: { type: 'ready' } });
  const bad = parseMessage(PageMessageSchema, {
    type: 'fork',
    config: { sourceRunId: 'r', sourceCheckpointId: 'c', toolPolicyMap: { x: 'delete_everything' } },
    acknowledgedTools: [],
  });
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? '' : bad.error, /config\.toolPolicyMap\.x/);
  assert.equal(parseMessage(PageMessageSchema, { type: 'eval', code: 'alert(1)' }).ok, false);
});

test('messages from the host are validated too', () => {
  assert.equal(parseMessage(HostMessageSchema, { type: 'plan', requestId: 1, plan: { tools: [] } }).ok, false);
  assert.equal(
    parseMessage(HostMessageSchema, {
      type: 'show',
      checkpoint: null,
      defaults: { modelMode: 'captured', overrideProvider: '', overrideModel: 'm' },
    }).ok,
    true,
  );
});

test('the page never turns strings into HTML: no innerHTML / outerHTML / insertAdjacentHTML / document.write in src/webview', () => {
  const dir = 'src/webview';
  for (const name of fs.readdirSync(dir)) {
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    assert.doesNotMatch(
      text,
      /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|DOMParser/,
      `${name} builds HTML from strings`,
    );
  }
});

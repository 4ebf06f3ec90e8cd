/**
 * Forking with a local model, as a user does it in the workbench at VS Code's default side bar width: a captured
 * fork with an edited role diverges; its "Set up a model…" runs Set Up Model Endpoint… (any base URL → a
 * local OpenAI-compatible server this test starts on 127.0.0.1, an API key typed once, the model picked from the
 * server's own /models list, the connection tested), then the fork continues with that model to its end, and Replay
 * fork focuses the fork's replay (its transcript, its Call Stack, the status bar) while the parent's was paused.
 * Runs after replayFlow.ui.ts (file order), which expects no endpoint configured yet.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/agents/fakeModelServer';
import type { UiTest } from './uiTest';
import {
  clickNotificationButton,
  callStackFrames,
  chooseOption,
  clickInlineAction,
  debugToolbarButton,
  expandRow,
  openAgentRuns,
  openRunAndDebug,
  row,
  viewPane,
  waitForRuns,
  webviewContent,
  widenSideBar,
} from './workbench';

const REFUND = 'demo-support-refund';
const KEY = 'sk-local-test-key-0042';
const MODELS = ['llama3.2:1b', 'qwen2.5:0.5b'];
let server: FakeModelServer | undefined;
let forkRunId = '';

/** The quick input once its title reads `title`: its input box. */
async function quickInput(page: Page, title: RegExp) {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 15_000 });
  return page.locator('.quick-input-widget .quick-input-box input');
}

/** Picks the row of the open quick pick whose label is `label`. */
async function pick(page: Page, title: RegExp, label: string): Promise<void> {
  const input = await quickInput(page, title);
  await input.fill(label);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first().waitFor();
  await page.keyboard.press('Enter');
}

export const tests: UiTest[] = [
  {
    name: 'a diverged fork’s “Set up a model…” asks for a base URL and a key, lists the models, tests them',
    async run({ page, screenshot }) {
      server = await startFakeModelServer(() => ({ content: 'The refund of 189 EUR is approved.' }), {
        models: MODELS,
        requireKey: KEY,
      });
      const pane = await waitForRuns(page, [REFUND]);
      await widenSideBar(page, 300);
      // a replay paused on the refund run; Context & Fork follows it
      await clickInlineAction(row(pane, REFUND).first(), 'Replay Run');
      await debugToolbarButton(page, 'Step Over').waitFor({ timeout: 30_000 });
      await openAgentRuns(page);
      const editor = webviewContent(page);
      await editor.locator('[data-position]', { hasText: /^\[0\] step 0 · before_prompt_build/ }).waitFor({
        timeout: 30_000,
      });
      await editor.locator('vscode-textfield[data-field="user.roleId"] input').fill('auditor');
      await chooseOption(editor.locator('vscode-single-select[data-policy="*"]'), 'reuse_result');
      await editor.locator('vscode-button#fork:not([disabled])').click();
      // no endpoint is configured yet: the diverged outcome offers to set one up
      const diverged = page
        .locator('.notification-toast', { hasText: /diverged at step \d+/ })
        .filter({ hasText: 'Set up a model…' })
        .first();
      await diverged.waitFor({ timeout: 60_000 });
      await diverged.locator('.monaco-button', { hasText: 'Set up a model…' }).click();
      await pick(page, /1\/3/, 'Other OpenAI-compatible endpoint…');
      const url = await quickInput(page, /1\/3\): base URL/);
      await url.fill(`${server.url}/v1`);
      await page.keyboard.press('Enter');
      await pick(page, /2\/3/, 'Enter an API key');
      const key = await quickInput(page, /2\/3\): API key/);
      await key.fill(KEY);
      await page.keyboard.press('Enter');
      // the model step lists what the server answers at /v1/models
      await quickInput(page, /3\/3\): model \(2 listed/);
      for (const m of MODELS) {
        await page.locator('.quick-input-widget .monaco-list-row', { hasText: m }).first().waitFor();
      }
      await screenshot('12-model-endpoint-models');
      await pick(page, /3\/3/, 'qwen2.5:0.5b');
      const saved = page.locator('.notification-toast', { hasText: 'Forks with a real model now call qwen2.5:0.5b' });
      await saved.first().waitFor({ timeout: 20_000 });
      const text = await saved.first().innerText();
      assert.match(text, /secret storage/, text);
      assert.ok(!text.includes(KEY), 'the notification never shows the key');
      const test = server.requests.find((r) => r.tools === undefined);
      assert.equal(test?.authorization, `Bearer ${KEY}`, 'the connection test sent the key');
      assert.equal(test?.model, 'qwen2.5:0.5b');
      await page.mouse.move(700, 10);
      await screenshot('13-model-endpoint-saved');
    },
  },
  {
    name: 'the fork then continues with the local model to its end; Replay fork focuses the fork’s replay',
    async run({ page, screenshot }) {
      assert.ok(server);
      // saving the endpoint goes on with the same fork: going on with a real model replaces the diverged fork, which
      // VS Code asks first, naming it
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 30_000 });
      assert.match(await dialog.innerText(), /Replace the diverged fork \S+\?/);
      await screenshot('13b-replace-diverged-confirm');
      await dialog.locator('.monaco-button', { hasText: /^Replace$/ }).click();
      const done = page
        .locator('.notification-toast', { hasText: /Fork \S+ completed/ })
        .filter({ hasText: 'Replay fork' })
        .first();
      await done.waitFor({ timeout: 60_000 });
      forkRunId = /Fork (\S+) completed/.exec(await done.innerText())?.[1] ?? '';
      assert.ok(forkRunId, 'the outcome names the fork');
      const calls = server.requests.filter((r) => r.tools !== undefined || r.messages.length > 1);
      assert.ok(calls.length >= 1, `the fork called the local model (${server.requests.length} requests)`);
      assert.ok(
        server.requests.every((c) => c.authorization === `Bearer ${KEY}`),
        'always with the key from SecretStorage',
      );
      // the progress notification closes as the outcome shows (the workbench may draw both for a moment)
      await page
        .locator('.notification-toast', { hasText: `Running fork ${forkRunId}` })
        .first()
        .waitFor({ state: 'detached', timeout: 5_000 })
        .catch(() => assert.fail('a "Running fork" progress notification lingers beside the outcome'));
      await page.mouse.move(700, 10);
      await screenshot('14-real-model-fork');
      await clickNotificationButton(page, /Fork \S+ completed/, 'Replay fork');
      // the fork's replay has the focus: its transcript is the active editor, its frame on top of the Call Stack
      await page
        .locator('.tab.active', { hasText: `${forkRunId}.transcript` })
        .waitFor({ timeout: 30_000 })
        .catch(async (e: unknown) => {
          const tabs = await page.locator('.tab').allInnerTexts();
          throw new Error(`${String(e)}; tabs: ${tabs.join(' | ')}`);
        });
      await openRunAndDebug(page);
      const frames = await callStackFrames(page);
      // its frame is the focused one: the Variables view shows the fork's checkpoint (current VS Code draws the
      // scopes collapsed: the Checkpoint scope is opened as a user would)
      const variables = viewPane(page, 'Variables');
      const runIdRow = row(variables, `runId, value "${forkRunId}"`);
      await expandRow(row(variables, 'Checkpoint').first(), runIdRow);
      await runIdRow.first().waitFor({ timeout: 15_000 });
      assert.match(frames[0] ?? '', /step \d+ · /, `Call Stack: ${frames.join(' | ')}`);
      const sessions = await viewPane(page, 'Call Stack').locator('.monaco-list-row .session').allInnerTexts();
      assert.ok(
        sessions.length <= 1 && sessions.every((s) => s.includes(forkRunId)),
        `only the fork's session: ${sessions.join(' | ')}`,
      );
      await page
        .locator('.statusbar-item', { hasText: /\[\d+\] step \d+ · before_prompt_build/ })
        .first()
        .waitFor();
      await page.mouse.move(700, 10);
      await screenshot('15-replay-fork-focused');
      await server.close();
      server = undefined;
    },
  },
];

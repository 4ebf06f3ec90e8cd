/**
 * A failed import says so on screen: a JSON file cut off mid-way, imported with Import Run from the palette and
 * VS Code's own file dialog (which opens at the workspace), ends in an error notification the user sees at once,
 * naming the file and the line and column where the JSON breaks off; the progress notification goes away.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { UiTest, UiWorkspace } from './uiTest';
import { openAgentRuns, runCommand, widenSideBar } from './workbench';

export const workspace: UiWorkspace = 'empty';

const importFile = (name: string): UiTest['run'] =>
  async function ({ page, workspace }) {
    await runCommand(page, 'Agent Time Travel: Import Run');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ timeout: 10_000 });
    // the dialog opens at the workspace folder; typed over only once it has shown it
    await page.waitForFunction(
      ([sel, ws]) => (document.querySelector(sel as string) as HTMLInputElement | null)?.value.startsWith(ws as string),
      ['.quick-input-widget .quick-input-box input', workspace],
    );
    const title = await page.locator('.quick-input-widget .quick-input-title').innerText();
    assert.match(
      title,
      /claude-code, codex, gemini-cli, .*otel.*openai-chat/,
      `the dialog names every format: ${title}`,
    );
    await input.fill(path.join(workspace, name));
    await page.keyboard.press('Enter');
  };

export const tests: UiTest[] = [
  {
    name: 'a truncated JSON file: the error notification shows, naming the file, the line and the column',
    async run(ctx) {
      const { page, workspace, screenshot } = ctx;
      const whole = JSON.stringify(
        { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Where is my order?' }] },
        null,
        2,
      );
      fs.writeFileSync(path.join(workspace, 'cut-off.json'), whole.slice(0, whole.indexOf('Where')));
      await openAgentRuns(page);
      await widenSideBar(page, 300);
      await importFile('cut-off.json')(ctx);
      const toast = page.locator('.notification-toast', { hasText: 'Nothing imported' }).first();
      await toast.waitFor({ timeout: 30_000 });
      const text = await toast.innerText();
      assert.match(text, /cut-off\.json: invalid JSON at line 6, column 19: the file ends inside a string/, text);
      await page.locator('.notification-toast', { hasText: 'Importing' }).waitFor({ state: 'detached' });
      await page.mouse.move(700, 10);
      await screenshot('60-import-truncated-json');
    },
  },
  {
    name: 'a text file: format not recognised, in a few words',
    async run(ctx) {
      const { page, workspace, screenshot } = ctx;
      await page.locator('.notification-toast .codicon-notifications-clear').first().click();
      fs.writeFileSync(path.join(workspace, 'notes.txt'), 'Dear diary,\nthe agent answered twice today.\n');
      await importFile('notes.txt')(ctx);
      const toast = page.locator('.notification-toast', { hasText: 'Nothing imported' }).first();
      await toast.waitFor({ timeout: 30_000 });
      const text = await toast.innerText();
      assert.match(text, /notes\.txt: format not recognised: no format recognises its content\./, text);
      await page.mouse.move(700, 10);
      await screenshot('61-import-text-file');
    },
  },
];

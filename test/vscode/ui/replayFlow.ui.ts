/**
 * The user's path through the extension, in the workbench: open Agent Runs and see the demo runs; replay one from
 * its tree item; step with F10 and back with the toolbar; read the checkpoints in the Call Stack; hover a tool call
 * in the transcript; edit the runtime context and fork; find the fork in the tree; set a Runtime Context value in
 * the Variables view and find it changed in the editor "Fork from this checkpoint" opens. A screenshot per step.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import type { UiTest } from './uiTest';
import {
  callStackFrames,
  chooseMenuItem,
  chooseOption,
  clickInlineAction,
  collapseRow,
  debugToolbarButton,
  expandRow,
  openAgentRuns,
  openRunAndDebug,
  row,
  rowLabels,
  viewPane,
  waitForRuns,
  webviewContent,
  widenSideBar,
} from './workbench';

const REFUND = 'demo-support-refund';
let forkRunId = '';

export const tests: UiTest[] = [
  {
    name: 'the Agent Runs view lists the demo runs',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND, 'demo-research-rag', 'demo-coding-fix']);
      await widenSideBar(page);
      const labels = await pane.locator('.monaco-list-row').allTextContents();
      assert.ok(
        labels.some((l) => l.includes('crashed')),
        `a crashed run is visibly crashed: ${labels.join(' | ')}`,
      );
      await screenshot('01-runs-tree');
    },
  },
  {
    name: 'Replay Run on a tree item starts a paused replay with checkpoint frames in the Call Stack',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND]);
      await clickInlineAction(row(pane, REFUND).first(), 'Replay Run');
      await debugToolbarButton(page, 'Step Over').waitFor({ timeout: 30_000 });
      const frames = await callStackFrames(page);
      assert.match(frames[0] ?? '', /step 0 · before_prompt_build/, `top frame: ${frames.join(' | ')}`);
      // The Variables view shows the checkpoint's scopes.
      const variables = viewPane(page, 'Variables');
      for (const scope of ['Checkpoint', 'Messages', 'Runtime Context']) {
        await row(variables, scope).first().waitFor({ timeout: 15_000 });
      }
      // the list draws only the rows in view: with the Checkpoint scope open, a short Variables pane (its height is
      // whatever an earlier flow left) has the Tool Ledger scope below its end
      await collapseRow(row(variables, 'Scope Checkpoint').first());
      await row(variables, 'Tool Ledger').first().waitFor({ timeout: 15_000 });
      await expandRow(row(variables, 'Scope Checkpoint').first(), row(variables, 'boundary, value'));
      await screenshot('02-replay-paused');
    },
  },
  {
    name: 'F10 steps to the next checkpoint',
    async run({ page, screenshot }) {
      const before = await callStackFrames(page);
      await page.keyboard.press('F10');
      const after = await waitForFrames(
        page,
        (f) => /step 0 · before_model_call/.test(f[0] ?? '') && f.length === before.length + 1,
        'the top frame to become step 0 · before_model_call with one more frame below',
      );
      await page.keyboard.press('F10');
      await waitForFrames(page, (f) => f[0] !== after[0] && f.length === after.length + 1, 'a second step');
      await screenshot('03-stepped-over');
    },
  },
  {
    name: 'the Step Back toolbar button returns to the previous checkpoint',
    async run({ page, screenshot }) {
      const before = await callStackFrames(page);
      await debugToolbarButton(page, 'Step Back').click();
      await waitForFrames(
        page,
        (f) => /step 0 · before_model_call/.test(f[0] ?? '') && f.length === before.length - 1,
        'the top frame to return to step 0 · before_model_call',
      );
      // The status bar follows the replay position.
      await page
        .locator('.statusbar-item', { hasText: /\[1\] step 0 · before_model_call/ })
        .first()
        .waitFor();
      await screenshot('04-stepped-back');
    },
  },
  {
    name: 'hovering a tool call in the transcript while paused shows its side effect, policy, args and result, no Alt',
    async run({ page, screenshot }) {
      const call = page
        .locator('.monaco-editor .view-line', { hasText: /before_tool_call\s·\slookup_customer\(/ })
        .first();
      await call
        .locator('span', { hasText: /^lookup_customer$/ })
        .first()
        .hover();
      // the debugger gets no expression on a tool-call line, so VS Code shows the transcript's own hover at once
      const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'dana.kim@example.com' }).first();
      await hover.waitFor({ timeout: 15_000 });
      const text = (await hover.textContent()) ?? '';
      assert.match(text, /lookup_customer/, text);
      assert.match(text, /C-5531/, `the hover shows the result: ${text}`);
      assert.match(text, /read_only/, `the hover shows the side effect: ${text}`);
      assert.match(text, /policy reuse_result/, `the hover shows the policy: ${text}`);
      assert.match(text, /Open result/, `the hover links to the whole result: ${text}`);
      assert.equal(await page.locator('.debug-hover-widget:visible').count(), 0, 'no bare debug hover on top');
      await screenshot('05-tool-call-hover');
    },
  },
  {
    name: 'editing a context field in the RuntimeContext editor and pressing Fork creates a fork',
    async run({ page, screenshot }) {
      await page.mouse.move(700, 10);
      await openAgentRuns(page);
      await widenSideBar(page, 300); // VS Code's default side bar width
      const editor = webviewContent(page);
      // The editor follows the paused replay: checkpoint [1] of the refund run, numbered as the transcript does.
      await editor.locator('.title', { hasText: REFUND }).waitFor({ timeout: 30_000 });
      await editor.locator('[data-position]', { hasText: /^\[1\] step 0 · before_model_call/ }).waitFor();
      await assertFitsSideBar(editor);
      const role = editor.locator('vscode-textfield[data-field="user.roleId"]');
      await role.locator('input').fill('auditor');
      await editor.locator('[data-row="user.roleId"] .changed-mark').waitFor();
      await role.scrollIntoViewIfNeeded();
      await page.mouse.move(700, 10);
      await screenshot('06-fork-editor-context');
      // Fork starts held by the demo's email and report tools, said in the page's own words and pointing at the
      // control that settles it (no ForkConfig field names)
      const held = editor.locator('.why', { hasText: 'send_email' });
      await held.waitFor({ timeout: 10_000 });
      assert.match(await held.innerText(), /send_email would run again .*choose its Replay policy in Tool policies/);
      const hints = await editor.locator('.hazards .hint').allInnerTexts();
      assert.ok(
        hints.some((t) => /tick "Run write_case_report again"/.test(t)),
        hints.join(' | '),
      );
      for (const t of hints) assert.doesNotMatch(t, /toolPolicyMap|toolMockResults|acknowledge/, t);
      await editor.locator('.hazards').scrollIntoViewIfNeeded();
      await page.mouse.move(700, 10);
      await screenshot('06a-fork-editor-held');
      // Replay every tool from the recording ('*' → reuse_result): nothing runs again, so no hazard needs a tick.
      await chooseOption(editor.locator('vscode-single-select[data-policy="*"]'), 'reuse_result');
      const fork = editor.locator('vscode-button#fork:not([disabled])');
      await fork.waitFor({ timeout: 10_000 });
      await editor.locator('.why', { hasText: '1 context field changed' }).waitFor();
      await editor.locator('.hazards.none').waitFor();
      // the plan predicts where the captured fork stops, before Fork is pressed
      await editor
        .locator('[data-prediction]', {
          hasText: /this edit changes the system prompt at step \d+; a captured fork stops there/,
        })
        .waitFor({ timeout: 10_000 });
      // at 300 px: each tool's name stands above its picker, nothing runs off to the right, Fork stays in sight
      await assertFitsSideBar(editor);
      await assertToolRows(editor, 'stacked');
      const pane = await viewPane(page, 'Context & Fork').boundingBox();
      const button = await fork.boundingBox();
      assert.ok(
        pane && button && button.y >= pane.y && button.y + button.height <= pane.y + pane.height,
        `the Fork button is in sight without scrolling to it: button ${JSON.stringify(button)}, pane ${JSON.stringify(pane)}`,
      );
      await screenshot('07-fork-editor-ready');
      // at 480 px: names beside their pickers
      await widenSideBar(page, 480);
      await assertFitsSideBar(editor);
      await assertToolRows(editor, 'beside');
      await page.mouse.move(700, 10);
      await screenshot('07b-fork-editor-ready-480');
      await widenSideBar(page, 300);
      await fork.click();
      const status = editor.locator('.status[role="status"]', { hasText: /Created fork|error|reject/i });
      await status.waitFor({ timeout: 30_000 });
      const text = (await status.textContent()) ?? '';
      const created = /Created fork (\S+) of demo-support-refund/.exec(text);
      assert.ok(created, `the editor reports the fork: ${text}`);
      forkRunId = created[1] ?? '';
      // The fork runs with the captured model. The demo agent renders its system prompt from the runtime context
      // ("You act as {{user.roleId}} ..."), so the auditor's prompt no longer matches the recording: the fork ends
      // diverged (an answer, not a failure), says where, and offers what a user wants next.
      const toast = page
        .locator('.notification-toast', { hasText: `Fork ${forkRunId}` })
        .filter({ hasText: 'Prompt difference' })
        .first();
      await toast.waitFor({ timeout: 60_000 });
      const outcome = await toast.locator('.notification-list-item-message').innerText();
      assert.match(outcome, /diverged at step \d+ · system prompt/, outcome);
      assert.doesNotMatch(outcome, /failed/i, outcome);
      const buttons = await toast.locator('.monaco-button').allInnerTexts();
      assert.ok(
        buttons.some((b) => b === 'Use recorded outputs'),
        `the outcome offers the recorded outputs: ${buttons.join(' | ')}`,
      );
      assert.ok(
        buttons.some((b) => b === 'Use a real model' || b === 'Set up a model…'),
        `the outcome offers a real model: ${buttons.join(' | ')}`,
      );
      await screenshot('08-fork-outcome');
      // every button shows its whole label (none cut to "Continue with the re…")
      for (const b of await toast.locator('.monaco-button').all()) {
        const fits = await b.evaluate((e) => e.scrollWidth <= e.clientWidth);
        assert.ok(fits, `a button's label is cut: ${await b.innerText()}`);
      }
      await toast.locator('.monaco-button', { hasText: 'Prompt difference' }).click();
      const diffTab = page.locator('.tab', { hasText: /Prompt at step \d+: recorded ↔/ }).first();
      await diffTab.waitFor({ timeout: 20_000 });
      await page.locator('.editor-container .monaco-diff-editor', { hasText: 'You act as auditor' }).first().waitFor({
        timeout: 20_000,
      });
      await screenshot('08b-prompt-difference');
    },
  },
  {
    name: 'the new fork appears in the runs tree under its parent',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [REFUND]);
      const forkRow = row(pane, forkRunId).first();
      await forkRow.waitFor({ timeout: 20_000 });
      // nested: one level deeper than its parent
      const level = async (r: Locator) => Number(await r.getAttribute('aria-level'));
      assert.equal(
        await level(forkRow),
        (await level(row(pane, REFUND).first())) + 1,
        'the fork is nested under its parent',
      );
      // diverged: its own words and icon, not FAILED with the red ✗
      const description = (await forkRow.innerText()).replace(/\s+/g, ' ');
      assert.match(description, /diverged at step \d+ · system prompt/, description);
      assert.doesNotMatch(description, /FAILED/, description);
      assert.equal(await forkRow.locator('.codicon-git-compare').count(), 1, 'the diverged icon');
      await page.mouse.move(700, 10);
      await screenshot('09-fork-in-tree');
    },
  },
  {
    name: 'the diverged fork keeps its actions in Context & Fork; Use recorded outputs asks, naming it, and replaces it',
    async run({ page, screenshot }) {
      await openAgentRuns(page);
      await widenSideBar(page, 300);
      const editor = webviewContent(page);
      // the toast is gone (Prompt difference was pressed); the result panel still answers for the fork
      const outcome = editor.locator('[data-outcome="diverged"]');
      await outcome.waitFor({ timeout: 30_000 });
      assert.match(await outcome.innerText(), new RegExp(`Fork ${forkRunId} diverged at step \\d+ · system prompt`));
      const actions = await outcome.locator('[data-diverged-action]').allInnerTexts();
      assert.deepEqual(
        actions.map((a) => a.trim()),
        ['Prompt difference', 'Use recorded outputs', 'Set up a model…'],
        actions.join(' | '),
      );
      await outcome.scrollIntoViewIfNeeded();
      await assertFitsSideBar(editor);
      await page.mouse.move(700, 10);
      await screenshot('09a-fork-result-diverged');
      await outcome.locator('[data-diverged-action="recorded"]').click();
      // a modal names the fork before it is deleted
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 15_000 });
      assert.match(await dialog.innerText(), new RegExp(`Replace the diverged fork ${forkRunId}\\?`));
      await screenshot('09b-replace-diverged-confirm');
      await dialog.locator('.monaco-button', { hasText: /^Replace$/ }).click();
      // the panel follows the fork that replaces it, to its end; the diverged one leaves the tree
      const done = editor.locator('[data-outcome="completed"]');
      await done.waitFor({ timeout: 60_000 });
      const replaced = /Fork (\S+) completed/.exec(await done.innerText());
      assert.ok(replaced && replaced[1] !== forkRunId, await done.innerText());
      const pane = await waitForRuns(page, [REFUND]);
      await row(pane, replaced[1] ?? '')
        .first()
        .waitFor({ timeout: 20_000 });
      await row(pane, forkRunId).first().waitFor({ state: 'detached', timeout: 20_000 });
      await page.mouse.move(700, 10);
      await screenshot('09c-fork-result-replaced');
    },
  },
  {
    name: 'a Runtime Context value set in the Variables view opens with Fork from this checkpoint as a changed field',
    async run({ page, screenshot }) {
      await openRunAndDebug(page);
      await widenSideBar(page, 480); // room for the Variables rows
      const frame = viewPane(page, 'Call Stack')
        .locator('.monaco-list-row', { hasText: 'before_prompt_build' })
        .first();
      // Select the frame (the debugger focuses that checkpoint and the Variables view shows its scopes)...
      await frame.click();
      // ...and set Runtime Context › user › roleId there, as a user does: double-click the value, type, Enter.
      // The view redraws when that frame's scopes arrive: wait for them before opening rows that would be replaced.
      const variables = viewPane(page, 'Variables');
      await row(variables, 'checkpointIndex, value 0').first().waitFor({ timeout: 15_000 });
      await collapseRow(row(variables, 'Scope Checkpoint').first()); // room for the Runtime Context rows
      await expandRow(row(variables, 'Scope Runtime Context').first(), row(variables, 'user, value'));
      await expandRow(row(variables, 'user, value').first(), row(variables, 'roleId, value'));
      // double-clicking a value edits it (Set Value)
      await row(variables, 'roleId, value').first().dblclick();
      const input = variables.locator('.monaco-inputbox input').first();
      await input.waitFor({ timeout: 10_000 });
      await input.fill('"supervisor"');
      await page.keyboard.press('Enter');
      await row(variables, 'roleId, value "supervisor"')
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(async (e: unknown) => {
          throw new Error(`${String(e)}; Variables rows: ${(await rowLabels(variables)).join(' | ')}`);
        });
      await screenshot('10-variables-staged-edit');
      // Fork from this checkpoint on the frame's context menu.
      await frame.click({ button: 'right' });
      await chooseMenuItem(page, 'Fork from this checkpoint');
      // The command brings up the RuntimeContext editor (Agent Runs › Context & Fork) at that checkpoint...
      await viewPane(page, 'Context & Fork').waitFor({ timeout: 10_000 });
      const editor = webviewContent(page);
      const hint = editor.locator('.hint').first();
      await hint
        .filter({ hasText: /\[0\] step 0 · before_prompt_build/ })
        .waitFor({ timeout: 20_000 })
        .catch(async () => {
          const shown = await hint.textContent().catch(() => 'nothing');
          throw new Error(`the editor should show the right-clicked frame ([0] before_prompt_build), shows: ${shown}`);
        });
      // ...with the staged edit applied and marked as changed, like an edit made in the page.
      await editor.locator('[data-row="user.roleId"].changed .changed-mark').waitFor({ timeout: 10_000 });
      const value = await editor
        .locator('vscode-textfield[data-field="user.roleId"]')
        .evaluate((e) => (e as HTMLElement & { value: string }).value);
      assert.equal(value, 'supervisor', 'the editor shows the value set in the Variables view');
      await editor.locator('.hint.staged').waitFor();
      await widenSideBar(page, 300);
      await editor.locator('[data-row="user.roleId"]').scrollIntoViewIfNeeded();
      await page.mouse.move(700, 10);
      await screenshot('11-fork-from-frame-staged');
    },
  },
];

/** Nothing in the Context & Fork page is wider than the page (no sideways scroll, nothing cut at the right). */
async function assertFitsSideBar(editor: FrameLocator): Promise<void> {
  const wide = await editor.locator('body').evaluate((body) => {
    const limit = document.documentElement.clientWidth;
    const over = Array.from(body.querySelectorAll<HTMLElement>('*'))
      .filter((e) => e.getClientRects().length > 0 && e.getBoundingClientRect().right > limit + 1)
      .map((e) => `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).split(' ')[0]}` : ''}`);
    return { scroll: document.documentElement.scrollWidth, limit, over: [...new Set(over)].slice(0, 8) };
  });
  assert.ok(
    wide.scroll <= wide.limit && wide.over.length === 0,
    `the page fits its ${wide.limit} px: scrollWidth ${wide.scroll}, wider: ${wide.over.join(', ')}`,
  );
}

/** Each tool row's name either stands above its policy picker (narrow) or beside it (wide). */
async function assertToolRows(editor: FrameLocator, layout: 'stacked' | 'beside'): Promise<void> {
  const rows = editor.locator('.tool-row[data-tool]');
  const count = await rows.count();
  assert.ok(count >= 2, `tool rows: ${count}`);
  for (let i = 0; i < count; i++) {
    const name = await rows.nth(i).locator('.tool-name').boundingBox();
    const picker = await rows.nth(i).locator('vscode-single-select').boundingBox();
    assert.ok(name && picker, 'name and picker are shown');
    if (layout === 'stacked') assert.ok(picker.y >= name.y + name.height - 1, `row ${i}: picker below the name`);
    else assert.ok(picker.x >= name.x + name.width && Math.abs(picker.y - name.y) < 24, `row ${i}: picker beside`);
  }
}

/** Polls the Call Stack until `ok(frames)`; returns the frames, or throws naming `what` and the last frames seen. */
async function waitForFrames(page: Page, ok: (frames: string[]) => boolean, what: string): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  let frames: string[] = [];
  while (Date.now() < deadline) {
    frames = await callStackFrames(page).catch(() => []);
    if (ok(frames)) return frames;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${what}; Call Stack: ${frames.join(' | ')}`);
}

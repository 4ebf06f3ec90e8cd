/**
 * The cohort view as a user meets it on the demo: What-if Across Runs… from the palette, the support-desk agent, the
 * Context & Fork editor in batch mode (the auditor role typed into its context, every tool answered from the
 * recording, captured turns, forked at each run's first checkpoint, the offered no_refund assertion), its Run —
 * and the results open in the cohort view: the rates, the gate's clean
 * certificate, a row per run ("diverged at step 0"). Screenshots at a 300 px side bar, dark and light.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { UiTest } from './uiTest';
import { chooseOption, openAgentRuns, runCommand, widenSideBar } from './workbench';

/** The cohort view's page: the webview frame whose table has its rows (VS Code nests it two iframes deep). */
async function cohortFrame(page: Page, timeoutMs = 120_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (
        await frame
          .locator('.certificate.clean')
          .count()
          .catch(() => 0)
      )
        return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error('the cohort view did not show the batch with a clean certificate');
}

/** Answers the open quick input: picks the row holding `text` (a pick) or accepts the offered value (a box). */
async function answer(page: Page, text?: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await widget.waitFor({ state: 'visible' });
  if (text !== undefined) {
    await widget.locator('.monaco-list-row', { hasText: text }).first().click();
  } else {
    await widget.locator('.quick-input-box input').focus();
    await page.keyboard.press('Enter');
  }
}

/** Waits until the quick input's title holds `title`. */
async function waitForTitle(page: Page, title: string): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).first().waitFor();
}

/** The Context & Fork editor's page while it is in batch mode (the cohort view is another webview). */
async function batchEditor(page: Page, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (
        await frame
          .locator('[data-batch]')
          .count()
          .catch(() => 0)
      )
        return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error('the Context & Fork editor did not show a batch');
}

async function theme(page: Page): Promise<'dark' | 'light'> {
  return (await page.locator('.monaco-workbench.vs-dark, .monaco-workbench.hc-black').count()) > 0 ? 'dark' : 'light';
}

export const tests: UiTest[] = [
  {
    name: 'What-if Across Runs… opens the Context & Fork editor in batch mode; its Run opens the cohort view',
    async run({ page, screenshot }) {
      await openAgentRuns(page);
      await widenSideBar(page, 300);
      await runCommand(page, 'What-if Across Runs…');
      await waitForTitle(page, 'What-if across the runs of which agent?');
      await answer(page, 'support-desk');
      // the real editor, in batch mode: the cohort, a sample checkpoint, the single fork's fields and the batch's
      const editor = await batchEditor(page);
      await editor.locator('[data-batch]', { hasText: /What-if across \d+ runs/ }).waitFor();
      await editor.locator('[data-position]', { hasText: /^\[0\] step 0/ }).waitFor();
      await editor.locator('vscode-textfield[data-batch-field="at"]').waitFor();
      await editor.locator('vscode-textarea[data-batch-field="assertions"]').waitFor();
      await editor.locator('vscode-textfield[data-field="user.roleId"] input').fill('auditor');
      await chooseOption(editor.locator('vscode-single-select[data-policy="*"]'), 'reuse_result');
      const run = editor.locator('vscode-button#whatif-run:not([disabled])', { hasText: /Run on \d+ runs/ });
      await run.waitFor({ timeout: 30_000 });
      await page.mouse.move(700, 10);
      await screenshot(`whatif-01-editor-batch-bar-${await theme(page)}`);
      await editor.locator('[data-batch]').scrollIntoViewIfNeeded();
      await screenshot(`whatif-02-editor-batch-fields-${await theme(page)}`);
      await run.click();
      await cohortFrame(page);
      await editor
        .locator('.status', { hasText: /\d+ runs: same \d+ · diverged \d+ .* The results are in the cohort view\./ })
        .waitFor({ timeout: 60_000 });
    },
  },
  {
    // a step of its own: the batch above takes most of a step's time budget on a loaded machine
    name: "the cohort view's refund row is diverged at step 0 and the certificate is clean",
    async run({ page, screenshot }) {
      const frame = await cohortFrame(page);
      // the refund run's row: diverged at step 0 (the role is in its system prompt from the start)
      const refund = frame.locator('.row', { hasText: 'demo-support-refund' }).first();
      await refund.waitFor();
      const cells = (await refund.locator('.cell').allInnerTexts()).map((t) => t.trim());
      if (cells[1] !== 'diverged' || cells[2] !== '0')
        throw new Error(`the refund run's row reads ${cells.join(' | ')}`);
      const certificate = await frame.locator('.certificate.clean').innerText();
      if (!/no write or external_irreversible tool ran/.test(certificate))
        throw new Error(`the certificate says: ${certificate}`);
      await page.mouse.move(5, 300);
      await screenshot(`cohort-01-results-${await theme(page)}`);
    },
  },
  {
    name: 'the cohort view in the other theme (light / dark)',
    async run({ page, screenshot }) {
      const before = await theme(page);
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      const deadline = Date.now() + 15_000;
      while ((await theme(page)) === before) {
        if (Date.now() > deadline) throw new Error('the theme did not change');
        await page.waitForTimeout(100);
      }
      const frame = await cohortFrame(page);
      await frame.locator('.row', { hasText: 'demo-support-refund' }).first().waitFor();
      await page.mouse.move(5, 300);
      await screenshot(`cohort-02-results-${await theme(page)}`);
      const editor = await batchEditor(page);
      await editor.locator('[data-batch]').scrollIntoViewIfNeeded();
      await screenshot(`whatif-03-editor-batch-fields-${await theme(page)}`);
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
    },
  },
  {
    name: 'the cohort view at 1,000 rows: a filter and a sort each answer, laid out, within 250 ms',
    async run({ page, workspace, screenshot }) {
      // the batch above, its results repeated under 1,000 run ids, opened as a batch file (Open What-if Results…)
      const dir = path.join(workspace, '.ocdb', 'what-if');
      const source = fs.readdirSync(dir).find((f) => f.endsWith('.jsonl') && f !== 'thousand.jsonl');
      if (!source) throw new Error(`no batch file in ${dir}`);
      const [head, ...lines] = fs
        .readFileSync(path.join(dir, source), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const results = lines.map((l) => l.result as { sourceRunId: string });
      const many = Array.from({ length: 1000 }, (_, i) => {
        const r = results[i % results.length] as { sourceRunId: string };
        return { ...r, sourceRunId: `${r.sourceRunId}-${String(i).padStart(4, '0')}` };
      });
      const file = path.join(dir, 'thousand.jsonl');
      fs.writeFileSync(
        file,
        [{ ...head, runIds: many.map((r) => r.sourceRunId) }, ...many.map((result) => ({ result }))]
          .map((l) => `${JSON.stringify(l)}\n`)
          .join(''),
      );
      await runCommand(page, 'Open What-if Results…');
      const box = page.locator('.quick-input-widget .quick-input-box input');
      await box.waitFor();
      // the dialog opens at the results folder and writes it into the box: typed over only once it has listed it
      // (typed sooner, the folder's path replaced the file's)
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'thousand.jsonl' }).first().waitFor();
      await box.fill(file);
      await page.waitForFunction(
        ([sel, want]) => (document.querySelector(sel as string) as HTMLInputElement | null)?.value === want,
        ['.quick-input-widget .quick-input-box input', file],
      );
      await page.keyboard.press('Enter');
      let frame: Frame | undefined;
      const deadline = Date.now() + 60_000;
      while (!frame && Date.now() < deadline) {
        for (const f of page.frames()) {
          const n = await f
            .locator('.count', { hasText: '1000 of 1000 runs' })
            .count()
            .catch(() => 0);
          if (n > 0) frame = f;
        }
        if (!frame) await page.waitForTimeout(250);
      }
      if (!frame) throw new Error('the cohort view of 1,000 runs did not open');
      const last = async () =>
        frame.evaluate(() => performance.getEntriesByName('cohort:update').at(-1)?.duration ?? -1);
      const figures: Record<string, number> = {};
      await frame.locator('input.filter').fill('-05');
      await frame.locator('.count', { hasText: /^\d+ of 1000 runs$/ }).waitFor();
      figures.filter = await last();
      await frame.locator('.row.head .cell', { hasText: 'Δ tokens' }).click();
      await frame.locator('.row.head .cell[aria-sort="ascending"]', { hasText: 'Δ tokens' }).waitFor();
      figures.sort = await last();
      await frame.locator('input.filter').fill('');
      await frame.locator('.count', { hasText: '1000 of 1000 runs' }).waitFor();
      figures.unfilter = await last();
      await frame.locator('.row.head .cell', { hasText: 'Run' }).first().click();
      await frame.locator('.row.head .cell[aria-sort="ascending"]', { hasText: 'Run' }).waitFor();
      figures.sortAll = await last();
      console.log(`cohort view at 1,000 rows (ms, to layout): ${JSON.stringify(figures)}`);
      for (const [what, ms] of Object.entries(figures)) {
        if (!(ms >= 0 && ms < 250)) throw new Error(`the ${what} of 1,000 rows took ${ms} ms`);
      }
      await page.mouse.move(5, 300);
      await screenshot(`cohort-03-thousand-rows-${await theme(page)}`);
    },
  },
];

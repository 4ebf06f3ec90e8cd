/**
 * A coding agent's files as a user meets them in the workbench, at a 300 px side bar: the workspace (a git
 * repository holding the files as the session first read them) has a Claude Code session in a home folder of its
 * own; the "Coding agent sessions" section lists it by its summary; opening it replays it; from the runs tree the
 * replay goes to the checkpoint after the first Edit, whose Files scope lists src/date.ts; Open File at Checkpoint
 * and Open Changes (the Variables view's menu) show the file and the Edit's diff; the hover on the Edit's line of
 * the transcript shows the diff; Restore Files from Checkpoint… into a new worktree lists the file before it
 * writes, and `git diff` in the worktree shows exactly that file. Screenshots in both themes.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { claudeProjectDirName } from '../../../src/importers/sessions';
import { numberedText } from '../../../src/model/fileEdits';
import { theme } from './timelinePage';
import type { UiContext, UiTest } from './uiTest';
import {
  chooseMenuItem,
  clickInlineAction,
  collapseRow,
  debugToolbarButton,
  expandRow,
  openAgentRuns,
  openRunAndDebug,
  row,
  runCommand,
  viewPane,
  widenSideBar,
} from './workbench';

const FIXTURE = path.resolve(
  __dirname,
  '../../fixtures/importers/claude-code/7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11.jsonl',
);
const OLD_CWD = '/home/dev/projects/calendar-kit';
const TITLE = 'Fix leap-year bug in parseDate';
const DIFF_TITLE = 'date.ts (step 4 Edit: before ↔ after)';
const HOME_SETTING = 'agentTimeTravel.codingSessions.home';
let worktree = '';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The texts the session's Reads showed, by path relative to its folder: the repository's files before the run. */
function filesAsRead(lines: string[]): Map<string, string> {
  const paths = new Map<string, string>();
  const out = new Map<string, string>();
  for (const line of lines) {
    const content = (JSON.parse(line) as { message?: { content?: unknown } }).message?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content as Record<string, unknown>[]) {
      const input = part.input as { file_path?: string } | undefined;
      if (part.type === 'tool_use' && part.name === 'Read' && input?.file_path)
        paths.set(part.id as string, path.relative(OLD_CWD, input.file_path));
      const rel = paths.get(part.tool_use_id as string);
      if (part.type === 'tool_result' && rel && typeof part.content === 'string' && !out.has(rel)) {
        const read = numberedText(part.content);
        if (read) out.set(rel, read.content);
      }
    }
  }
  return out;
}

/** The workspace as the session found it (a repository), and the session in a home folder of its own. */
function setUp({ workspace, userDataDir }: UiContext): void {
  const text = fs.readFileSync(FIXTURE, 'utf8');
  for (const [rel, content] of filesAsRead(text.split('\n').filter(Boolean))) {
    fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(workspace, rel), content);
  }
  fs.writeFileSync(path.join(workspace, '.gitignore'), '.ocdb/\n');
  git(workspace, 'init', '-q', '-b', 'main');
  git(workspace, 'add', '-A');
  git(workspace, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'before the run');
  const home = path.join(path.dirname(workspace), 'coding-files-home');
  const dir = path.join(home, '.claude', 'projects', claudeProjectDirName(workspace));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, path.basename(FIXTURE)), text.replaceAll(OLD_CWD, workspace));
  setHome(userDataDir, home);
}

/** Sets (or, undefined, clears) the machine setting naming the sessions' home, in the settings files VS Code watches. */
function setHome(userDataDir: string, home: string | undefined): void {
  for (const scope of ['User', 'Machine']) {
    const file = path.join(userDataDir, scope, 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (home === undefined) delete settings[HOME_SETTING];
    else settings[HOME_SETTING] = home;
    fs.writeFileSync(file, JSON.stringify(settings, null, 2));
  }
}

/** Scrolls the tree of `pane` down until `target` is drawn (a list draws only the rows on screen). */
async function scrollTo(pane: Locator, target: Locator): Promise<void> {
  const list = pane.locator('.monaco-list').first();
  for (let i = 0; i < 30; i++) {
    const [box, rowBox] = [
      await list.boundingBox(),
      await target
        .first()
        .boundingBox()
        .catch(() => null),
    ];
    // drawn and whole on screen (a row cut by the pane's edge takes no click)
    if (box && rowBox && rowBox.y + rowBox.height <= box.y + box.height - 2) return;
    await list.hover();
    await pane.page().mouse.wheel(0, 120);
    await pane.page().waitForTimeout(150);
  }
  await target.first().waitFor({ timeout: 5_000 });
}

/** Expands a runs-tree row by its twistie (a click on a run's row selects it and moves the replay), until `child` shows. */
async function expandTree(target: Locator, child: Locator): Promise<void> {
  await target.waitFor({ timeout: 30_000 });
  for (let attempt = 1; ; attempt++) {
    if ((await target.getAttribute('aria-expanded')) !== 'true') await target.locator('.monaco-tl-twistie').click();
    try {
      await child.first().waitFor({ timeout: 10_000 });
      return;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

/** Right-clicks a row and chooses `item` of its context menu. */
async function menu(target: Locator, item: string): Promise<void> {
  await target.click({ button: 'right' });
  await chooseMenuItem(target.page(), item);
}

/** The editor tab whose label holds `title`. */
function tab(page: Page, title: string): Locator {
  return page.locator('.tabs-container .tab').filter({ has: page.locator('.tab-label', { hasText: title }) });
}

/** The Files scope's row of src/date.ts in the Variables view (the scope expanded first). */
async function dateRow(page: Page): Promise<Locator> {
  await openRunAndDebug(page);
  const variables = viewPane(page, 'Variables');
  const file = row(variables, 'src/date.ts').first();
  if (await file.isVisible()) return file;
  // the Checkpoint scope, open by default, fills the view: folded, the Files scope is in sight
  await collapseRow(row(variables, 'Scope Checkpoint').first());
  await expandRow(row(variables, 'Scope Files').first(), file);
  return file;
}

/** Hovers the first Edit's after_tool_call line of the transcript; answers the hover. */
async function hoverEdit(page: Page): Promise<Locator> {
  // the diff took the transcript's preview tab: the Call Stack's frame opens it again at the Edit
  await openRunAndDebug(page);
  await viewPane(page, 'Call Stack')
    .locator('.monaco-list-row .stack-frame', { hasText: /after_tool_call · Edit/ })
    .first()
    .click();
  await tab(page, '.transcript').first().waitFor({ timeout: 30_000 });
  const line = page
    .locator('.editor-group-container.active .view-line', { hasText: 'after_tool_call' })
    .filter({ hasText: 'Edit' })
    .first();
  await line.waitFor({ timeout: 30_000 });
  await line.hover({ position: { x: 40, y: 5 } });
  const hover = page.locator('.monaco-hover', { hasText: 'src/date.ts' }).first();
  await hover.waitFor({ timeout: 30_000 });
  assert.match((await hover.textContent()) ?? '', /\+2 −1/);
  await page.waitForTimeout(400);
  return hover;
}

async function screenshotIn(ctx: UiContext, name: string): Promise<void> {
  await ctx.page.mouse.move(1, 400);
  await ctx.page.waitForTimeout(400);
  await ctx.screenshot(`${name}-${await theme(ctx.page)}`);
}

export const tests: UiTest[] = [
  {
    name: 'the Coding agent sessions section lists the workspace Claude Code session by its summary; opening it replays it',
    async run(ctx) {
      const { page } = ctx;
      setUp(ctx);
      await openAgentRuns(page);
      await widenSideBar(page, 300);
      const pane = viewPane(page, 'Runs');
      const section = row(pane, 'Coding agent sessions').first();
      const session = row(pane, TITLE).first();
      await section.waitFor({ timeout: 60_000 });
      await expandTree(section, session);
      assert.match((await session.textContent()) ?? '', /Claude Code/);
      await screenshotIn(ctx, 'files-01-sessions');
      await clickInlineAction(session, 'Open Coding Agent Session');
      await page.locator('.debug-toolbar').waitFor({ timeout: 60_000 });
    },
  },
  {
    name: 'replayed from the checkpoint after the first Edit, the Files scope lists src/date.ts with its lines and step',
    async run(ctx) {
      const { page } = ctx;
      // the replay the session opened in ends: the one from the Edit's checkpoint is the only one
      await debugToolbarButton(page, 'Stop').click();
      await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
      await openAgentRuns(page);
      const pane = viewPane(page, 'Runs');
      // the imported run, titled by the session's summary, above the sessions section
      const run = pane.locator('.monaco-list-row[aria-level="1"]', { hasText: TITLE }).first();
      const step = pane.locator('.monaco-list-row[aria-level="2"]', { hasText: 'Step 4' }).first();
      // the session's section and the Context & Fork view folded away: the run's steps have the room
      await row(pane, 'Coding agent sessions').first().locator('.monaco-tl-twistie').click();
      const forkHeader = viewPane(page, 'Context & Fork').locator('.pane-header').first();
      if ((await forkHeader.getAttribute('aria-expanded')) === 'true') await forkHeader.click();
      await expandTree(run, pane.locator('.monaco-list-row[aria-level="2"]', { hasText: 'Step 0' }));
      await scrollTo(pane, step);
      const edit = pane.locator('.monaco-list-row', { hasText: 'after_tool_call' }).filter({ hasText: 'Edit' });
      await expandTree(step, edit);
      await scrollTo(pane, edit);
      await clickInlineAction(edit.first(), 'Replay Run');
      const frames = viewPane(page, 'Call Stack');
      await openRunAndDebug(page);
      await frames
        .locator('.monaco-list-row .stack-frame', { hasText: /after_tool_call · Edit/ })
        .first()
        .waitFor();
      const file = await dateRow(page);
      assert.match((await file.textContent()) ?? '', /M \+2 −1 · step 4/);
      await screenshotIn(ctx, 'files-02-scope');
    },
  },
  {
    name: 'Open File at Checkpoint shows the file as the Edit made it; Open Changes its diff',
    async run(ctx) {
      const { page } = ctx;
      await menu(await dateRow(page), 'Open File at Checkpoint');
      await tab(page, 'date.ts').first().waitFor({ timeout: 30_000 });
      const lines = page.locator('.editor-group-container.active .view-lines').first();
      await lines.filter({ hasText: 'isLeapYear' }).waitFor({ timeout: 30_000 });
      await screenshotIn(ctx, 'files-03-file-at-checkpoint');
      await menu(await dateRow(page), 'Open Changes');
      await tab(page, DIFF_TITLE).first().waitFor({ timeout: 30_000 });
      const diff = page.locator('.editor-group-container.active .monaco-diff-editor').first();
      await diff.locator('.line-insert').first().waitFor({ timeout: 30_000 });
      await screenshotIn(ctx, 'files-04-open-changes');
    },
  },
  {
    name: "the hover on the Edit's line of the transcript shows its diff",
    async run(ctx) {
      const { page } = ctx;
      await hoverEdit(page);
      await ctx.screenshot(`files-05-hover-${await theme(page)}`);
      await page.keyboard.press('Escape');
    },
  },
  {
    name: 'Restore Files from Checkpoint… into a new worktree lists the file first; git diff there shows exactly it',
    async run(ctx) {
      const { page, workspace } = ctx;
      await menu(await dateRow(page), 'Restore Files from Checkpoint…');
      const pick = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'New git worktree' }).first();
      await pick.waitFor({ timeout: 30_000 });
      await screenshotIn(ctx, 'files-06-restore-where');
      await pick.click();
      const dialog = page.locator('.monaco-dialog-box', { hasText: 'into a new worktree' }).first();
      await dialog.waitFor({ timeout: 30_000 });
      assert.match((await dialog.textContent()) ?? '', /src\/date\.ts — \d+ lines/);
      await screenshotIn(ctx, 'files-07-restore-confirm');
      await dialog.locator('.monaco-button', { hasText: 'Restore' }).first().click();
      await page.locator('.notification-toast', { hasText: 'Restored 1 file' }).first().waitFor({ timeout: 30_000 });
      const worktrees = git(workspace, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree '))
        .map((l) => l.slice('worktree '.length));
      const restored = worktrees.find((w) => path.resolve(w) !== path.resolve(workspace));
      assert.ok(restored, `a new worktree: ${worktrees.join(', ')}`);
      worktree = restored;
      assert.deepEqual(git(worktree, 'diff', '--name-only').trim().split('\n'), ['src/date.ts']);
      assert.match(git(worktree, 'diff'), /^\+ {2}const max = m === 2 && isLeapYear\(y\)/m);
    },
  },
  {
    name: 'the Files scope, the diff and the hover in the other theme',
    async run(ctx) {
      const { page } = ctx;
      const before = await theme(page);
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      const deadline = Date.now() + 30_000;
      while ((await theme(page)) === before) {
        if (Date.now() > deadline) throw new Error('the theme did not change');
        await page.waitForTimeout(200);
      }
      await page.waitForTimeout(800);
      await dateRow(page);
      await screenshotIn(ctx, 'files-02-scope');
      await menu(await dateRow(page), 'Open Changes');
      await tab(page, DIFF_TITLE).first().waitFor({ timeout: 30_000 });
      const diff = page.locator('.editor-group-container.active .monaco-diff-editor').first();
      await diff.locator('.line-insert').first().waitFor({ timeout: 30_000 });
      await screenshotIn(ctx, 'files-04-open-changes');
      await hoverEdit(page);
      await page.waitForTimeout(400);
      await ctx.screenshot(`files-05-hover-${await theme(page)}`);
      await page.keyboard.press('Escape');
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      if (worktree) git(ctx.workspace, 'worktree', 'remove', '--force', worktree);
      setHome(ctx.userDataDir, undefined);
    },
  },
];

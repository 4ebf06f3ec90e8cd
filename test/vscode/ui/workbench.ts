/**
 * What a user does in the VS Code workbench, as Playwright steps against code-server's page: wait for the workbench,
 * open the Agent Runs view, find tree rows, run a palette command, read the Call Stack, reach into a webview view.
 * Selectors are current VS Code's DOM (1.139; aria labels first); of the extension it knows only the view titles.
 */
import type { FrameLocator, Locator, Page } from 'playwright-core';

export const VIEW_CONTAINER_TITLE = 'Agent Runs';

/** Waits until the workbench is up and the extension host has started (the status bar is drawn late). */
export async function waitForWorkbench(page: Page, timeoutMs = 60_000): Promise<void> {
  await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: timeoutMs });
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: timeoutMs });
}

/** An activity bar entry by the start of its title ("Run and Debug", "Agent Runs"); the whole item, badge included. */
export function activityBarItem(page: Page, title: string): Locator {
  return page.locator(`.activitybar .action-item:has(> .action-label[aria-label^="${title}"])`);
}

/** Clicks the "Agent Runs" activity bar entry unless its view container is already showing. */
export async function openAgentRuns(page: Page): Promise<void> {
  const entry = activityBarItem(page, VIEW_CONTAINER_TITLE);
  // the entry appears once the extension host has registered the extension: on a loaded machine, long after the
  // workbench is drawn
  await entry.waitFor({ timeout: 120_000 });
  const title = page.locator('.part.sidebar .composite.title h2', { hasText: VIEW_CONTAINER_TITLE });
  if (!(await title.isVisible())) await entry.click();
  await title.waitFor({ timeout: 10_000 });
}

/**
 * Shows the Run and Debug view container unless it is showing, and makes sure it stays: the extension reveals the
 * replay's checkpoint in the Agent Runs tree while that tree is visible, which can take the side bar back right
 * after a click. It goes through the palette's "View: Show Run and Debug", which only ever shows the container:
 * a click on the activity bar entry hides it when VS Code has just opened it itself (a debug session starting), and
 * the side bar then stays empty.
 */
export async function openRunAndDebug(page: Page): Promise<void> {
  const title = page.locator('.part.sidebar .composite.title h2', { hasText: /^Run and Debug/i });
  for (let attempt = 1; ; attempt++) {
    if (!(await title.isVisible())) await runCommand(page, 'View: Show Run and Debug');
    const shown = await title.waitFor({ timeout: 10_000 }).then(
      () => true,
      () => false,
    );
    if (shown) {
      await page.waitForTimeout(500);
      if (await title.isVisible()) return;
    }
    if (attempt === 3) throw new Error('the Run and Debug view did not show, or did not stay, in the side bar');
  }
}

/** The pane of one view in the side bar, by its title ("Runs", "Context & Fork", "Call Stack"). */
export function viewPane(page: Page, title: string): Locator {
  return page.locator('.pane', {
    has: page.locator('.pane-header h3.title', { hasText: new RegExp(`^${escapeRegExp(title)}$`, 'i') }),
  });
}

/** A row of a tree/list whose accessible label contains `text`, inside `scope` (a view pane) or anywhere. */
export function row(scope: Page | Locator, text: string): Locator {
  return scope.locator(`.monaco-list-row[aria-label*="${text.replace(/"/g, '\\"')}"]`);
}

/** Collapses a tree row unless it is collapsed already, and waits until it is. */
export async function collapseRow(target: Locator): Promise<void> {
  await target.waitFor({ timeout: 15_000 });
  if ((await target.getAttribute('aria-expanded')) !== 'true') return;
  await target.click();
  await waitForAttribute(target, 'aria-expanded', 'false', 'collapse');
}

/**
 * Expands a tree row (a scope or a variable) unless it is expanded already. With `child`, waits for that row to be
 * drawn too: when the view refreshes under the click (another frame's scopes arriving), a row can read expanded with
 * its children not yet fetched, and it is toggled again.
 */
export async function expandRow(target: Locator, child?: Locator): Promise<void> {
  await target.waitFor({ timeout: 15_000 });
  for (let attempt = 1; ; attempt++) {
    if ((await target.getAttribute('aria-expanded')) !== 'true') {
      await target.click();
      await waitForAttribute(target, 'aria-expanded', 'true', 'expand');
    }
    if (!child) return;
    try {
      await child.first().waitFor({ timeout: 5_000 });
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      await collapseRow(target);
    }
  }
}

async function waitForAttribute(target: Locator, name: string, value: string, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await target.getAttribute(name)) !== value) {
    if (Date.now() > deadline) throw new Error(`could not ${what} ${await target.getAttribute('aria-label')}`);
    await target.page().waitForTimeout(100);
  }
}

/** The accessible labels of the visible rows of a view pane, top to bottom. */
export async function rowLabels(pane: Locator): Promise<string[]> {
  return pane.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
}

/** Clicks an inline action (its hover button) of a tree row, e.g. "Replay Run". */
export async function clickInlineAction(target: Locator, actionTitle: string): Promise<void> {
  await target.hover();
  await target.locator(`.actions .action-label[aria-label^="${actionTitle}"]`).click();
}

/**
 * Chooses `label` in the context menu just opened (a right-click). VS Code's menu ignores a click landing right after
 * it opened, so a click can leave it open with nothing run: point at the item and press Enter.
 */
export async function chooseMenuItem(page: Page, label: string): Promise<void> {
  await page.locator('.context-view .monaco-menu .action-label', { hasText: label }).first().hover();
  await page.keyboard.press('Enter');
}

/** Runs a command from the palette (F1) by its title as the palette lists it ("Agent Time Travel: Run Demo"). */
export async function runCommand(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // The palette closes when it loses focus: a hover that opens as it does (a toolbar's tooltip under the pointer)
  // can close it before it is typed in (a clean-clone CI run: fill() timed out on the hidden input). So the pointer
  // is moved off the workbench first, and the palette opened again when it closed.
  await page.mouse.move(0, 0);
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ timeout: 5_000 });
      await input.fill(`>${title}`, { timeout: 5_000 });
      break;
    } catch (e) {
      if (attempt === 3) throw e;
      await page.keyboard.press('Escape');
    }
  }
  // Enter runs the focused row, and the palette can rank another command containing the title first ("File: Compare
  // New Untitled Text Files" above "File: New Untitled Text File"): wait for the row whose label is the title (with
  // or without its category), then move the focus down to it
  const label = new RegExp(`^\\s*(?:[^:]+: )?${escapeRegExp(title)}\\s*$`);
  const rows = page.locator('.quick-input-widget .monaco-list-row');
  await rows
    .filter({ has: page.locator('.label-name', { hasText: label }) })
    .first()
    .waitFor();
  for (let moves = 0; ; moves++) {
    const focused =
      (await page.locator('.quick-input-widget .monaco-list-row.focused .label-name').first().textContent()) ?? '';
    if (label.test(focused)) break;
    if (moves === 20) throw new Error(`the palette did not focus "${title}" (it focused "${focused.trim()}")`);
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  // the palette has taken it: closed, or showing the command's own picker or input box
  await page.waitForFunction((typed) => {
    const widget = document.querySelector<HTMLElement>('.quick-input-widget');
    const input = widget?.querySelector<HTMLInputElement>('.quick-input-box input');
    return !widget || widget.style.display === 'none' || input?.value !== typed;
  }, `>${title}`);
}

/**
 * Clicks `button` of the notification whose message matches `message`: on its toast while it shows, else in the
 * Notifications center, where a user finds a toast that has hidden itself (current VS Code hides an info toast
 * after a few seconds).
 */
export async function clickNotificationButton(page: Page, message: string | RegExp, button: string): Promise<void> {
  const toast = page.locator('.notification-toast', { hasText: message }).filter({ hasText: button }).first();
  try {
    await toast.locator('.monaco-button', { hasText: button }).click({ timeout: 2_000 });
    return;
  } catch {
    // gone: the center holds it
  }
  const center = page.locator('.notifications-center');
  if (!(await center.isVisible())) await runCommand(page, 'Notifications: Show Notifications');
  const item = center.locator('.notification-list-item', { hasText: message }).filter({ hasText: button }).first();
  await item.locator('.monaco-button', { hasText: button }).click({ timeout: 15_000 });
}

/** The debug toolbar's button by its title prefix ("Step Over", "Step Back", "Continue"). */
export function debugToolbarButton(page: Page, title: string): Locator {
  return page.locator(`.debug-toolbar .action-label[aria-label^="${title}"]`);
}

/**
 * The Call Stack's frame rows (text of each), top first. Shows Run and Debug first when it is not showing: current
 * VS Code leaves the side bar as it was when a session stops (1.100 switched to Run and Debug), and the Agent Runs
 * tree following the first stop may take the side bar back just after (its view's visibility reaches the extension
 * late): shown again until the frames are there.
 */
export async function callStackFrames(page: Page): Promise<string[]> {
  const pane = viewPane(page, 'Call Stack');
  const frames = pane.locator('.monaco-list-row .stack-frame');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!(await pane.isVisible())) await openRunAndDebug(page);
    const there = await frames
      .first()
      .waitFor({ timeout: 2_000 })
      .then(
        () => true,
        () => false,
      );
    if (there) return frames.evaluateAll((rows) => rows.map((r) => r.textContent ?? ''));
    if (Date.now() > deadline) throw new Error('the Call Stack shows no frame');
  }
}

/** The page inside the (only) webview view on screen: VS Code nests it two iframes deep. */
export function webviewContent(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/**
 * Picks `option` in a `<vscode-single-select>` (vscode-elements) the way a user does: open it, click the option,
 * until the select holds that value. Retries: a webview that re-renders after the previous edit (a new fork plan)
 * replaces or moves the select under the mouse.
 */
export async function chooseOption(select: Locator, option: string): Promise<void> {
  const item = select.locator('li[role="option"]', { hasText: new RegExp(`^\\s*${escapeRegExp(option)}\\s*$`) });
  let lastError: unknown;
  for (let attempt = 1; attempt <= 5; attempt++) {
    try {
      if ((await select.evaluate((e) => (e as HTMLElement & { value: string }).value)) === option) return;
      await select.scrollIntoViewIfNeeded({ timeout: 2_000 });
      await select.click({ timeout: 2_000 });
      await item.click({ timeout: 2_000 });
    } catch (e) {
      lastError = e;
    }
    await select.page().waitForTimeout(300);
  }
  throw new Error(`could not choose "${option}": ${String(lastError)}`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Drags the side bar's edge so it is `width` px wide (tree descriptions and the fork editor need the room). */
export async function widenSideBar(page: Page, width = 480): Promise<void> {
  const bar = await page.locator('.part.sidebar').boundingBox();
  if (!bar || Math.abs(bar.width - width) < 4) return;
  const edge = bar.x + bar.width;
  const sashes = page.locator('.monaco-sash.vertical');
  for (let i = 0; i < (await sashes.count()); i++) {
    const box = await sashes.nth(i).boundingBox();
    if (!box || Math.abs(box.x + box.width / 2 - edge) > 4 || box.height < bar.height / 2) continue;
    const y = box.y + box.height / 2;
    await page.mouse.move(edge, y);
    await page.mouse.down();
    await page.mouse.move(bar.x + width, y, { steps: 8 });
    await page.mouse.up();
    await page.mouse.move(bar.x + width + 200, 10); // off the sash, so screenshots show no drag highlight
    await page.waitForTimeout(500); // the sash's hover highlight fades out
    return;
  }
  throw new Error('found no sash on the side bar edge');
}

/** Opens Agent Runs and waits until the Runs view lists every one of `runIds`; returns the view's pane. */
export async function waitForRuns(page: Page, runIds: string[], timeoutMs = 30_000): Promise<Locator> {
  await openAgentRuns(page);
  const pane = viewPane(page, 'Runs');
  for (const id of runIds) await row(pane, id).first().waitFor({ timeout: timeoutMs });
  return pane;
}

/**
 * The contract of the UI flow files (`ui/*.ui.ts`): each exports `tests: UiTest[]`, run in order against one
 * workbench page opened on a fresh demo workspace with the extension under development. A step that fails marks the
 * rest of its file failed (they build on it) — nothing is skipped silently.
 */
import type { Page } from 'playwright-core';

/** What a file's workspace starts with (`export const workspace: UiWorkspace`); default `demo`. */
export type UiWorkspace = 'demo' | 'empty';

/**
 * What a file writes into its workspace before the workbench opens it (`export const setup: UiSetup`): data a
 * flow needs in the store from the start, too large to write while the workbench runs on a loaded machine.
 */
export type UiSetup = (ctx: { workspace: string; store: string }) => void | Promise<void>;

export interface UiContext {
  page: Page;
  /** The workspace folder, holding the demo store at `.ocdb/runs.db` (no store at all when `empty`). */
  workspace: string;
  store: string;
  /** code-server's user-data folder (its `User/settings.json` and `Machine/settings.json`, which VS Code watches). */
  userDataDir: string;
  /** Saves test-results/screenshots/<name>.png (test/README.md names this folder). */
  screenshot(name: string): Promise<string>;
}

export interface UiTest {
  name: string;
  run(ctx: UiContext): Promise<void>;
}

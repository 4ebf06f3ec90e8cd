/**
 * Live debugging as media/docs/live-debugging.md, "In VS Code", tells it, in the workbench: a
 * function breakpoint on `lookup_order`; Debug Next Run of Agent… for `support-bot` (typed: the demo store has no
 * run of it); the README's recording example started as a real child process (`node agent.js` in the workspace,
 * `agent-time-travel` installed in its node_modules) stops before `lookup_order`; the Variables view shows the
 * pending args; Step Back walks into what the run recorded and Step Over comes back to the live stop; `orderId` is
 * set in Variables; Continue — the tool runs with the new argument, the agent finishes, the run in the tree is
 * completed and its transcript shows the edit. Then a second run is stopped and the debug session is stopped: the
 * agent goes on by itself. A screenshot per step, at a 300 px side bar.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { openRunStore, type RunStore } from '../../../src/store';
import { REPO_ROOT } from '../codeServer';
import type { UiTest } from './uiTest';
import {
  callStackFrames,
  chooseMenuItem,
  debugToolbarButton,
  expandRow,
  openRunAndDebug,
  row,
  rowLabels,
  runCommand,
  viewPane,
  waitForRuns,
  widenSideBar,
} from './workbench';

const AGENT = 'support-bot';
const SIDE_BAR = 300;

/** The agent: the README's recording example, word for word (what a user saves as agent.js). */
function recordingExample(): string {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const match = /<!-- recording-example -->\s*```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(match, 'README has a ```js block after <!-- recording-example -->');
  return match[1] as string;
}

interface AgentProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `node agent.js` in the workspace, as a user runs it in a terminal (the store: ./.ocdb/runs.db). */
function startAgent(workspace: string): AgentProcess {
  const file = path.join(workspace, 'agent.js');
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, recordingExample());
    // `npm install agent-time-travel`, without the network: this checkout is the package
    const modules = path.join(workspace, 'node_modules');
    fs.mkdirSync(modules, { recursive: true });
    fs.symlinkSync(REPO_ROOT, path.join(modules, 'agent-time-travel'), 'dir');
  }
  const env = { ...process.env };
  delete env.OCDB_STORE; // the example writes to ./.ocdb/runs.db of the folder it runs in
  const child = spawn(process.execPath, [file], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function exitWithin(agent: AgentProcess, ms: number, what: string): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      agent.exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what}: the agent still runs after ${ms} ms; output: ${agent.output()}`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

let store: RunStore | undefined;
let agents: AgentProcess[] = [];
// a step that failed leaves its agent waiting: never outlive the test run
process.on('exit', () => {
  for (const a of agents) if (a.child.exitCode === null) a.child.kill();
});
let editedRunId = '';

function openStore(file: string): RunStore {
  store ??= openRunStore(file, { create: false });
  return store;
}

/** The newest run of the agent (the example lets the SDK choose its id). */
function newestRun(file: string): string {
  const run = openStore(file).listRuns({ agentId: AGENT, limit: 1 }).runs[0];
  assert.ok(run, `a run of ${AGENT} is in the store`);
  return run.runId;
}

async function statusBarItem(page: Page, text: RegExp): Promise<Locator> {
  const item = page.locator('.statusbar-item', { hasText: text }).first();
  await item.waitFor({ timeout: 20_000 }).catch(async (e: unknown) => {
    const all = await page.locator('.statusbar-item').allInnerTexts();
    throw new Error(`${String(e)}; status bar: ${all.join(' | ')}`);
  });
  return item;
}

/** Moves the mouse off the side bar and lets hover tooltips fade, so a screenshot shows the views, not a hover. */
async function settle(page: Page): Promise<void> {
  await page.mouse.move(900, 450);
  await page.waitForTimeout(600);
}

/** Polls the Call Stack until its top frame matches. */
async function waitForTopFrame(page: Page, top: RegExp, minFrames = 1, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let frames: string[] = [];
  while (Date.now() < deadline) {
    frames = await callStackFrames(page).catch(() => []);
    // VS Code asks for the top frame first and the rest a moment later
    if (top.test(frames[0] ?? '') && frames.length >= minFrames) return frames;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for the top frame ${String(top)}; Call Stack: ${frames.join(' | ')}`);
}

export const tests: UiTest[] = [
  {
    name: 'a function breakpoint on lookup_order, then Debug Next Run of Agent… for a typed agent id waits for its run',
    async run({ page, screenshot }) {
      await openRunAndDebug(page);
      await widenSideBar(page, SIDE_BAR);
      // the Run and Debug welcome offers the command too
      await page
        .locator('.welcome-view-content .monaco-button, .welcome-view-content a', {
          hasText: 'Debug Next Run of Agent',
        })
        .first()
        .waitFor({ timeout: 15_000 });
      await settle(page);
      await screenshot('live-00-run-and-debug-welcome');
      await runCommand(page, 'Add Function Breakpoint');
      const input = viewPane(page, 'Breakpoints').locator('.monaco-inputbox input').first();
      await input.waitFor({ timeout: 10_000 });
      await input.fill('lookup_order');
      await page.keyboard.press('Enter');
      await row(viewPane(page, 'Breakpoints'), 'lookup_order').first().waitFor({ timeout: 10_000 });

      await runCommand(page, 'Agent Time Travel: Debug Next Run of Agent…');
      const quickPick = page.locator('.quick-input-widget');
      // the agents of the store are offered, newest first...
      await quickPick.locator('.monaco-list-row', { hasText: 'support-desk' }).first().waitFor({ timeout: 10_000 });
      const offered = await quickPick.locator('.monaco-list-row .label-name').allInnerTexts();
      assert.ok(offered.includes('research-scout') && offered.includes('code-fixer'), offered.join(' | '));
      await screenshot('live-01-pick-agent');
      // ...and one not seen yet can be typed
      await quickPick.locator('.quick-input-box input').fill(AGENT);
      await quickPick
        .locator('.monaco-list-row', { hasText: 'no run of it in the store yet' })
        .first()
        .waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter');
      // the session is up, waiting: the debug toolbar shows, no thread yet
      await debugToolbarButton(page, 'Pause').waitFor({ timeout: 30_000 });
      // no thread yet: the Call Stack says Running, the Debug Console what the session waits for
      await viewPane(page, 'Call Stack').locator('.pane-header', { hasText: 'Running' }).waitFor({ timeout: 10_000 });
      await page.locator('.repl .monaco-list-row', { hasText: AGENT }).first().waitFor({ timeout: 10_000 });
      await statusBarItem(page, /live · waiting for support-bot/);
      await settle(page);
      await screenshot('live-02-waiting-for-agent');
    },
  },
  {
    name: 'the agent started in a terminal stops before lookup_order: Call Stack, status bar and the Pending args',
    async run({ page, workspace, screenshot }) {
      agents.push(startAgent(workspace));
      // the checkpoints it recorded before are the frames below
      const frames = await waitForTopFrame(page, /before_tool_call · lookup_order/, 3);
      assert.match(frames.at(-1) ?? '', /step 0 · before_model_call/, frames.join(' | '));
      await statusBarItem(page, /live · stopped before lookup_order/);
      assert.equal(agents[0]?.child.exitCode, null, `the agent waits: ${agents[0]?.output() ?? ''}`);
      const variables = viewPane(page, 'Variables');
      await expandRow(row(variables, 'Scope Pending').first());
      await expandRow(row(variables, 'args, value').first());
      await row(variables, 'orderId, value "A-1"')
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(async (e: unknown) => {
          throw new Error(`${String(e)}; Variables rows: ${(await rowLabels(variables)).join(' | ')}`);
        });
      await settle(page);
      await screenshot('live-03-stopped-before-tool');
    },
  },
  {
    name: 'the runs tree marks the run PAUSED before lookup_order',
    async run({ page, store: storeFile, screenshot }) {
      const runId = newestRun(storeFile);
      const pane = await waitForRuns(page, [runId]);
      const runRow = row(pane, runId).first();
      await runRow
        .filter({ hasText: 'PAUSED before lookup_order' })
        .waitFor({ timeout: 15_000 })
        .catch(async (e: unknown) => {
          throw new Error(`${String(e)}; the row reads: ${await runRow.innerText()}`);
        });
      assert.equal(await runRow.locator('.codicon-debug-pause').count(), 1, 'the paused icon');
      await runRow.hover();
      await settle(page);
      await screenshot('live-04-tree-paused');
      await openRunAndDebug(page);
    },
  },
  {
    name: 'Step Back walks into the recorded checkpoints while attached; Step Over returns to the live stop',
    async run({ page, screenshot }) {
      await debugToolbarButton(page, 'Step Back').click();
      await waitForTopFrame(page, /after_model_call/);
      await statusBarItem(page, /live · recorded step 0\/\d+ · after_model_call/);
      await debugToolbarButton(page, 'Step Back').click();
      await waitForTopFrame(page, /before_model_call/);
      await settle(page);
      await screenshot('live-05-stepped-back');
      await page.keyboard.press('F10');
      await waitForTopFrame(page, /after_model_call/);
      await page.keyboard.press('F10');
      await waitForTopFrame(page, /before_tool_call · lookup_order/);
      await statusBarItem(page, /live · stopped before lookup_order/);
    },
  },
  {
    name: 'orderId set in Variables and Continue: the tool runs with it, the agent finishes',
    async run({ page, store: storeFile, screenshot }) {
      const variables = viewPane(page, 'Variables');
      await expandRow(row(variables, 'Scope Pending').first());
      await expandRow(row(variables, 'args, value').first());
      await row(variables, 'orderId, value').first().dblclick();
      const input = variables.locator('.monaco-inputbox input').first();
      await input.waitFor({ timeout: 10_000 });
      await input.fill('"A-2"');
      await page.keyboard.press('Enter');
      await row(variables, 'orderId, value "A-2"')
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(async (e: unknown) => {
          throw new Error(`${String(e)}; Variables rows: ${(await rowLabels(variables)).join(' | ')}`);
        });
      await settle(page);
      await screenshot('live-06-edited-args');
      await page.keyboard.press('F5');
      const agent = agents[0]!;
      assert.equal(await exitWithin(agent, 20_000, 'after Continue'), 0, agent.output());
      editedRunId = newestRun(storeFile);
      const s = openStore(storeFile);
      const run = s.getRun(editedRunId);
      assert.equal(run.status, 'completed');
      const call = s.listToolCalls(editedRunId).find((c) => c.toolName === 'lookup_order');
      assert.deepEqual(call?.args, { orderId: 'A-2' }, 'the tool ran with the edited argument');
      assert.deepEqual(call?.result, { orderId: 'A-2', status: 'shipped' }, 'and answered for it');
      assert.ok(call?.liveEdit?.editedBy, 'the ledger says who edited it');
    },
  },
  {
    name: 'stopping the debugger while the agent is stopped lets the agent finish on its own',
    async run({ page, workspace, store: storeFile, screenshot }) {
      await openRunAndDebug(page);
      const agent = startAgent(workspace);
      agents.push(agent);
      await waitForTopFrame(page, /before_tool_call · lookup_order/);
      assert.equal(agent.child.exitCode, null, 'stopped');
      await page.keyboard.press('Shift+F5');
      assert.equal(await exitWithin(agent, 10_000, 'after the debugger stopped'), 0, agent.output());
      const runId = newestRun(storeFile);
      assert.notEqual(runId, editedRunId);
      const call = openStore(storeFile)
        .listToolCalls(runId)
        .find((c) => c.toolName === 'lookup_order');
      assert.deepEqual(call?.args, { orderId: 'A-1' }, 'unedited');
      await debugToolbarButton(page, 'Pause').waitFor({ state: 'detached', timeout: 10_000 });
      // the transcript the debugger served while the run grew gives way to the file, which follows the run
      await page
        .locator('.monaco-editor .view-line', {
          hasText: new RegExp(`${runId}\\s·\\sagent\\ssupport-bot\\s·\\scompleted`),
        })
        .first()
        .waitFor({ timeout: 15_000 });
      await settle(page);
      await screenshot('live-07-debugger-stopped-agent-finished');
      for (const a of agents) if (a.child.exitCode === null) a.child.kill();
      agents = [];
      store?.close();
      store = undefined;
    },
  },
  {
    name: 'the edited run is completed in the tree, its ledger marks the edited call, its transcript shows the edit',
    async run({ page, screenshot }) {
      const pane = await waitForRuns(page, [editedRunId]);
      const runRow = row(pane, editedRunId).first();
      await runRow.locator('.codicon-pass').waitFor({ timeout: 15_000 });
      await expandRow(runRow);
      await expandRow(row(pane, 'Tool Ledger').first());
      const call = row(pane, 'lookup_order').filter({ hasText: 'edited live' }).first();
      await call.waitFor({ timeout: 10_000 }).catch(async (e: unknown) => {
        throw new Error(`${String(e)}; Runs rows: ${(await rowLabels(pane)).join(' | ')}`);
      });
      await settle(page);
      await screenshot('live-08-edited-run-in-tree');
      await runRow.click({ button: 'right' });
      await chooseMenuItem(page, 'Open Transcript');
      const edited = page.locator('.monaco-editor .view-line', { hasText: /✎\sedited\sby\s/ }).first();
      await edited.waitFor({ timeout: 20_000 });
      const text = (await edited.innerText()).replace(/\s+/g, ' ');
      assert.match(text, /lookup_order\(\{"orderId":"A-2"\}\).* edited by .*args\.orderId/, text);
      await settle(page);
      await screenshot('live-09-edited-run-transcript');
    },
  },
];

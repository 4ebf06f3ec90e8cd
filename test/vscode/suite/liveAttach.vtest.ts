/**
 * Live debugging inside the real extension host: Debug Next Run of Agent… starts an attach session for the agent on
 * the store of the settings; a run being recorded by another process (a real child process using the SDK, like the
 * README's example with `lookup_order`) offers Attach in the runs tree, and Attach with a function breakpoint on
 * the tool stops the agent before it runs — the tree says `PAUSED before lookup_order`, the status bar
 * `live · stopped before lookup_order`; the argument set in Pending is the one the tool runs with after Continue.
 * An ended run refuses Attach.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { COMMANDS, EXTENSION_ID, ITEM_CONTEXT } from '../../../src/extension/ids';
import { extensionApi, stopAllSessions } from './extensionApi';
import { waitFor, type VTest } from './vtest';

/** A small agent on the SDK: starts its run, waits for `GO` to exist, asks the model (scripted), calls lookup_order. */
const AGENT_SCRIPT = `
const fs = require('node:fs');
const { openRecorder } = require(process.env.RECORDER);
const recorder = openRecorder({ store: process.env.STORE });
const run = recorder.startRun({
  agentId: 'vtest-live-bot',
  runId: process.env.RUN_ID,
  runtimeContext: {
    user: { userId: 'u-1', roleId: 'support_agent', permissions: ['orders:read'] },
    conversation: { sessionId: 'sess-1' },
    project: { projectId: 'shop' },
    task: { taskId: 't-1', workflowId: 'order-status', stepStates: {} },
    tools: { availableTools: ['lookup_order'] },
    model: { provider: 'openai', model: 'gpt-4.1-mini', promptVersion: 'v1' },
  },
  messages: [{ role: 'user', content: 'Where is order A-1?' }],
});
const lookupOrder = run.tool('lookup_order', { sideEffectLevel: 'read_only' }, async ({ orderId }) => {
  process.stdout.write('lookup_order ran with ' + orderId + '\\n');
  return { orderId, status: 'shipped' };
});
(async () => {
  run.checkpoint('before_prompt_build');
  while (!fs.existsSync(process.env.GO)) await new Promise((r) => setTimeout(r, 20));
  await run.modelCall({}, async () => ({
    message: {
      role: 'assistant',
      content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'lookup_order', args: { orderId: 'A-1' } }],
    },
    finishReason: 'tool_calls',
  }));
  await lookupOrder({ orderId: 'A-1' }, { toolCallId: 'c1' });
  if (process.env.END) {
    // records on after Continue, then waits (still running) for END
    await run.modelCall({}, async () => ({ message: { role: 'assistant', content: 'It has shipped.' }, finishReason: 'stop' }));
    while (!fs.existsSync(process.env.END)) await new Promise((r) => setTimeout(r, 20));
  }
  run.end();
  recorder.close();
})();
`;

type Body<R extends DebugProtocol.Response> = R['body'];

async function sessionStarted(what: string): Promise<vscode.DebugSession> {
  return waitFor(what, () => vscode.debug.activeDebugSession, 15_000);
}

export const tests: VTest[] = [
  {
    name: 'Debug Next Run of Agent… with an agent id starts an attach session for that agent on the store of the settings',
    async run() {
      await stopAllSessions();
      const api = await extensionApi();
      const started = await vscode.commands.executeCommand(COMMANDS.debugNextRun.id, 'vtest-next-agent');
      assert.equal(started, true, 'the session started');
      const session = await sessionStarted('the attach session');
      assert.equal(session.configuration.request, 'attach');
      assert.equal(session.configuration.agentId, 'vtest-next-agent');
      assert.equal(session.configuration.runId, undefined);
      assert.equal(session.configuration.store, api.ctx.connection.path);
      assert.match(session.name, /vtest-next-agent/);
      await waitFor('the status bar to say what the session waits for', () =>
        /live · waiting for vtest-next-agent/.test(api.statusBar.text),
      );
      await stopAllSessions();
      await waitFor('the status bar to hide once the session ended', () => api.statusBar.text === '');
    },
  },
  {
    name: 'an attach configuration with an empty agentId is refused before any session starts',
    async run() {
      await stopAllSessions();
      const started = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], {
        type: 'agent-replay',
        request: 'attach',
        name: 'Attach to agent run',
        agentId: '',
      });
      assert.equal(started, false);
      assert.equal(vscode.debug.activeDebugSession, undefined);
    },
  },
  {
    name: 'Attach on an ended run refuses with its reason and starts no session',
    async run() {
      await stopAllSessions();
      const api = await extensionApi();
      const done = api.tree.runNode('demo-support-refund');
      assert.equal(api.tree.getTreeItem(done).contextValue, ITEM_CONTEXT.run, 'an ended run offers no Attach');
      const started = await vscode.commands.executeCommand(COMMANDS.attachRun.id, done);
      assert.notEqual(started, true);
      assert.equal(vscode.debug.activeDebugSession, undefined);
    },
  },
  {
    name: 'Attach on a running run: stopped before lookup_order in the tree and the status bar; the edited arg is what the tool runs with',
    timeoutMs: 90_000,
    async run() {
      await stopAllSessions();
      const api = await extensionApi();
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-vtest-attach-'));
      const script = path.join(dir, 'agent.js');
      const go = path.join(dir, 'go');
      fs.writeFileSync(script, AGENT_SCRIPT);
      const runId = `vtest-live-run-${Date.now()}`;
      const child = spawn(process.execPath, [script], {
        env: {
          ...process.env,
          ELECTRON_RUN_AS_NODE: '1',
          RECORDER: path.join(ext.extensionPath, 'dist', 'recorder.js'),
          STORE: api.ctx.connection.path,
          RUN_ID: runId,
          GO: go,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const breakpoint = new vscode.FunctionBreakpoint('lookup_order');
      vscode.debug.addBreakpoints([breakpoint]);
      try {
        const node = api.tree.runNode(runId);
        await waitFor(
          'the running run in the tree, offering Attach',
          () => {
            api.ctx.connection.poll();
            return api.tree.getTreeItem(node).contextValue === ITEM_CONTEXT.runningRun;
          },
          20_000,
        );
        const started = await vscode.commands.executeCommand(COMMANDS.attachRun.id, node);
        assert.equal(started, true, `the attach session started; agent output: ${output}`);
        const session = await sessionStarted('the attach session');
        assert.equal(session.configuration.request, 'attach');
        assert.equal(session.configuration.runId, runId);
        await waitFor('the tree to mark the run attached', () =>
          /^ATTACHED · /.test(String(api.tree.getTreeItem(node).description)),
        );

        fs.writeFileSync(go, '');
        await waitFor(
          'the status bar at the live stop',
          () => /live · stopped before lookup_order/.test(api.statusBar.text) && api.statusBar.text,
          20_000,
        );
        await waitFor('the tree to mark the run paused', () =>
          /^PAUSED before lookup_order · /.test(String(api.tree.getTreeItem(node).description)),
        );
        assert.equal(child.exitCode, null, 'the agent waits');

        // Pending › args › orderId, set as the Variables view does
        const threads = (await session.customRequest('threads')) as Body<DebugProtocol.ThreadsResponse>;
        const stopped = vscode.debug.activeStackItem;
        const threadId = stopped?.threadId ?? threads.threads[0]?.id ?? 1;
        const frames = (await session.customRequest('stackTrace', {
          threadId,
          startFrame: 0,
          levels: 1,
        })) as Body<DebugProtocol.StackTraceResponse>;
        const frameId = frames.stackFrames[0]?.id;
        assert.match(frames.stackFrames[0]?.name ?? '', /before_tool_call · lookup_order/);
        const scopes = (await session.customRequest('scopes', { frameId })) as Body<DebugProtocol.ScopesResponse>;
        const pending = scopes.scopes.find((s) => s.name === 'Pending');
        assert.ok(pending, `a Pending scope: ${scopes.scopes.map((s) => s.name).join(', ')}`);
        const top = (await session.customRequest('variables', {
          variablesReference: pending.variablesReference,
        })) as Body<DebugProtocol.VariablesResponse>;
        const args = top.variables.find((v) => v.name === 'args');
        assert.ok(args, `Pending holds args: ${top.variables.map((v) => v.name).join(', ')}`);
        await session.customRequest('setVariable', {
          variablesReference: args.variablesReference,
          name: 'orderId',
          value: '"A-2"',
        });
        await session.customRequest('continue', { threadId });
        assert.equal(await exitedWithin(exited, 20_000), 0, output);
        assert.match(output, /lookup_order ran with A-2/);
        const store = api.ctx.connection.getOrCreate();
        const call = store.listToolCalls(runId).find((c) => c.toolName === 'lookup_order');
        assert.deepEqual(call?.args, { orderId: 'A-2' });
        await waitFor('the attach session to end with its run', () => vscode.debug.activeDebugSession === undefined);
        await waitFor('the status bar to hide', () => api.statusBar.text === '');
      } finally {
        vscode.debug.removeBreakpoints([breakpoint]);
        await stopAllSessions();
        if (child.exitCode === null) child.kill();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  {
    name: 'after Continue the live transcript header counts the checkpoints the agent records, before the run ends',
    timeoutMs: 90_000,
    async run() {
      await stopAllSessions();
      const api = await extensionApi();
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-vtest-header-'));
      const script = path.join(dir, 'agent.js');
      const go = path.join(dir, 'go');
      const end = path.join(dir, 'end');
      fs.writeFileSync(script, AGENT_SCRIPT);
      const runId = `vtest-live-header-${Date.now()}`;
      const child = spawn(process.execPath, [script], {
        env: {
          ...process.env,
          ELECTRON_RUN_AS_NODE: '1',
          RECORDER: path.join(ext.extensionPath, 'dist', 'recorder.js'),
          STORE: api.ctx.connection.path,
          RUN_ID: runId,
          GO: go,
          END: end,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const breakpoint = new vscode.FunctionBreakpoint('lookup_order');
      vscode.debug.addBreakpoints([breakpoint]);
      /** The checkpoint count the header of the run's transcript reads in the editor the user sees. */
      const headerCount = (): number | undefined => {
        const doc = vscode.window.visibleTextEditors
          .map((e) => e.document)
          .find((d) => d.uri.path.endsWith(`${runId}.transcript`));
        const m = doc ? / · (\d+) checkpoints?$/.exec(doc.lineAt(0).text) : null;
        return m ? Number(m[1]) : undefined;
      };
      try {
        const node = api.tree.runNode(runId);
        await waitFor(
          'the running run in the tree, offering Attach',
          () => {
            api.ctx.connection.poll();
            return api.tree.getTreeItem(node).contextValue === ITEM_CONTEXT.runningRun;
          },
          20_000,
        );
        assert.equal(await vscode.commands.executeCommand(COMMANDS.attachRun.id, node), true, output);
        await sessionStarted('the attach session');
        fs.writeFileSync(go, '');
        await waitFor(
          'the status bar at the live stop',
          () => /live · stopped before lookup_order/.test(api.statusBar.text) && api.statusBar.text,
          20_000,
        );
        const atStop = await waitFor('the transcript shown at the stop, with its header', headerCount, 20_000);
        // Continue as the user presses it (F5): VS Code then knows the thread runs and no frame is focused (a
        // custom request would leave the stopped frame focused in its view)
        await vscode.commands.executeCommand('workbench.action.debug.continue');
        await waitFor(
          'no frame focused after Continue',
          () => !(vscode.debug.activeStackItem instanceof vscode.DebugStackFrame),
          20_000,
        );
        const grown = await waitFor(
          'the header to count the checkpoints recorded after Continue',
          () => {
            const n = headerCount();
            return n !== undefined && n > atStop ? n : undefined;
          },
          20_000,
        ).catch((e: unknown) => {
          const docs = vscode.window.visibleTextEditors.map(
            (x) => `${x.document.uri.toString()} :: ${x.document.lineAt(0).text}`,
          );
          const file = path.join(path.dirname(api.ctx.connection.path), 'transcripts', `${runId}.transcript`);
          const onDisk = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n')[0] : 'none';
          throw new Error(`${String(e)}\nDOCS ${docs.join('\n')}\nFILE ${file} ${onDisk}\nat stop ${atStop}`);
        });
        assert.equal(child.exitCode, null, 'the agent is still running: the header grew before the run ended');
        // lookup_order's end and the model call after it: at least three new checkpoints
        assert.ok(grown >= atStop + 3, `the header went from ${atStop} to ${grown} checkpoints`);
        const doc = vscode.window.visibleTextEditors.find((e) => e.document.uri.path.endsWith(`${runId}.transcript`));
        assert.match(doc?.document.lineAt(0).text ?? '', / · running · /, 'it reads running while it runs');
        fs.writeFileSync(end, '');
        assert.equal(await exitedWithin(exited, 20_000), 0, output);
      } finally {
        vscode.debug.removeBreakpoints([breakpoint]);
        await stopAllSessions();
        if (child.exitCode === null) child.kill();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];

async function exitedWithin(exited: Promise<number | null>, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      exited,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no exit within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

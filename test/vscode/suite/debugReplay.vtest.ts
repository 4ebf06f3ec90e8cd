/**
 * "Replay agent run" in a real VS Code: vscode.debug.startDebugging with the
 * contributed debug type (inline adapter), stopping on entry, stepping
 * forwards and back through the session, reading frames, the status bar
 * position, the tree revealing and the context editor following the frame, and a gutter breakpoint
 * on a transcript's tool-call line stopping there.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { COMMANDS, DEBUG_TYPE, LAUNCH_CONFIG_NAME } from '../../../src/extension/ids';
import { demoStorePath, extensionApi, stopAllSessions } from './extensionApi';
import { waitFor, type VTest } from './vtest';

type Frames = DebugProtocol.StackTraceResponse['body'];

function config(extra: Record<string, unknown> = {}): vscode.DebugConfiguration {
  return {
    type: DEBUG_TYPE,
    request: 'launch',
    name: LAUNCH_CONFIG_NAME,
    runId: 'demo-support-refund',
    store: demoStorePath(),
    stopOnEntry: true,
    ...extra,
  };
}

async function frames(session: vscode.DebugSession): Promise<Frames> {
  return (await session.customRequest('stackTrace', { threadId: 1, startFrame: 0, levels: 20 })) as Frames;
}

/** Waits for the session to be paused at a top frame whose name matches. */
async function pausedAt(session: vscode.DebugSession, name: RegExp): Promise<Frames> {
  return waitFor(`a frame named ${name}`, async () => {
    const f = await frames(session);
    return name.test(f.stackFrames[0]?.name ?? '') && f;
  });
}

export const tests: VTest[] = [
  {
    name: 'startDebugging "Replay agent run" stops on entry; next / stepBack move between checkpoints; frames read back',
    timeoutMs: 60_000,
    async run() {
      const api = await extensionApi();
      await stopAllSessions();
      await vscode.commands.executeCommand('agentTimeTravel.runs.focus');
      const started = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], config());
      assert.equal(started, true, 'the session started');
      const session = await waitFor('the agent-replay session', () => vscode.debug.activeDebugSession);
      assert.equal(session.type, DEBUG_TYPE);
      try {
        const first = await pausedAt(session, /^step 0 · before_prompt_build/);
        assert.equal(first.stackFrames.length, 1);
        assert.match(first.stackFrames[0]?.source?.path ?? '', /demo-support-refund\.transcript$/);

        await session.customRequest('next', { threadId: 1 });
        const second = await pausedAt(session, /^step 0 · before_model_call/);
        assert.equal(second.stackFrames.length, 2, 'frames run from the current checkpoint back to the start');
        assert.equal((second.stackFrames[0]?.line ?? 0) > (second.stackFrames[1]?.line ?? 0), true);

        await session.customRequest('next', { threadId: 1 });
        await pausedAt(session, /^step 0 · after_model_call/);
        await session.customRequest('stepBack', { threadId: 1 });
        await pausedAt(session, /^step 0 · before_model_call/);

        // the status bar and the context editor follow the active frame
        await api.tracker.update();
        // wait for the position after the step back (`step 0/` alone is already true at after_model_call)
        await waitFor(
          'the status bar at before_model_call',
          () => /\[1\] step 0 · before_model_call/.test(api.statusBar.text) && api.statusBar.text,
        );
        await waitFor(
          'the tracker at before_model_call',
          () => api.tracker.position?.checkpoint.boundary === 'before_model_call',
        );
        const current = api.tracker.position?.checkpoint.checkpointId;
        assert.equal(api.editor.shown?.checkpointId, current, 'the context editor follows the frame');
        // debugging took the sidebar; the Runs view catches up with the current checkpoint when shown again
        await vscode.commands.executeCommand('workbench.view.extension.agentRuns');
        await waitFor('the Runs view visible again', () => api.treeView.visible);
        await waitFor(
          'the tree to reveal the current checkpoint',
          () => api.treeView.selection[0]?.id === `cp:${current}`,
        );

        // with a frame location (newer clients), the frame it names
        const lower = (await frames(session)).stackFrames[1];
        assert.ok(lower?.source?.path);
        await vscode.commands.executeCommand(COMMANDS.forkFromFrame.id, {
          sessionId: session.id,
          threadId: `${session.id}:1`,
          frameId: 'stackframe:1:1',
          frameName: lower.name,
          frameLocation: { range: { startLineNumber: lower.line }, source: lower.source },
        });
        const cp0 = api.ctx.transcripts.transcript('demo-support-refund').lines[0];
        await waitFor(
          'the editor at the right-clicked frame',
          () => api.editor.shown?.checkpointId === cp0?.checkpointId,
        );
        // "Fork from this checkpoint" as VS Code 1.100 calls it (the frame's source URI): the focused frame
        const top = (await frames(session)).stackFrames[0];
        await vscode.commands.executeCommand(
          COMMANDS.forkFromFrame.id,
          vscode.Uri.file(top?.source?.path ?? '').toString(),
        );
        await waitFor('the editor back at the focused frame', () => api.editor.shown?.checkpointId === current);
      } finally {
        await stopAllSessions();
      }
      await waitFor('the status bar to hide', () => api.statusBar.text === '');
    },
  },
  {
    name: 'a gutter breakpoint on a tool-call line of the transcript stops the replay there',
    timeoutMs: 60_000,
    async run() {
      const api = await extensionApi();
      await stopAllSessions();
      const transcript = api.ctx.transcripts.transcript('demo-support-refund');
      const target = transcript.lines.find((l) => l.boundary === 'before_tool_call' && l.toolName === 'issue_refund');
      assert.ok(target, 'the transcript has the issue_refund call');
      const uri = api.ctx.transcripts.ensureFile('demo-support-refund');
      const bp = new vscode.SourceBreakpoint(new vscode.Location(uri, new vscode.Position(target.line, 0)));
      vscode.debug.addBreakpoints([bp]);
      try {
        assert.ok(await vscode.debug.startDebugging(undefined, config({ stopOnEntry: false })));
        const session = await waitFor('the session', () => vscode.debug.activeDebugSession);
        const f = await pausedAt(session, /before_tool_call · issue_refund$/);
        assert.equal(f.stackFrames[0]?.line, target.line + 1, 'the frame line is the breakpoint line (1-based)');
      } finally {
        vscode.debug.removeBreakpoints([bp]);
        await stopAllSessions();
      }
    },
  },
  {
    name: 'an invalid launch configuration is refused before the adapter starts',
    async run() {
      await stopAllSessions();
      const started = await vscode.debug.startDebugging(undefined, config({ runId: 42 }));
      assert.equal(started, false);
      assert.equal(vscode.debug.activeDebugSession, undefined);
    },
  },
  {
    name: 'Replay Run on a second run while one is paused brings the second into view: Call Stack, editor, status bar',
    timeoutMs: 60_000,
    async run() {
      const api = await extensionApi();
      await stopAllSessions();
      await vscode.commands.executeCommand(COMMANDS.replayRun.id, 'demo-support-refund');
      const first = await waitFor('the first replay', () => vscode.debug.activeDebugSession);
      await pausedAt(first, /^step 0 · before_prompt_build/);
      const positionOf = async (runId: string) => {
        await api.tracker.update();
        return api.tracker.position?.run.runId === runId;
      };
      await waitFor('the first replay in the status bar', () => positionOf('demo-support-refund'));
      try {
        await vscode.commands.executeCommand(COMMANDS.replayRun.id, 'demo-coding-fix');
        const second = await waitFor('the second replay active', () => {
          const s = vscode.debug.activeDebugSession;
          return s?.configuration.runId === 'demo-coding-fix' && s;
        });
        await pausedAt(second, /^step 0 /);
        const item = await waitFor('the Call Stack on the second replay', () => {
          const i = vscode.debug.activeStackItem;
          return i instanceof vscode.DebugStackFrame && i.session.id === second.id && i;
        });
        assert.equal(item.session.configuration.runId, 'demo-coding-fix');
        await waitFor('the status bar on the second run', () => positionOf('demo-coding-fix'));
        assert.match(api.statusBar.text, /\[0\] step 0/);
        await waitFor('its transcript in front', () =>
          vscode.window.activeTextEditor?.document.fileName.endsWith('demo-coding-fix.transcript'),
        );
      } finally {
        await stopAllSessions();
        await stopAllSessions();
      }
    },
  },
];

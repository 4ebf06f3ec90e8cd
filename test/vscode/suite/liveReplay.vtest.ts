/**
 * Replaying a run that is still being recorded, in a real VS Code: the transcript of a live run is served by a
 * sourceReference that changes as the run grows, so after the recorder writes more and the session steps past the
 * old end, the editor VS Code shows holds the new text and the stop line is inside it (no stale document).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { openRecorder } from '../../../src/recorder';
import { DEBUG_TYPE, LAUNCH_CONFIG_NAME } from '../../../src/extension/ids';
import { stopAllSessions } from './extensionApi';
import { waitFor, type VTest } from './vtest';

type Frames = DebugProtocol.StackTraceResponse['body'];

export const tests: VTest[] = [
  {
    name: 'a run growing while it is replayed: the stop past the old end shows in an editor holding the new text',
    timeoutMs: 60_000,
    async run() {
      await stopAllSessions();
      const store = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-vtest-live-')), 'runs.db');
      const recorder = openRecorder({ store, heartbeatMs: 0 });
      const run = recorder.startRun({
        agentId: 'live-writer',
        runId: 'vtest-growing-run',
        runtimeContext: {
          user: { userId: 'u1', roleId: 'agent', permissions: [] },
          conversation: { sessionId: 's1' },
          project: { projectId: 'p1' },
          task: { taskId: 't1', workflowId: 'w1', stepStates: {} },
          tools: { availableTools: ['search'] },
          model: { provider: 'openai', model: 'gpt-4o-mini', promptVersion: 'v1' },
        },
        messages: [{ role: 'user', content: 'find the Q3 report' }],
      });
      try {
        run.checkpoint('before_prompt_build');
        await run.modelCall({}, () =>
          Promise.resolve({
            message: {
              role: 'assistant',
              content: [{ type: 'tool_call', toolCallId: 'c1', toolName: 'search', args: { q: 'Q3' } }],
            },
            finishReason: 'tool_calls',
          }),
        );
        const started = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], {
          type: DEBUG_TYPE,
          request: 'launch',
          name: LAUNCH_CONFIG_NAME,
          runId: 'vtest-growing-run',
          store,
          stopOnEntry: true,
        });
        assert.equal(started, true);
        const session = await waitFor('the session', () => vscode.debug.activeDebugSession);
        const top = async () =>
          ((await session.customRequest('stackTrace', { threadId: 1, startFrame: 0, levels: 1 })) as Frames)
            .stackFrames[0];
        await waitFor('the entry stop', async () => /before_prompt_build/.test((await top())?.name ?? ''));
        await session.customRequest('continue', { threadId: 1 });
        await waitFor('the old end', async () => /after_model_call/.test((await top())?.name ?? ''));

        const search = run.tool('search', { sideEffectLevel: 'read_only' }, () => ({ hits: ['q3.pdf'] }));
        await search({ q: 'Q3' }, { toolCallId: 'c1' });
        await session.customRequest('next', { threadId: 1 });
        const frame = await waitFor('the stop past the old end', async () => {
          const f = await top();
          return /before_tool_call · search/.test(f?.name ?? '') && f;
        });
        const editor = await waitFor('an editor showing the stop line with its text', () => {
          const e = vscode.window.activeTextEditor;
          if (!e || !e.document.fileName.endsWith('vtest-growing-run.transcript')) return undefined;
          if (e.document.lineCount < frame.line) return undefined;
          return /^\[3\] before_tool_call · search/.test(e.document.lineAt(frame.line - 1).text) && e;
        });
        assert.equal(editor.selection.active.line, frame.line - 1, 'the cursor is on the stop line');
      } finally {
        await stopAllSessions();
        run.end();
        recorder.close();
      }
    },
  },
];

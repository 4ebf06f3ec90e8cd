/**
 * One fork front door in a real VS Code: a Runtime Context value edited in a paused replay (setVariable, sent as
 * VS Code sends it: scopes → variables → setVariable) shows up in the Context & Fork editor that "Fork from this
 * checkpoint" opens, marked as changed; an edit staged while the editor shows the checkpoint joins it; forking from
 * the editor keeps the edits in the fork run (the source run is untouched) and clears them in the session.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { sendRequest, stagedContextPatchRequest, stagedPatchOf } from '../../../src/debug/protocol';
import { COMMANDS, DEBUG_TYPE, LAUNCH_CONFIG_NAME } from '../../../src/extension/ids';
import { openRunStore } from '../../../src/store';
import type { HostMessage, PageMessage } from '../../../src/webview/protocol';
import { demoStorePath, extensionApi, stopAllSessions } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const RUN = 'demo-support-refund';

type Frames = DebugProtocol.StackTraceResponse['body'];
type Vars = DebugProtocol.VariablesResponse['body'];
type Scopes = DebugProtocol.ScopesResponse['body'];

/** The Runtime Context child `name` of the top frame, as the Variables view reads it. */
async function contextVariable(session: vscode.DebugSession, name: string): Promise<DebugProtocol.Variable> {
  const frames = (await session.customRequest('stackTrace', { threadId: 1, startFrame: 0, levels: 20 })) as Frames;
  const top = frames.stackFrames[0];
  assert.ok(top, 'the replay is paused at a frame');
  const { scopes } = (await session.customRequest('scopes', { frameId: top.id })) as Scopes;
  const scope = scopes.find((s) => s.name === 'Runtime Context');
  assert.ok(scope, `scopes: ${scopes.map((s) => s.name).join(', ')}`);
  const { variables } = (await session.customRequest('variables', {
    variablesReference: scope.variablesReference,
  })) as Vars;
  const v = variables.find((x) => x.name === name);
  assert.ok(v, `Runtime Context has ${name}`);
  return v;
}

/** Edits `field` of the Runtime Context object `parent` in the Variables view (setVariable, as VS Code sends it). */
async function setContextValue(session: vscode.DebugSession, parent: string, field: string, value: string) {
  const container = await contextVariable(session, parent);
  const set = (await session.customRequest('setVariable', {
    variablesReference: container.variablesReference,
    name: field,
    value,
  })) as DebugProtocol.SetVariableResponse['body'];
  assert.equal(set.value, value);
}

export const tests: VTest[] = [
  {
    name: 'an edit staged in the Variables view opens with Fork from this checkpoint as a changed field, and the fork from the editor keeps it',
    timeoutMs: 90_000,
    async run() {
      const api = await extensionApi();
      await stopAllSessions();
      const posted: HostMessage[] = [];
      const received: PageMessage[] = [];
      const subs = [api.editor.onDidPost((m) => posted.push(m)), api.editor.onDidReceive((m) => received.push(m))];
      const started = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], {
        type: DEBUG_TYPE,
        request: 'launch',
        name: LAUNCH_CONFIG_NAME,
        runId: RUN,
        store: demoStorePath(),
        stopOnEntry: true,
      });
      assert.ok(started, 'the replay started');
      const session = await waitFor('the agent-replay session', () => vscode.debug.activeDebugSession);
      try {
        const top = await waitFor('the replay paused on entry', async () => {
          const f = (await session.customRequest('stackTrace', { threadId: 1, startFrame: 0, levels: 1 })) as Frames;
          return f.stackFrames[0];
        });
        const cp0 = api.ctx.connection.getOrCreate().listCheckpoints(RUN)[0];
        assert.ok(cp0);

        await setContextValue(session, 'user', 'roleId', '"auditor"');

        // Fork from this checkpoint, as VS Code 1.100's Call Stack menu calls it (the frame's source URI)
        await vscode.commands.executeCommand(
          COMMANDS.forkFromFrame.id,
          vscode.Uri.file(top.source?.path ?? '').toString(),
        );
        const shown = await waitFor('the editor shown with the staged edit', () =>
          posted.find(
            (m) =>
              m.type === 'show' &&
              m.checkpoint?.checkpointId === cp0.checkpointId &&
              JSON.stringify(m.stagedContextPatch) === JSON.stringify({ user: { roleId: 'auditor' } }),
          ),
        );
        assert.equal(shown.type, 'show');
        // the page's draft has the field changed: the plan it asks for patches exactly that field
        const isPlanOf = (m: PageMessage, patch: unknown) =>
          m.type === 'plan' &&
          m.config.sourceCheckpointId === cp0.checkpointId &&
          JSON.stringify(m.config.contextPatch) === JSON.stringify(patch);
        await waitFor(
          'the page to plan a fork with roleId changed',
          () => received.find((m) => isPlanOf(m, { user: { roleId: 'auditor' } })),
          20_000,
        ).catch((e: unknown) => {
          const plans = received.filter((m) => m.type === 'plan').map((m) => JSON.stringify(m.config.contextPatch));
          throw new Error(`${String(e)}; the page planned: ${plans.join(' | ') || 'nothing'}`);
        });

        // another edit in the Variables view while the editor shows the checkpoint joins the draft
        await setContextValue(session, 'task', 'taskId', '"T-9"');
        const both = { user: { roleId: 'auditor' }, task: { taskId: 'T-9' } };
        const plan = await waitFor(
          'the page to pick up the second staged edit',
          () => received.find((m) => isPlanOf(m, both)),
          20_000,
        );
        assert.equal(plan.type, 'plan');

        // Fork as the page sends it (every tool from the recording: nothing is a hazard)
        const config =
          plan.type === 'plan' ? { ...plan.config, toolPolicyMap: { '*': 'reuse_result' as const } } : null;
        assert.ok(config);
        const runId = api.editor.fork(config, []);
        assert.ok(runId, 'the fork was created');
        const reader = openRunStore(demoStorePath(), { create: false });
        try {
          const first = reader.getCheckpointAt(runId, 0).runtimeContext;
          assert.equal(first.user.roleId, 'auditor', 'the fork starts with the staged edit');
          assert.equal(first.task.taskId, 'T-9');
          const source = reader.getCheckpoint(cp0.checkpointId).runtimeContext;
          assert.equal(source.user.roleId, 'support_agent', 'the source run is untouched');
          assert.notEqual(source.task.taskId, 'T-9');
        } finally {
          reader.close();
        }
        assert.equal(await api.editor.stagedCleared, 1, 'the edits are cleared in the session that staged them');
        const after = stagedPatchOf(await sendRequest(session, stagedContextPatchRequest, {}));
        assert.equal(after, undefined, 'a second fork does not apply them again');
      } finally {
        for (const s of subs) s.dispose();
        await stopAllSessions();
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    },
  },
];

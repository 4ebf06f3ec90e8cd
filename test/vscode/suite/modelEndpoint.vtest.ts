/**
 * Set Up Model Endpoint… in a real VS Code, against a local fake OpenAI-compatible server started by this test (in
 * the extension host, on 127.0.0.1): the command lists the endpoint's models, tests it with a real request, keeps
 * the key in SecretStorage and nowhere in the settings, refuses (and saves nothing) when the key is wrong; a fork
 * with the real model then sends that stored key and runs to the end.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS, SETTINGS, SETTINGS_SECTION } from '../../../src/extension/ids';
import { secretKeyFor } from '../../../src/extension/modelEndpoint';
import { createFork } from '../../../src/extension/forkActions';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/agents/fakeModelServer';
import { extensionApi } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const KEY = 'sk-test-0123456789abcdefSECRET';
let server: FakeModelServer | undefined;

const config = () => vscode.workspace.getConfiguration(SETTINGS_SECTION);

/** Every value of our settings in every scope, as JSON (where a key must never be). */
function settingsJson(): string {
  const all = [SETTINGS.modelBaseUrl, SETTINGS.modelName, SETTINGS.apiKeyEnvVar].map((k) => config().inspect(k));
  return JSON.stringify(all);
}

async function resetEndpoint(): Promise<void> {
  const { ctx } = await extensionApi();
  for (const key of [SETTINGS.modelBaseUrl, SETTINGS.modelName, SETTINGS.apiKeyEnvVar]) {
    await config().update(key, undefined, vscode.ConfigurationTarget.Global);
  }
  if (server) await ctx.vscodeContext.secrets.delete(secretKeyFor(`${server.url}/v1`));
}

export const tests: VTest[] = [
  {
    name: 'Set Up Model Endpoint lists the models, tests the endpoint and keeps the key in SecretStorage only',
    async run() {
      const { ctx } = await extensionApi();
      server = await startFakeModelServer(() => ({ content: 'OK' }), {
        models: ['fake-qwen', 'fake-llama'],
        requireKey: KEY,
      });
      const baseUrl = `${server.url}/v1`;
      const saved = await vscode.commands.executeCommand<boolean>(COMMANDS.setUpModelEndpoint.id, {
        baseUrl,
        apiKey: KEY,
      });
      assert.equal(saved, true, 'the endpoint was saved');
      assert.equal(config().get(SETTINGS.modelBaseUrl), baseUrl);
      assert.equal(config().get(SETTINGS.modelName), 'fake-llama', 'the first model the endpoint lists (sorted)');
      assert.equal(config().get(SETTINGS.apiKeyEnvVar), '', 'the key is not read from a variable');
      assert.equal(await ctx.vscodeContext.secrets.get(secretKeyFor(baseUrl)), KEY, 'the key is in SecretStorage');
      assert.ok(!settingsJson().includes(KEY), `no setting holds the key: ${settingsJson()}`);
      // the connection test was a real chat completion with the key
      const test = server.requests.at(-1);
      assert.equal(test?.authorization, `Bearer ${KEY}`);
      assert.equal(test?.model, 'fake-llama');
    },
  },
  {
    name: 'a wrong key fails the connection test with the endpoint’s words, and nothing is saved',
    async run() {
      assert.ok(server);
      const before = settingsJson();
      const saved = await vscode.commands.executeCommand<boolean>(COMMANDS.setUpModelEndpoint.id, {
        baseUrl: `${server.url}/v1`,
        model: 'fake-qwen',
        apiKey: 'sk-wrong',
      });
      assert.equal(saved, false);
      assert.equal(settingsJson(), before, 'the settings did not change');
      const { ctx } = await extensionApi();
      assert.equal(await ctx.vscodeContext.secrets.get(secretKeyFor(`${server.url}/v1`)), KEY, 'the old key stays');
    },
  },
  {
    name: 'a graded what-if priced under agentTimeTravel.whatIf.askAboveUsd runs without asking, graded by the endpoint',
    timeoutMs: 60_000,
    async run() {
      assert.ok(server);
      const seen = server.requests.length;
      await config().update(SETTINGS.modelName, 'gpt-4o-mini', vscode.ConfigurationTarget.Global);
      await config().update(SETTINGS.whatIfAskAboveUsd, 1, vscode.ConfigurationTarget.Global);
      try {
        // a modal question would hold this command (and the test) until its time-out
        const answer = await vscode.commands.executeCommand<{ total: number }>(COMMANDS.whatIfAcrossRuns.id, {
          spec: {
            cohort: { runIds: ['demo-support-refund'] },
            at: { kind: 'step', stepIndex: 7 },
            fork: { contextPatch: { user: { roleId: 'auditor' } }, toolPolicyMap: { '*': 'reuse_result' } },
            assertions: [{ name: 'polite', question: 'Did the agent answer politely?' }],
          },
        });
        assert.equal(answer.total, 1);
        const asked = server.requests.slice(seen);
        assert.equal(asked.length, 2, 'the fork and its recording were graded');
        assert.ok(asked.every((r) => r.authorization === `Bearer ${KEY}` && r.model === 'gpt-4o-mini'));
      } finally {
        await config().update(SETTINGS.whatIfAskAboveUsd, undefined, vscode.ConfigurationTarget.Global);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    },
  },
  {
    name: 'a fork with the real model sends the stored key to the local endpoint and runs to the end',
    timeoutMs: 60_000,
    async run() {
      assert.ok(server);
      const { ctx } = await extensionApi();
      const store = ctx.connection.getOrCreate();
      const at = store
        .listCheckpoints('demo-support-refund')
        .find((c) => c.boundary === 'before_model_call' && c.stepIndex === 1);
      assert.ok(at);
      const seen = server.requests.length;
      try {
        const created = createFork(
          ctx,
          {
            sourceRunId: 'demo-support-refund',
            sourceCheckpointId: at.checkpointId,
            modelOverride: { mode: 'real' },
            toolPolicyMap: { '*': 'reuse_result' },
          },
          [],
        );
        const run = await waitFor(
          'the real-model fork to settle',
          () => {
            const r = ctx.connection.getOrCreate().getRun(created.runId);
            return r.status !== 'running' ? r : undefined;
          },
          45_000,
        );
        assert.equal(run.status, 'completed', `fork ${created.runId}: ${JSON.stringify(run.error)}`);
        const calls = server.requests.slice(seen);
        assert.ok(calls.length >= 1, 'the fork called the endpoint');
        assert.ok(
          calls.every((r) => r.authorization === `Bearer ${KEY}`),
          'with the key from SecretStorage',
        );
        const last = ctx.connection.getOrCreate().listCheckpoints(created.runId).at(-1);
        assert.equal(last?.boundary, 'agent_end', 'the fork ran to its end');
      } finally {
        await resetEndpoint();
        await server.close();
        server = undefined;
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    },
  },
];

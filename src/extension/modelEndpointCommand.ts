/**
 * Agent Time Travel: Set Up Model Endpoint… — the model of real / override forks in a few clicks: a preset (a
 * local Ollama or LM Studio, OpenAI) or any base URL, where the key comes from (VS Code's SecretStorage, an
 * environment variable, none), the model from the endpoint's own /models list when it answers, then a real
 * request to the endpoint before anything is saved. The key lives only in SecretStorage (never in settings or the
 * log). Also reads the endpoint a fork uses (`forkEndpoint`). The pure rules are modelEndpoint.ts.
 */
import * as vscode from 'vscode';
import { z } from 'zod';
import { errorMessage } from '../model';
import { listModels, OpenAiChatModel, type ModelEndpointSettings } from '../fork/modelClient';
import type { ExtensionContextObject } from './context';
import { SETTINGS, SETTINGS_SECTION } from './ids';
import {
  baseUrlProblem,
  endpointSettings,
  endpointSummary,
  ENDPOINT_PRESETS,
  envVarProblem,
  isLocalUrl,
  modelEndpointConfigured,
  secretKeyFor,
  type EndpointPreset,
  type KeySource,
} from './modelEndpoint';
import { notificationText } from './markdownText';
import { readSettings } from './settings';

/** The key stored for an endpoint (its origin), if any. */
export async function storedKey(ctx: ExtensionContextObject, baseUrl: string): Promise<string | undefined> {
  return (await ctx.vscodeContext.secrets.get(secretKeyFor(baseUrl))) || undefined;
}

/** The endpoint a real / override fork calls: the settings, with the stored key when there is one. */
export async function forkEndpoint(ctx: ExtensionContextObject): Promise<ModelEndpointSettings> {
  const settings = readSettings();
  return endpointSettings(settings, await storedKey(ctx, settings.modelBaseUrl));
}

/** True when a fork could call a model now (see modelEndpointConfigured). */
export async function endpointReady(ctx: ExtensionContextObject): Promise<boolean> {
  const settings = readSettings();
  return modelEndpointConfigured(settings, process.env, (await storedKey(ctx, settings.modelBaseUrl)) !== undefined);
}

/** The command's arguments when called from code or a test (no prompts): what the answers would have been. */
export const SetUpArgsSchema = z.strictObject({
  baseUrl: z.string().refine((u) => baseUrlProblem(u) === undefined, { message: 'not an http(s) base URL' }),
  model: z.string().min(1).optional(),
  /** Stored in SecretStorage. */
  apiKey: z.string().min(1).optional(),
  /** Read from this environment variable instead (the stored key, if any, is removed). */
  apiKeyEnvVar: z.string().optional(),
});
export type SetUpArgs = z.infer<typeof SetUpArgsSchema>;

interface Answers {
  baseUrl: string;
  model: string;
  key: KeySource;
  /** The key typed now (kind 'secret'); undefined keeps the one stored. */
  newKey?: string;
}

const TITLE = 'Set Up Model Endpoint';

/**
 * Runs the setup: asks (or takes `args`), tests the endpoint with a real request, saves. Resolves true when an
 * endpoint was saved.
 */
export async function setUpModelEndpoint(ctx: ExtensionContextObject, rawArgs?: unknown): Promise<boolean> {
  let answers: Answers | undefined;
  if (rawArgs !== undefined && rawArgs !== null && typeof rawArgs === 'object' && 'baseUrl' in rawArgs) {
    const args = SetUpArgsSchema.parse(rawArgs);
    answers = await fromArgs(ctx, args);
  } else {
    answers = await ask(ctx);
  }
  if (!answers) return false;
  for (;;) {
    const problem = await testEndpoint(ctx, answers);
    if (problem === undefined) break;
    if (rawArgs) {
      void vscode.window.showErrorMessage(notificationText(`${TITLE}: ${problem}`));
      return false;
    }
    const choice = await vscode.window.showErrorMessage(
      notificationText(`${TITLE}: ${problem}`),
      { modal: false },
      'Try Again',
      'Save Anyway',
    );
    if (choice === 'Save Anyway') break;
    if (choice !== 'Try Again') return false;
  }
  await save(ctx, answers);
  const summary = endpointSummary(
    {
      modelBaseUrl: answers.baseUrl,
      modelName: answers.model,
      apiKeyEnvVar: answers.key.kind === 'env' ? answers.key.name : '',
    },
    answers.key.kind === 'secret' ? 'stored' : undefined,
  );
  ctx.log.info(`model endpoint set: ${summary}`);
  void vscode.window.showInformationMessage(notificationText(`Forks with a real model now call ${summary}.`));
  return true;
}

async function fromArgs(ctx: ExtensionContextObject, args: SetUpArgs): Promise<Answers> {
  const baseUrl = args.baseUrl.trim();
  let key: KeySource = { kind: 'none' };
  if (args.apiKey) key = { kind: 'secret' };
  else if (args.apiKeyEnvVar?.trim()) key = { kind: 'env', name: args.apiKeyEnvVar.trim() };
  let model = args.model;
  if (!model) {
    const listed = await listModels(withKey({ baseUrl }, key, args.apiKey ?? (await storedKey(ctx, baseUrl))));
    model = listed[0];
    if (!model) throw new Error(`${baseUrl} lists no models: pass one as "model".`);
  }
  return { baseUrl, model, key, ...(args.apiKey ? { newKey: args.apiKey } : {}) };
}

function withKey(base: ModelEndpointSettings, key: KeySource, secret: string | undefined): ModelEndpointSettings {
  return {
    ...base,
    timeoutMs: 20_000,
    maxRetries: 0,
    ...(key.kind === 'secret' && secret ? { apiKey: secret } : {}),
    ...(key.kind === 'env' ? { apiKeyEnv: key.name } : {}),
  };
}

type Pick1<T> = vscode.QuickPickItem & { value: T };

/** Step 1: the endpoint; step 2: its key; step 3: the model. Undefined when the user cancels. */
async function ask(ctx: ExtensionContextObject): Promise<Answers | undefined> {
  const current = readSettings();
  const presetItems: Pick1<EndpointPreset>[] = ENDPOINT_PRESETS.map((p) => ({
    label: p.label,
    description: p.baseUrl ?? '',
    detail: p.detail,
    value: p,
  }));
  const preset = await vscode.window.showQuickPick(presetItems, {
    title: `${TITLE} (1/3): where forks send their prompts`,
    placeHolder: `Now: ${current.modelBaseUrl}`,
    ignoreFocusOut: true,
  });
  if (!preset) return undefined;
  let baseUrl = preset.value.baseUrl;
  if (!baseUrl) {
    baseUrl = await vscode.window.showInputBox({
      title: `${TITLE} (1/3): base URL`,
      prompt: 'The OpenAI-compatible base URL (the part before /chat/completions)',
      value: current.modelBaseUrl,
      placeHolder: 'http://localhost:8000/v1',
      ignoreFocusOut: true,
      validateInput: baseUrlProblem,
    });
    if (!baseUrl) return undefined;
  }
  baseUrl = baseUrl.trim();
  const keyAnswer = await askKey(ctx, baseUrl, current.apiKeyEnvVar);
  if (!keyAnswer) return undefined;
  const secret = keyAnswer.newKey ?? (keyAnswer.key.kind === 'secret' ? await storedKey(ctx, baseUrl) : undefined);
  const model = await askModel(withKey({ baseUrl }, keyAnswer.key, secret), current.modelName);
  if (!model) return undefined;
  return { baseUrl, model, ...keyAnswer };
}

async function askKey(
  ctx: ExtensionContextObject,
  baseUrl: string,
  envName: string,
): Promise<{ key: KeySource; newKey?: string } | undefined> {
  const stored = await storedKey(ctx, baseUrl);
  const local = isLocalUrl(baseUrl);
  const variable = envName.trim() || 'OPENAI_API_KEY';
  type KeyChoice = 'keep' | 'enter' | 'env' | 'none';
  const items: Pick1<KeyChoice>[] = [
    ...(stored
      ? [
          {
            label: 'Keep the stored key',
            detail: "The key already in VS Code's secret storage",
            value: 'keep' as const,
          },
        ]
      : []),
    {
      label: 'Enter an API key',
      detail: "Kept in VS Code's secret storage (the OS keychain), never in settings",
      value: 'enter',
    },
    {
      label: `Read it from an environment variable`,
      detail: `e.g. $${variable}, in the environment VS Code was started with`,
      value: 'env',
    },
    { label: 'No key', detail: 'The server needs none (a local Ollama or LM Studio)', value: 'none' },
  ];
  if (local && !stored) items.unshift(...items.splice(items.length - 1, 1)); // no key first for a local server
  const choice = await vscode.window.showQuickPick(items, {
    title: `${TITLE} (2/3): API key for ${baseUrl}`,
    ignoreFocusOut: true,
  });
  if (!choice) return undefined;
  switch (choice.value) {
    case 'keep':
      return { key: { kind: 'secret' } };
    case 'enter': {
      const key = await vscode.window.showInputBox({
        title: `${TITLE} (2/3): API key for ${baseUrl}`,
        prompt: "Stored in VS Code's secret storage for this endpoint only",
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() === '' ? 'Paste the key, or press Escape' : undefined),
      });
      return key ? { key: { kind: 'secret' }, newKey: key.trim() } : undefined;
    }
    case 'env': {
      const name = await vscode.window.showInputBox({
        title: `${TITLE} (2/3): environment variable`,
        prompt: 'Name of the variable that holds the key',
        value: variable,
        ignoreFocusOut: true,
        validateInput: envVarProblem,
      });
      return name ? { key: { kind: 'env', name: name.trim() } } : undefined;
    }
    case 'none':
      return { key: { kind: 'none' } };
    default: {
      const unreachable: never = choice.value;
      return unreachable;
    }
  }
}

/** The endpoint's /models as a pick (with "Other model name…"), or an input box when it does not list them. */
async function askModel(endpoint: ModelEndpointSettings, currentModel: string): Promise<string | undefined> {
  let listed: string[] = [];
  let why = '';
  try {
    listed = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Asking ${endpoint.baseUrl} for its models…` },
      () => listModels(endpoint),
    );
  } catch (e) {
    why = errorMessage(e);
  }
  if (listed.length > 0) {
    const other = '$(edit) Other model name…';
    const items: vscode.QuickPickItem[] = [
      ...listed.map((id) => ({ label: id, ...(id === currentModel ? { description: 'current' } : {}) })),
      { label: other, alwaysShow: true },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: `${TITLE} (3/3): model (${listed.length} listed by the endpoint)`,
      ignoreFocusOut: true,
    });
    if (!picked) return undefined;
    if (picked.label !== other) return picked.label;
  }
  const typed = await vscode.window.showInputBox({
    title: `${TITLE} (3/3): model`,
    prompt: why ? `The endpoint did not list its models (${why}). Type the model name.` : 'The model name',
    value: currentModel,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'A model name, e.g. llama3.2 or gpt-4o-mini' : undefined),
  });
  return typed?.trim() || undefined;
}

/** A tiny chat completion against the answers; the problem in words, or undefined when the endpoint answered. */
async function testEndpoint(ctx: ExtensionContextObject, answers: Answers): Promise<string | undefined> {
  const secret = answers.newKey ?? (answers.key.kind === 'secret' ? await storedKey(ctx, answers.baseUrl) : undefined);
  const chat = new OpenAiChatModel(withKey({ baseUrl: answers.baseUrl, model: answers.model }, answers.key, secret));
  const started = Date.now();
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Testing ${answers.model} at ${answers.baseUrl}…`,
      },
      () =>
        chat.complete({
          messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
          model: { provider: 'openai-compatible', model: answers.model },
          tools: [],
        }),
    );
    ctx.log.info(`model endpoint ${answers.baseUrl} answered ${answers.model} in ${Date.now() - started} ms`);
    return undefined;
  } catch (e) {
    const message = errorMessage(e); // modelClient's messages carry no key (redacted)
    ctx.log.warn(`model endpoint test failed: ${message}`);
    return `the endpoint did not answer a test request for ${answers.model}: ${message}`;
  }
}

async function save(ctx: ExtensionContextObject, answers: Answers): Promise<void> {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const global = vscode.ConfigurationTarget.Global;
  const secretKey = secretKeyFor(answers.baseUrl);
  if (answers.key.kind === 'secret') {
    if (answers.newKey) await ctx.vscodeContext.secrets.store(secretKey, answers.newKey);
  } else {
    await ctx.vscodeContext.secrets.delete(secretKey);
  }
  await config.update(SETTINGS.modelBaseUrl, answers.baseUrl, global);
  await config.update(SETTINGS.modelName, answers.model, global);
  await config.update(SETTINGS.apiKeyEnvVar, answers.key.kind === 'env' ? answers.key.name : '', global);
}

/**
 * The model endpoint of real / override forks, as the extension knows it: the presets of Set Up Model Endpoint…
 * (OpenAI, a local Ollama or LM Studio, any base URL), where its API key comes from (VS Code's SecretStorage, an
 * environment variable, or none) and the endpoint settings the fork engine receives. Pure: no vscode value import
 * (unit tests load it); the command that asks the user is modelEndpointCommand.ts.
 */
import type { ModelEndpointSettings } from '../fork/modelClient';
import type { Settings } from './settings';

export type PresetId = 'openai' | 'ollama' | 'lmstudio' | 'custom';

export interface EndpointPreset {
  id: PresetId;
  label: string;
  /** The preset's base URL; `custom` asks for one. */
  baseUrl?: string;
  detail: string;
  /** Local servers answer without a key. */
  local: boolean;
}

export const ENDPOINT_PRESETS: readonly EndpointPreset[] = [
  {
    id: 'ollama',
    label: 'Ollama (local)',
    baseUrl: 'http://localhost:11434/v1',
    detail: 'A model served by `ollama serve` on this machine; no key, no tokens billed.',
    local: true,
  },
  {
    id: 'lmstudio',
    label: 'LM Studio (local)',
    baseUrl: 'http://localhost:1234/v1',
    detail: "LM Studio's local server (Developer › Start Server); no key.",
    local: true,
  },
  {
    id: 'openai',
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    detail: 'api.openai.com with your API key.',
    local: false,
  },
  {
    id: 'custom',
    label: 'Other OpenAI-compatible endpoint…',
    detail: 'Any base URL that answers /v1/chat/completions (vLLM, llama.cpp server, a gateway, Azure-style proxies).',
    local: false,
  },
];

/** True for http(s) URLs on this machine (localhost, 127.x, [::1]): forks may call them without a key. */
export function isLocalUrl(url: string): boolean {
  try {
    const host = new URL(url.trim()).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/** Why a typed base URL cannot be used (the input box shows it), or undefined when it can. */
export function baseUrlProblem(text: string): string | undefined {
  const value = text.trim();
  if (value === '') return 'Type the base URL of the endpoint, e.g. http://localhost:8000/v1';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL: it should look like http://localhost:8000/v1`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The URL must start with http:// or https://';
  if (url.username || url.password) return 'Leave credentials out of the URL: the key is asked for next';
  return undefined;
}

/** Why a typed environment variable name cannot be used, or undefined. */
export function envVarProblem(text: string): string | undefined {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text.trim())
    ? undefined
    : 'A variable name: letters, digits and _, not starting with a digit (e.g. OPENAI_API_KEY)';
}

/**
 * The SecretStorage key of an endpoint's API key: one per origin, so a key stored for api.openai.com is never sent
 * to another host after the base URL setting changes.
 */
export function secretKeyFor(baseUrl: string): string {
  let origin: string;
  try {
    origin = new URL(baseUrl.trim()).origin;
  } catch {
    origin = baseUrl.trim();
  }
  return `agentTimeTravel.modelEndpoint.apiKey@${origin}`;
}

/** Where a fork's API key comes from, in this order: the key stored for the endpoint, the variable named, none. */
export type KeySource = { kind: 'secret' } | { kind: 'env'; name: string } | { kind: 'none' };

export function keySourceOf(settings: Pick<Settings, 'apiKeyEnvVar'>, storedKey: string | undefined): KeySource {
  if (storedKey) return { kind: 'secret' };
  const name = settings.apiKeyEnvVar.trim();
  return name ? { kind: 'env', name } : { kind: 'none' };
}

/** What the fork engine's OpenAiChatModel receives: base URL, model, and the stored key or the variable's name. */
export function endpointSettings(
  settings: Pick<Settings, 'modelBaseUrl' | 'modelName' | 'apiKeyEnvVar'>,
  storedKey: string | undefined,
): ModelEndpointSettings {
  const source = keySourceOf(settings, storedKey);
  return {
    baseUrl: settings.modelBaseUrl.trim(),
    ...(settings.modelName.trim() ? { model: settings.modelName.trim() } : {}),
    ...(source.kind === 'secret' && storedKey ? { apiKey: storedKey } : {}),
    ...(source.kind === 'env' ? { apiKeyEnv: source.name } : {}),
  };
}

/**
 * True when forks can call a model: an endpoint URL, and a key — stored, in the named environment variable, or
 * not needed (a local endpoint, or one that names no key variable).
 */
export function modelEndpointConfigured(
  settings: Pick<Settings, 'modelBaseUrl' | 'apiKeyEnvVar'>,
  env: NodeJS.ProcessEnv,
  hasStoredKey: boolean,
): boolean {
  const url = settings.modelBaseUrl.trim();
  if (url === '' || baseUrlProblem(url)) return false;
  if (hasStoredKey || isLocalUrl(url)) return true;
  const key = settings.apiKeyEnvVar.trim();
  return key === '' || Boolean(env[key]);
}

/** How the endpoint is described to the user (never the key). */
export function endpointSummary(
  settings: Pick<Settings, 'modelBaseUrl' | 'modelName' | 'apiKeyEnvVar'>,
  storedKey: string | undefined,
): string {
  const source = keySourceOf(settings, storedKey);
  const key =
    source.kind === 'secret'
      ? "key in VS Code's secret storage"
      : source.kind === 'env'
        ? `key from $${source.name}`
        : 'no key';
  return `${settings.modelName || '(no model)'} at ${settings.modelBaseUrl} (${key})`;
}

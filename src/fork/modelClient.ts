/**
 * The real / override model of a fork: an OpenAI-compatible
 * `/v1/chat/completions` client (base URL, model, API key handed over by the
 * host's secret storage or read from the environment variable the settings
 * name; timeout; retries with exponential backoff on 429 / 5xx / network
 * errors, honouring Retry-After; tool calls in the response) and the endpoint's
 * `/models` list. Uses the global fetch; no other I/O. Never logs the key.
 */
import { z } from 'zod';
import {
  OcdbError,
  errorMessage,
  knowSecretValue,
  parseWith,
  redactKnownSecrets,
  redactText,
  redactUrl,
  type Message,
  type ModelConfig,
  type Usage,
} from '../model';
import { ChatCompletionSchema, fromOpenAiChoice, toOpenAiMessages } from './openAiMessages';

export interface ChatRequest {
  systemPrompt?: string;
  messages: readonly Message[];
  model: ModelConfig;
  /** Tool names the model may call (sent as functions taking an object). */
  tools: readonly string[];
}

export interface ChatResult {
  message: Message;
  finishReason?: string;
  usage?: Usage;
  model?: ModelConfig;
}

/** Anything that answers a chat turn: the OpenAI-compatible client, or a test double. */
export interface ChatModel {
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
}

export const ModelEndpointSettingsSchema = z.object({
  /** e.g. http://127.0.0.1:11434 or https://api.openai.com (with or without /v1). */
  baseUrl: z.url(),
  /** Name of the environment variable holding the API key (the key itself is never stored). */
  apiKeyEnv: z.string().min(1).optional(),
  /** The API key itself, handed over by the host from its secret storage (VS Code SecretStorage); wins over apiKeyEnv. */
  apiKey: z.string().min(1).optional(),
  /** Model used when the fork does not name one. */
  model: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().default(60_000),
  maxRetries: z.number().int().min(0).max(10).default(3),
  retryBaseMs: z.number().int().min(0).default(500),
});
export type ModelEndpointSettings = z.input<typeof ModelEndpointSettingsSchema>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new OcdbError('Cancelled', 'the model call was cancelled'));
      },
      { once: true },
    );
  });

/**
 * `<base>/v1/chat/completions` (or `<base>/chat/completions` when the base
 * already ends in a version): the path goes before the base URL's query
 * (`?api-version=…` stays a query), and credentials in the base URL are left
 * out (see `basicAuthOf`).
 */
export function completionsUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  const trimmed = url.pathname.replace(/\/+$/, '');
  url.pathname = /\/v\d+$/.test(trimmed) ? `${trimmed}/chat/completions` : `${trimmed}/v1/chat/completions`;
  url.hash = '';
  return url.toString();
}

/** `user:key@` of a base URL as a Basic authorization header (fetch refuses URLs with credentials). */
export function basicAuthOf(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  if (!url.username && !url.password) return undefined;
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  const encoded = Buffer.from(pair).toString('base64');
  knowSecretValue(decodeURIComponent(url.password));
  knowSecretValue(encoded);
  return `Basic ${encoded}`;
}

/**
 * The request headers of an endpoint: `Bearer <key>` from the key handed over (secret storage) or else from the
 * environment variable named, else Basic from credentials in the base URL. Throws when the named variable is unset.
 */
function authHeaders(
  settings: Pick<z.output<typeof ModelEndpointSettingsSchema>, 'apiKey' | 'apiKeyEnv' | 'baseUrl'>,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const { apiKey, apiKeyEnv } = settings;
  // the key is known by value from here on: an endpoint echoing it reaches neither the store nor the screen
  if (apiKey) {
    knowSecretValue(apiKey);
    headers.authorization = `Bearer ${apiKey}`;
  } else if (apiKeyEnv) {
    const key = env[apiKeyEnv];
    if (!key) {
      throw new OcdbError(
        'ModelEndpointError',
        `The model API key is read from $${apiKeyEnv}, which is not set: export it or change the apiKeyEnv setting.`,
        { apiKeyEnv },
      );
    }
    knowSecretValue(key);
    headers.authorization = `Bearer ${key}`;
  }
  const basic = basicAuthOf(settings.baseUrl);
  if (basic && !headers.authorization) headers.authorization = basic;
  return headers;
}

/** `<base>/v1/models` (or `<base>/models` when the base already ends in a version), like `completionsUrl`. */
export function modelsUrl(baseUrl: string): string {
  return completionsUrl(baseUrl).replace(/\/chat\/completions(?=$|\?)/, '/models');
}

/** The JSON an endpoint (`shown`, redacted) answered; ModelEndpointError quoting its start when it is not JSON. */
function endpointJson(shown: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OcdbError(
      'ModelEndpointError',
      `${shown} answered something that is not JSON: ${redactText(text).slice(0, 200)}`,
      { url: shown },
    );
  }
}

const ModelListSchema = z.object({ data: z.array(z.object({ id: z.string().min(1) }).loose()) }).loose();

/**
 * The model ids an endpoint lists (`GET /models`, one attempt): OpenAI, Ollama, LM Studio and vLLM answer it.
 * Throws `ModelEndpointError` saying what the endpoint answered (status, not JSON, no `data` list), never the key.
 */
export async function listModels(
  settings: ModelEndpointSettings,
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
): Promise<string[]> {
  const parsed = parseWith(ModelEndpointSettingsSchema, settings, 'model endpoint settings');
  const url = modelsUrl(parsed.baseUrl);
  const shown = redactUrl(url);
  const timeout = AbortSignal.timeout(parsed.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: authHeaders(parsed, env),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (e) {
    const why =
      (e as Error).name === 'TimeoutError' ? `no answer within ${parsed.timeoutMs} ms` : redactText(errorMessage(e));
    throw new OcdbError('ModelEndpointError', `${shown} could not be reached (${why}). Is the server running?`, {
      url: shown,
    });
  }
  const text = await response.text();
  if (!response.ok) {
    const hint = response.status === 401 || response.status === 403 ? ' Check the API key.' : '';
    throw new OcdbError(
      'ModelEndpointError',
      `${shown} answered HTTP ${response.status}: ${redactText(text).slice(0, 200)}${hint}`,
      { status: response.status, url: shown },
    );
  }
  const list = ModelListSchema.safeParse(endpointJson(shown, text));
  if (!list.success) {
    throw new OcdbError('ModelEndpointError', `${shown} answered JSON without a "data" list of models`, {
      url: shown,
    });
  }
  return [...new Set(list.data.data.map((m) => m.id))].sort();
}

export class OpenAiChatModel implements ChatModel {
  private readonly settings: z.output<typeof ModelEndpointSettingsSchema>;

  constructor(
    settings: ModelEndpointSettings,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.settings = parseWith(ModelEndpointSettingsSchema, settings, 'model endpoint settings');
  }

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const { timeoutMs, maxRetries, retryBaseMs } = this.settings;
    const model = request.model.model || this.settings.model;
    const headers = authHeaders(this.settings, this.env);
    const body = JSON.stringify({
      model,
      messages: toOpenAiMessages(request.systemPrompt, request.messages),
      ...(request.model.temperature !== undefined ? { temperature: request.model.temperature } : {}),
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((name) => ({
              type: 'function',
              function: { name, parameters: { type: 'object', additionalProperties: true } },
            })),
          }
        : {}),
    });
    const url = completionsUrl(this.settings.baseUrl);
    // what errors say: the address without its credentials or key-like query parameters
    const shown = redactUrl(url);
    let lastError = '';
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      if (attempt > 0) await sleep(this.backoff(attempt, retryBaseMs, lastError), signal);
      let response: Response;
      try {
        const timeout = AbortSignal.timeout(timeoutMs);
        response = await fetch(url, {
          method: 'POST',
          headers,
          body,
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (e) {
        if (signal?.aborted) throw new OcdbError('Cancelled', 'the model call was cancelled');
        lastError =
          (e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : redactText(errorMessage(e));
        continue;
      }
      // an answer echoing the key (some endpoints quote the request) loses it before anything reads it
      const text = redactKnownSecrets(await response.text());
      if (response.status === 429 || response.status >= 500) {
        lastError = `HTTP ${response.status}${response.headers.get('retry-after') ? ` retry-after=${response.headers.get('retry-after')}` : ''}`;
        continue;
      }
      if (!response.ok) {
        // the endpoint's words help; an echoed Authorization header or key does not
        throw new OcdbError(
          'ModelEndpointError',
          `${shown} answered HTTP ${response.status}: ${redactText(text).slice(0, 300)}`,
          { status: response.status, url: shown },
        );
      }
      const completion = parseWith(ChatCompletionSchema, endpointJson(shown, text), `chat completion from ${shown}`);
      const { message, finishReason } = fromOpenAiChoice(completion);
      const result: ChatResult = {
        message,
        model: { ...request.model, model: completion.model ?? model ?? request.model.model },
      };
      if (finishReason) result.finishReason = finishReason;
      if (completion.usage) {
        result.usage = {
          inputTokens: completion.usage.prompt_tokens,
          outputTokens: completion.usage.completion_tokens,
        };
      }
      return result;
    }
    throw new OcdbError(
      'ModelEndpointError',
      // no setting raises the attempts, so the advice names only what the user can check
      `${shown} failed after ${maxRetries + 1} attempts (last: ${lastError}). Check that the endpoint is up and answers at this address, then try again.`,
      { url: shown, attempts: maxRetries + 1, last: lastError },
    );
  }

  private backoff(attempt: number, baseMs: number, lastError: string): number {
    const retryAfter = /retry-after=(\d+(?:\.\d+)?)/.exec(lastError);
    const exp = baseMs * 2 ** (attempt - 1);
    const wanted = retryAfter ? Number(retryAfter[1]) * 1000 : exp;
    return Math.min(wanted, 30_000);
  }
}

/**
 * What every tool of the MCP server is given: the store (opened at the first call that needs it, so a server
 * started before the store exists answers "no store yet" instead of dying), the one lane writes take (a fork or an
 * import at a time; reads go on meanwhile), the model endpoint the user configured, and the answer cap. A tool is
 * one entry of `McpTool` (its name, description, zod input and handler): adding one is adding an entry to the
 * list in mcpTools.ts.
 */
import type { z } from 'zod';
import { OpenAiChatModel, type ChatModel } from '../fork/modelClient';
import { storeLocationLabel } from '../model';
import { openRunStore, type RunStore } from '../store';
import type { ClipReport } from './bounded';

/** What a tool answers: the JSON body, what was cut, and how to get the rest when something was. */
export interface ToolResultBody {
  body: Record<string, unknown>;
  report: ClipReport;
  /** Said to the agent when the answer was truncated: the call that gets the rest. */
  hint?: string;
}

export interface ToolContext {
  /** The store, for reading (StoreUnavailable, saying what to do, when there is none). */
  store(): RunStore;
  /** The store, created when missing (an import writes the first runs). */
  storeForWrite(): RunStore;
  /** The store location as it may be shown (no password). */
  readonly storeLabel: string;
  /** Runs `work` when no other write of this server is running: forks and imports one at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** The endpoint of real / override forks, when the user configured one (OCDB_MODEL_BASE_URL); else undefined. */
  chatModel(): ChatModel | undefined;
  /** The model the user named for that endpoint (OCDB_MODEL), which grades model-graded assertions. */
  modelName(): string | undefined;
  /** The working directory relative paths (import_trace) are resolved against. */
  readonly cwd: string;
  /** The characters an answer may hold. */
  readonly maxChars: number;
}

/** One tool of the server. `input` is a zod object: it is both the JSON Schema the client sees and the parser. */
export interface McpTool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** What it answers and when to call it, for the model choosing a tool. */
  description: string;
  input: S;
  /** True when the tool changes nothing (MCP's readOnlyHint). */
  readOnly: boolean;
  /** `signal` aborts when the client cancels the call (a running fork stops as cancelled). */
  run(ctx: ToolContext, args: z.output<S>, signal: AbortSignal): ToolResultBody | Promise<ToolResultBody>;
}

/** Declares a tool with its argument types inferred from `input`. */
export function defineTool<S extends z.ZodObject>(tool: McpTool<S>): McpTool {
  return tool as unknown as McpTool;
}

export interface ServerStoreOptions {
  /** The resolved store location (ocdb's rules: --store, OCDB_STORE, ./.ocdb/runs.db). */
  location: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  maxChars: number;
}

/** The server's one store connection and write lane, shared by every tool call of the process. */
export class ServerStore implements ToolContext {
  private opened: RunStore | undefined;
  private lane: Promise<unknown> = Promise.resolve();
  readonly storeLabel: string;
  readonly cwd: string;
  readonly maxChars: number;

  constructor(private readonly options: ServerStoreOptions) {
    this.storeLabel = storeLocationLabel(options.location);
    this.cwd = options.cwd;
    this.maxChars = options.maxChars;
  }

  store(): RunStore {
    this.opened ??= openRunStore(this.options.location, { create: false });
    return this.opened;
  }

  storeForWrite(): RunStore {
    this.opened ??= openRunStore(this.options.location, { create: true });
    return this.opened;
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.lane.then(work, work);
    this.lane = next.catch(() => undefined);
    return next;
  }

  chatModel(): ChatModel | undefined {
    const env = this.options.env;
    const baseUrl = env.OCDB_MODEL_BASE_URL;
    if (!baseUrl) return undefined;
    const apiKeyEnv = env.OCDB_MODEL_API_KEY_ENV;
    const model = env.OCDB_MODEL;
    return new OpenAiChatModel({ baseUrl, ...(apiKeyEnv ? { apiKeyEnv } : {}), ...(model ? { model } : {}) }, env);
  }

  modelName(): string | undefined {
    return this.options.env.OCDB_MODEL || undefined;
  }

  /** Waits for the write running now (if any), then closes the store. */
  async close(): Promise<void> {
    await this.lane;
    this.opened?.close();
    this.opened = undefined;
  }
}

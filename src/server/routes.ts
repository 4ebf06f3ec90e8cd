/**
 * The endpoints of the HTTP API and what each does with the store: queries,
 * ingest, forks (through the one ForkService; optionally run in the
 * background by the runner) and manual_confirm answers. Bodies are validated
 * and queries are parsed with zod schemas built from src/model (no restated
 * enums, no casts); handlers return `{ status, body }` and throw OcdbError /
 * HttpError for the error shape. No node:http here.
 */
import { z } from 'zod';
import {
  ConfirmationAnswerSchema,
  ConfirmationRecordSchema,
  ConfirmationStatusSchema,
  ForkConfigSchema,
  RunModeSchema,
  OcdbError,
  RunStatusSchema,
  divergenceOfError,
  divergenceSummary,
  parseWith,
  runStatusText,
} from '../model';
import { ForkService } from '../fork/forkService';
import type { ChatModel } from '../fork/modelClient';
import { runFork } from '../fork/runner';
import type { RunStore } from '../store';
import { IngestService, LiveWaitQuerySchema, type LiveAnswer } from './ingest';

export interface RouteContext {
  params: string[];
  query: URLSearchParams;
  body: unknown;
}

export interface RouteResult {
  status: number;
  body: unknown;
}

export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handle(ctx: RouteContext): RouteResult | Promise<RouteResult>;
}

export interface RoutesOptions {
  store: RunStore;
  now?: () => number;
  /** Model for forks that use a real model and are run by the server. */
  chatModel?: ChatModel;
  /** Called when a background fork run ends (tests, logs). */
  onForkSettled?: (forkRequestId: string) => void;
}

const ForkBodySchema = ForkConfigSchema.extend({
  acknowledgedTools: z.array(z.string().min(1)).optional(),
  /** Run the fork now with the built-in runner (in the background; follow it with GET /forks/:id). */
  run: z.boolean().optional(),
  /** The agent program will run it (OCDB_FORK): mark it waiting_for_agent. */
  agentProgram: z.boolean().optional(),
});

/** POST /confirmations/:id: the answer, and with `mock` the result to use. */
const AnswerBodySchema = z.object({
  answer: ConfirmationAnswerSchema,
  mockResult: ConfirmationRecordSchema.shape.mockResult,
});

/** GET /confirmations?status=&forkRequestId= */
const ConfirmationQuerySchema = z.object({
  status: ConfirmationStatusSchema.optional(),
  forkRequestId: z.string().optional(),
});

/** GET /runs?agentId=&status=&mode=&parentRunId=&limit=&offset= */
const ListQuerySchema = z.object({
  agentId: z.string().optional(),
  status: RunStatusSchema.optional(),
  mode: RunModeSchema.optional(),
  parentRunId: z.string().optional(),
  limit: z.coerce.number().int().min(0).max(10_000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

const RangeQuerySchema = z.object({
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(0).optional(),
});

/** A request that may stop under a live debugger: `done` when it went on, 202 while still stopped. */
const liveResult = <T>(answer: LiveAnswer<T>, done: number): RouteResult =>
  answer.stopped ? { status: 202, body: answer.body } : { status: done, body: answer.body };

const waitMsOf = (ctx: RouteContext): number =>
  parseWith(LiveWaitQuerySchema, Object.fromEntries(ctx.query), 'query').waitMs;

/** The i-th id of the path, percent-decoded; malformed encoding is the caller's 400, not a 500. */
const param = (ctx: RouteContext, i: number): string => {
  const raw = ctx.params[i] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new OcdbError(
      'InvalidInput',
      `The id ${JSON.stringify(raw)} in the path is not valid percent-encoding (UTF-8): encode it with encodeURIComponent.`,
      { path: `params[${i}]` },
    );
  }
};

export function buildRoutes(options: RoutesOptions): Route[] {
  const { store } = options;
  const now = options.now ?? Date.now;
  const ingest = new IngestService(store, now);
  const forks = new ForkService(store, { now });

  const startFork = (forkRequestId: string, agentProgram: boolean) => {
    void runFork(store, forkRequestId, {
      now,
      agentProgram,
      ...(options.chatModel ? { chatModel: options.chatModel } : {}),
    })
      .catch(() => undefined) // failures are recorded on the fork request
      .finally(() => options.onForkSettled?.(forkRequestId));
  };

  return [
    { method: 'GET', pattern: /^\/health$/, handle: () => ({ status: 200, body: { ok: true, store: store.path } }) },
    {
      method: 'GET',
      pattern: /^\/runs$/,
      handle: (ctx) => {
        const q = parseWith(ListQuerySchema, Object.fromEntries(ctx.query), 'query');
        const result = store.listRuns({
          ...(q.agentId !== undefined ? { agentId: q.agentId } : {}),
          ...(q.status !== undefined ? { status: q.status } : {}),
          ...(q.mode !== undefined ? { mode: q.mode } : {}),
          ...(q.parentRunId !== undefined ? { parentRunId: q.parentRunId } : {}),
          ...(q.limit !== undefined ? { limit: q.limit } : {}),
          ...(q.offset !== undefined ? { offset: q.offset } : {}),
        });
        return { status: 200, body: result };
      },
    },
    {
      method: 'GET',
      pattern: /^\/runs\/([^/]+)$/,
      handle: (ctx) => {
        const run = store.getRun(param(ctx, 0));
        // statusText: how the status reads ("diverged at step 5 · system prompt", "crashed", ...)
        return { status: 200, body: { ...run, statusText: runStatusText(run) } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/runs\/([^/]+)\/checkpoints$/,
      handle: (ctx) => {
        const range = parseWith(RangeQuerySchema, Object.fromEntries(ctx.query), 'query');
        return { status: 200, body: { checkpoints: store.listCheckpoints(param(ctx, 0), range) } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/runs\/([^/]+)\/tool-calls$/,
      handle: (ctx) => ({ status: 200, body: { toolCalls: store.listToolCalls(param(ctx, 0)) } }),
    },
    {
      method: 'GET',
      pattern: /^\/checkpoints\/([^/]+)$/,
      handle: (ctx) => ({ status: 200, body: store.getCheckpoint(param(ctx, 0)) }),
    },
    { method: 'POST', pattern: /^\/runs$/, handle: (ctx) => ({ status: 201, body: ingest.createRun(ctx.body) }) },
    {
      method: 'POST',
      pattern: /^\/runs\/([^/]+)\/checkpoints$/,
      handle: async (ctx) => liveResult(await ingest.appendCheckpointLive(param(ctx, 0), ctx.body, waitMsOf(ctx)), 201),
    },
    {
      method: 'POST',
      pattern: /^\/runs\/([^/]+)\/tool-calls$/,
      handle: async (ctx) => liveResult(await ingest.toolCallLive(param(ctx, 0), ctx.body, waitMsOf(ctx)), 201),
    },
    {
      method: 'GET',
      pattern: /^\/runs\/([^/]+)\/stops\/([^/]+)$/,
      handle: async (ctx) => {
        const answer = await ingest.waitStop(param(ctx, 0), param(ctx, 1), waitMsOf(ctx));
        return answer.stopped
          ? { status: 202, body: { stopped: answer.body.stopped, retry: answer.body.retry } }
          : { status: 200, body: { resumed: { edits: answer.body.edits } } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/runs\/([^/]+)\/end$/,
      handle: (ctx) => ({ status: 200, body: ingest.endRun(param(ctx, 0), ctx.body) }),
    },
    {
      method: 'POST',
      pattern: /^\/fork\/plan$/,
      handle: (ctx) => ({ status: 200, body: forks.plan(parseWith(ForkConfigSchema, ctx.body, 'body')) }),
    },
    {
      method: 'POST',
      pattern: /^\/fork$/,
      handle: (ctx) => {
        const { acknowledgedTools, run, agentProgram, ...config } = parseWith(ForkBodySchema, ctx.body, 'body');
        const created = forks.create(config, acknowledgedTools ?? []);
        if (run || agentProgram) startFork(created.forkRequestId, agentProgram ?? false);
        return {
          status: 201,
          body: { runId: created.runId, forkRequestId: created.forkRequestId, plan: created.plan },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/forks\/([^/]+)$/,
      handle: (ctx) => {
        const request = store.getForkRequest(param(ctx, 0));
        const divergence = request.status === 'diverged' ? divergenceOfError(request.error) : undefined;
        return {
          status: 200,
          body: {
            ...request,
            statusText: divergence ? divergenceSummary(divergence) : request.status,
            ...(divergence ? { divergence } : {}),
          },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/confirmations$/,
      handle: (ctx) => {
        const { status, forkRequestId } = parseWith(ConfirmationQuerySchema, Object.fromEntries(ctx.query), 'query');
        return {
          status: 200,
          body: {
            confirmations: store.listConfirmations({
              ...(status ? { status } : {}),
              ...(forkRequestId ? { forkRequestId } : {}),
            }),
          },
        };
      },
    },
    {
      method: 'POST',
      pattern: /^\/confirmations\/([^/]+)$/,
      handle: (ctx) => {
        const body = parseWith(AnswerBodySchema, ctx.body, 'body');
        return { status: 200, body: store.answerConfirmation(param(ctx, 0), body.answer, now(), body.mockResult) };
      },
    },
  ];
}

/**
 * The endpoints of the HTTP API and what each does with the store: queries,
 * ingest, forks (through the one ForkService; optionally run in the
 * background by the runner), artifacts (recorded, listed, their content
 * served as bytes) and manual_confirm answers. Bodies are validated
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
  isTextContent,
  parseWith,
  runStatusText,
} from '../model';
import { ForkService } from '../fork/forkService';
import type { ChatModel } from '../fork/modelClient';
import { runFork } from '../fork/runner';
import { findRunArtifact, runArtifacts, type RunStore } from '../store';
import { IngestService, LiveWaitQuerySchema, type LiveAnswer } from './ingest';

export interface RouteContext {
  params: string[];
  query: URLSearchParams;
  body: unknown;
}

export interface RouteResult {
  status: number;
  body: unknown;
  /** Bytes sent as they are instead of the JSON of `body` (an artifact's content). */
  raw?: { contentType: string; data: Buffer; headers?: Record<string, string> };
}

export interface Route {
  method: 'GET' | 'POST';
  /** The path as the HTTP reference shows it (`/runs/:runId`): `pattern` with each capture named. */
  path: string;
  /** One line for the HTTP reference (media/docs/reference/http.md, generated): what it answers, its query. */
  summary: string;
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
/** GET /runs/:id/artifacts?checkpointId= and GET /runs/:id/artifacts/:name?checkpointId=&version= */
const ArtifactQuerySchema = z.object({
  checkpointId: z.string().min(1).optional(),
  version: z.coerce.number().int().min(1).optional(),
});

/** An artifact type that is a MIME type is served as one; other content as text or octets. */
const MIME = /^[a-z]+\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

function contentTypeOf(type: string, data: Buffer): string {
  const text = isTextContent(data);
  if (MIME.test(type)) return text && /^text\//i.test(type) ? `${type}; charset=utf-8` : type;
  return text ? 'text/plain; charset=utf-8' : 'application/octet-stream';
}

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
    {
      method: 'GET',
      path: '/health',
      summary: 'Whether the server is up, and the store it serves: `{ ok, store }`.',
      pattern: /^\/health$/,
      handle: () => ({ status: 200, body: { ok: true, store: store.path } }),
    },
    {
      method: 'GET',
      path: '/runs',
      summary:
        'The runs, newest first: `{ runs, total }`. Query: `agentId`, `status`, `mode`, `parentRunId`, `limit` (at most 10000), `offset`.',
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
      path: '/runs/:runId',
      summary: 'One run, with `statusText`: how its status reads ("diverged at step 5 · system prompt", "crashed").',
      pattern: /^\/runs\/([^/]+)$/,
      handle: (ctx) => {
        const run = store.getRun(param(ctx, 0));
        // statusText: how the status reads ("diverged at step 5 · system prompt", "crashed", ...)
        return { status: 200, body: { ...run, statusText: runStatusText(run) } };
      },
    },
    {
      method: 'GET',
      path: '/runs/:runId/checkpoints',
      summary: "The run's checkpoints, in order: `{ checkpoints }`. Query: `offset`, `limit`.",
      pattern: /^\/runs\/([^/]+)\/checkpoints$/,
      handle: (ctx) => {
        const range = parseWith(RangeQuerySchema, Object.fromEntries(ctx.query), 'query');
        return { status: 200, body: { checkpoints: store.listCheckpoints(param(ctx, 0), range) } };
      },
    },
    {
      method: 'GET',
      path: '/runs/:runId/tool-calls',
      summary: "The run's tool ledger: `{ toolCalls }`.",
      pattern: /^\/runs\/([^/]+)\/tool-calls$/,
      handle: (ctx) => ({ status: 200, body: { toolCalls: store.listToolCalls(param(ctx, 0)) } }),
    },
    {
      method: 'GET',
      path: '/runs/:runId/artifacts',
      summary:
        'Every version of every artifact the run recorded, or with `checkpointId` those that checkpoint carries: `{ artifacts }`.',
      pattern: /^\/runs\/([^/]+)\/artifacts$/,
      handle: (ctx) => {
        const q = parseWith(ArtifactQuerySchema, Object.fromEntries(ctx.query), 'query');
        const runId = param(ctx, 0);
        // every version the run recorded; with checkpointId, the artifacts that checkpoint carries
        const artifacts =
          q.checkpointId !== undefined ? runArtifacts(store, runId, q.checkpointId) : store.listArtifacts(runId);
        return { status: 200, body: { artifacts } };
      },
    },
    {
      method: 'GET',
      path: '/runs/:runId/artifacts/:name',
      summary:
        "One artifact's bytes (the newest version; with `checkpointId` the one it carries; with `version` that one), served with its `type` when that is a MIME type; `ETag` is its content hash.",
      pattern: /^\/runs\/([^/]+)\/artifacts\/([^/]+)$/,
      handle: (ctx) => {
        const q = parseWith(ArtifactQuerySchema, Object.fromEntries(ctx.query), 'query');
        const ref = findRunArtifact(store, param(ctx, 0), param(ctx, 1), {
          ...(q.checkpointId !== undefined ? { checkpointId: q.checkpointId } : {}),
          ...(q.version !== undefined ? { version: q.version } : {}),
        });
        const data = store.getArtifactContent(ref.contentHash);
        return {
          status: 200,
          body: undefined,
          raw: {
            contentType: contentTypeOf(ref.type, data),
            data,
            headers: {
              etag: `"${ref.contentHash}"`,
              'x-ocdb-artifact-version': String(ref.version),
              'x-ocdb-content-hash': ref.contentHash,
            },
          },
        };
      },
    },
    {
      method: 'POST',
      path: '/runs/:runId/artifacts',
      summary:
        'Records an artifact `{ type, name, content, encoding?: "utf8" | "base64", metadata? }`; 201 with its `ArtifactRef`.',
      pattern: /^\/runs\/([^/]+)\/artifacts$/,
      handle: (ctx) => ({ status: 201, body: ingest.artifact(param(ctx, 0), ctx.body) }),
    },
    {
      method: 'GET',
      path: '/checkpoints/:checkpointId',
      summary: 'One checkpoint, whole.',
      pattern: /^\/checkpoints\/([^/]+)$/,
      handle: (ctx) => ({ status: 200, body: store.getCheckpoint(param(ctx, 0)) }),
    },
    {
      method: 'POST',
      path: '/runs',
      summary: 'Starts a run `{ agentId, runtimeContext, messages?, systemPrompt?, model?, runId?, metadata? }`; 201.',
      pattern: /^\/runs$/,
      handle: (ctx) => ({ status: 201, body: ingest.createRun(ctx.body) }),
    },
    {
      method: 'POST',
      path: '/runs/:runId/checkpoints',
      summary:
        'Appends a checkpoint `{ boundary, messages?, ... }` (what it leaves out carries over); 201, or 202 while a live debugger holds the run (query `waitMs`).',
      pattern: /^\/runs\/([^/]+)\/checkpoints$/,
      handle: async (ctx) => liveResult(await ingest.appendCheckpointLive(param(ctx, 0), ctx.body, waitMsOf(ctx)), 201),
    },
    {
      method: 'POST',
      path: '/runs/:runId/tool-calls',
      summary:
        'A tool call\'s begin `{ phase: "begin", toolName, args, sideEffectLevel, toolCallId? }` or finish `{ phase: "finish", toolCallId, outcome, result? | error? }`; 201, or 202 while a live debugger holds the run (query `waitMs`).',
      pattern: /^\/runs\/([^/]+)\/tool-calls$/,
      handle: async (ctx) => liveResult(await ingest.toolCallLive(param(ctx, 0), ctx.body, waitMsOf(ctx)), 201),
    },
    {
      method: 'GET',
      path: '/runs/:runId/stops/:stopId',
      summary:
        'Waits while a live debugger holds the run (query `waitMs`): 202 still stopped, 200 `{ resumed: { edits } }` once it goes on.',
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
      path: '/runs/:runId/end',
      summary: 'Ends the run `{ status?, error? }`.',
      pattern: /^\/runs\/([^/]+)\/end$/,
      handle: (ctx) => ({ status: 200, body: ingest.endRun(param(ctx, 0), ctx.body) }),
    },
    {
      method: 'POST',
      path: '/fork/plan',
      summary:
        'The plan of a fork (a ForkConfig): the effective policy of every tool, the merged context and the hazards to acknowledge; writes nothing.',
      pattern: /^\/fork\/plan$/,
      handle: (ctx) => ({ status: 200, body: forks.plan(parseWith(ForkConfigSchema, ctx.body, 'body')) }),
    },
    {
      method: 'POST',
      path: '/fork',
      summary:
        'Creates a fork (a ForkConfig with `acknowledgedTools`; `run`: run it now in the background; `agentProgram`: the agent program runs it); 201 `{ runId, forkRequestId, plan }`, 409 when a hazard is not acknowledged.',
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
      path: '/forks/:forkRequestId',
      summary: 'A fork request and how it stands, with `statusText` (and `divergence` when it diverged).',
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
      path: '/confirmations',
      summary: 'The manual_confirm questions: `{ confirmations }`. Query: `status`, `forkRequestId`.',
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
      path: '/confirmations/:confirmationId',
      summary: 'Answers a manual_confirm question `{ answer: allow_once | use_recorded | mock | abort, mockResult? }`.',
      pattern: /^\/confirmations\/([^/]+)$/,
      handle: (ctx) => {
        const body = parseWith(AnswerBodySchema, ctx.body, 'body');
        return { status: 200, body: store.answerConfirmation(param(ctx, 0), body.answer, now(), body.mockResult) };
      },
    },
  ];
}

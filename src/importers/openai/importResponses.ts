/**
 * OpenAI Responses API objects -> one RunPlan per file: records that are a
 * `response` object (`object: "response"`, `output` items, `usage`,
 * `created_at`), or `{ request, response }` pairs whose request carries
 * `input` (a string or items) and `instructions`. Items go through
 * responseItems.ts; an input item already seen (a request that repeats the
 * conversation instead of using `previous_response_id`) is not added twice.
 * Reads the file; writes nothing.
 */
import { basename } from 'node:path';
import { canonicalJson, type RuntimeContextSnapshot } from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { readRecordsWithDigest } from '../jsonRecords';
import { RunPlanBuilder, planEnd } from '../runPlan';
import { ResponseItems, responsesUsage } from './responseItems';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function isResponse(v: unknown): v is Obj {
  return isObj(v) && v.object === 'response' && Array.isArray(v.output);
}

/** True for a Responses API record: a response object, or a request / response pair of one. */
export function isResponsesRecord(v: unknown): boolean {
  return isResponse(v) || (isObj(v) && isResponse(v.response));
}

export async function readOpenAiResponses(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const records: { value: unknown; where: string }[] = [];
  const digest = (await readRecordsWithDigest(file, options, (value, where) => records.push({ value, where }))).slice(
    0,
    12,
  );
  const pairs = records.map((r) => {
    const v = r.value;
    const response = isResponse(v) ? v : isObj(v) && isResponse(v.response) ? v.response : undefined;
    const request = isObj(v) && isObj(v.request) ? v.request : undefined;
    return { ...r, response, request };
  });
  const first = pairs.find((p) => p.response)?.response;
  const startedAt = typeof first?.created_at === 'number' ? first.created_at * 1000 : 0;
  const model = typeof first?.model === 'string' ? first.model : 'unknown';
  const runId = `oar-${digest}`;
  const ctx: RuntimeContextSnapshot = {
    user: { userId: 'unknown', roleId: 'user', permissions: [] },
    conversation: { sessionId: typeof first?.id === 'string' ? first.id : runId },
    project: { projectId: basename(file) },
    task: { taskId: basename(file), workflowId: 'openai-responses', stepStates: {} },
    tools: { availableTools: [] },
    model: { provider: 'openai', model, promptVersion: 'unknown' },
  };
  const b = new RunPlanBuilder(runId, { messages: [], ledger: [], runtimeContext: ctx, at: startedAt });
  const items = new ResponseItems(b, {
    file,
    warnings: options.warnings,
    sideEffectOf: options.sideEffectOf,
    unknownTypes: options.unknownTypes,
  });
  const seen = new Set<string>();
  const tools = new Set<string>();
  const feed = (item: unknown, at: number | undefined) => {
    if (!isObj(item)) return;
    const key = canonicalJson(item);
    if (seen.has(key)) return;
    seen.add(key);
    if (typeof item.name === 'string') tools.add(item.name);
    items.item(item, at);
  };
  for (const p of pairs) {
    if (!p.response) {
      options.skip(
        { file, where: p.where.slice(file.length + 2) || '(root)' },
        new Error('not a Responses API response object'),
      );
      continue;
    }
    const at = typeof p.response.created_at === 'number' ? p.response.created_at * 1000 : undefined;
    const req = p.request;
    if (req) {
      if (typeof req.instructions === 'string') b.setSystemPrompt(req.instructions);
      const input = req.input;
      if (typeof input === 'string') feed({ type: 'message', role: 'user', content: input }, at);
      else if (Array.isArray(input)) for (const it of input) feed(it, at);
    } else if (typeof p.response.instructions === 'string') b.setSystemPrompt(p.response.instructions);
    if (typeof p.response.model === 'string') b.setModel({ provider: 'openai', model: p.response.model });
    items.flush();
    for (const it of p.response.output as unknown[]) feed(it, at);
    // A response without assistant items (only input) still is a model call: it has usage.
    const usage = responsesUsage(p.response.usage);
    if (usage) items.usage(usage, typeof p.response.status === 'string' ? String(p.response.status) : undefined);
    items.flush();
  }
  const open = b.closeUnanswered('the log ends before its result');
  ctx.tools.availableTools = [...tools].sort();
  const plan = b.finish({
    sessionId: ctx.conversation.sessionId,
    agentId: 'openai-responses',
    mode: 'live',
    startedAt,
    ...planEnd(open, 'the log'),
    metadata: {
      source: { format: 'openai-responses', file, contentHash: digest },
      responses: pairs.filter((p) => p.response).length,
    },
  });
  return { plans: b.checkpointCount > 1 ? [plan] : [], primaryRunId: runId, extraFiles: [] };
}

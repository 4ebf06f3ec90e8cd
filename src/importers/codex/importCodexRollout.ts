/**
 * OpenAI Codex CLI session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)
 * -> one RunPlan. Each line is `{ timestamp, type, payload }`: `session_meta`
 * (id, cwd, cli version), `turn_context` (model), `response_item` (the
 * Responses API items the model saw and wrote, mapped by responseItems.ts),
 * `event_msg` (`token_count`: the usage of the model call it follows; the
 * user / agent messages and reasoning it repeats are read only from a
 * rollout that holds no `message` response items — there they are the whole
 * conversation) and `compacted` (a compaction: the conversation restarts
 * from its summary). Rollouts of early 2025 (no
 * `type` wrapper: a first line `{ id, timestamp, instructions }`, then bare
 * items and `record_type: state` lines) are read too. Each line is mapped by
 * rolloutMapper.ts; the run keeps where a later import of the grown rollout
 * may take it up again (rolloutResume.ts). Reads the file; writes nothing.
 */
import { basename } from 'node:path';
import type { RuntimeContextSnapshot } from '../../model';
import type { ReadPlans, ReaderOptions } from '../reader';
import { fileRange } from '../fileTail';
import { readJsonLines } from '../jsonLines';
import { LineHashes } from '../lineHashes';
import { StreamedResume } from '../planDigest';
import { ResponseItems } from '../openai/responseItems';
import { RunPlanBuilder, planEnd } from '../runPlan';
import { RolloutMapper, isObj, itemTypeOf, str, timeOf } from './rolloutMapper';
import { RolloutRecorder, type RolloutFacts } from './rolloutResume';

type Obj = Record<string, unknown>;

/** True for a line of a Codex rollout (either generation). */
export function isCodexLine(v: unknown): boolean {
  if (!isObj(v)) return false;
  if (typeof v.timestamp === 'string' && isObj(v.payload))
    return ['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted'].includes(String(v.type));
  return typeof v.id === 'string' && typeof v.timestamp === 'string' && 'instructions' in v;
}

export function rolloutContext(meta: Obj, model: string | undefined, sessionId: string): RuntimeContextSnapshot {
  const cwd = str(meta.cwd);
  const git = isObj(meta.git) ? meta.git : {};
  return {
    user: { userId: 'unknown', roleId: str(meta.originator) ?? 'unknown', permissions: [] },
    conversation: { sessionId },
    project: {
      projectId: cwd ? basename(cwd) : 'unknown',
      ...(cwd ? { cwd } : {}),
      ...(str(git.branch) ? { gitBranch: String(git.branch) } : {}),
    },
    task: { taskId: sessionId, workflowId: 'codex', stepStates: {} },
    tools: { availableTools: [] },
    model: {
      provider: str(meta.model_provider) ?? 'openai',
      model: model ?? 'unknown',
      promptVersion: str(meta.cli_version) ? `codex@${String(meta.cli_version)}` : 'codex',
    },
  };
}

export async function readCodexRollout(file: string, options: ReaderOptions): Promise<ReadPlans> {
  const lines: { lineNo: number; value: Obj; start: number }[] = [];
  // the text's and the bytes' hash in one pass; its state kept for the import that reads the grown rollout
  const hashes = await LineHashes.create();
  let bytes = 0;
  for await (const { lineNo, value, start } of readJsonLines(file, {
    signal: options.signal,
    warnings: options.warnings,
    onBytes: (b) => {
      bytes = b;
      options.onBytes?.(file, b);
    },
    onLine: (line) => hashes.line(line),
    strict: options.strict,
    onSkip: (line, reason) => options.skip({ file, line }, new Error(reason)),
  })) {
    if (!isObj(value)) {
      options.skip({ file, line: lineNo }, new Error('not a JSON object'));
      continue;
    }
    lines.push({ lineNo, value, start });
  }
  const digests = hashes.digests();
  const digest = digests.text.slice(0, 10);
  const first = lines[0]?.value ?? {};
  const metaLine = lines.find((l) => l.value.type === 'session_meta')?.value;
  const meta: Obj = isObj(metaLine?.payload) ? metaLine.payload : 'instructions' in first ? first : {};
  const sessionId = str(meta.id) ?? basename(file, '.jsonl');
  const models = lines
    .filter((l) => l.value.type === 'turn_context' && isObj(l.value.payload))
    .map((l) => str((l.value.payload as Obj).model))
    .filter((m): m is string => m !== undefined);
  const startedAt = timeOf(meta) ?? timeOf(first) ?? 0;
  const ctx = rolloutContext(meta, models[0], sessionId);
  // From the session, not the content: a re-import of the grown rollout continues the run (growth.ts).
  const runId = `codex-${sessionId}${options.idSuffix !== undefined ? `-${options.idSuffix}` : ''}`;
  const builder = new RunPlanBuilder(runId, { messages: [], ledger: [], runtimeContext: ctx, at: startedAt });
  if (str(meta.instructions)) builder.setSystemPrompt(String(meta.instructions));
  const items = new ResponseItems(builder, {
    file,
    warnings: options.warnings,
    sideEffectOf: options.sideEffectOf,
    unknownTypes: options.unknownTypes,
  });
  // A rollout with no message items (only event_msg user / agent messages): those events are the conversation.
  const itemTypes = new Set(lines.map((l) => itemTypeOf(l.value)));
  const facts: RolloutFacts = {
    fromEvents: !itemTypes.has('message'),
    reasoningFromEvents: !itemTypes.has('message') && !itemTypes.has('reasoning'),
    meta: metaLine !== undefined,
    model: models.length > 0,
  };
  const mapper = new RolloutMapper(builder, items, ctx, facts, { ...options, file });
  const recorder = new RolloutRecorder(builder);
  for (const { lineNo, value, start } of lines) {
    recorder.before(start, lineNo, mapper);
    mapper.line(lineNo, value);
    recorder.after(mapper);
  }
  recorder.before(bytes, (lines.at(-1)?.lineNo ?? 0) + 1, mapper);
  items.flush();
  const open = builder.closeUnanswered('the rollout ends before its result');
  const source: Record<string, unknown> = {
    format: 'codex',
    file,
    lines: lines.at(-1)?.lineNo ?? 0,
    contentHash: digest,
  };
  const plan = builder.finish({
    sessionId,
    agentId: 'codex',
    mode: 'live',
    startedAt,
    ...planEnd(open, 'the rollout'),
    metadata: {
      source,
      ...(str(meta.cli_version) ? { codexVersion: meta.cli_version } : {}),
      tools: mapper.toolNames(),
      compactions: mapper.compactions,
      tokenCountEvents: mapper.tokenEvents,
    },
  });
  // The run's resume facts (growth.ts) from this one pass, and where a later import of the grown file goes on.
  const kept = recorder.result({
    plan,
    resume: new StreamedResume(plan),
    facts,
    read: fileRange(file),
    bytes,
    sha: hashes.state(),
  });
  plan.metadata.source = {
    ...source,
    bytes,
    sha256: digests.raw,
    resume: kept.resume,
    ...(kept.tail ? { tail: kept.tail } : {}),
  };
  return { plans: builder.checkpointCount > 1 ? [plan] : [], primaryRunId: runId, extraFiles: [] };
}

/**
 * Reads one Claude Code session transcript (streamed line by line) and turns
 * it into RunPlans: the active branch as the run, rewound branches as forks
 * of it, and the subagent transcripts in `<session>/subagents/agent-*.jsonl`
 * as child runs linked to the tool call that started them (metadata
 * `subagentOf`). Synthesises the RuntimeContextSnapshot the format lacks
 * (see `sessionContext`). Reads files; writes nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { RuntimeContextSnapshot, SideEffectLevel } from '../../model';
import { RunPlanBuilder, type RunPlan } from '../runPlan';
import type { ImportWarning } from '../types';
import { splitBranches } from './branches';
import { newSessionFacts, parseTranscriptLine, type Entry, type SessionFacts } from './entries';
import { SessionMapper } from './sessionMapper';
import { readSessionRows } from './sessionRows';

export interface SessionReadOptions {
  signal?: AbortSignal;
  warnings: ImportWarning[];
  unknownTypes: Record<string, number>;
  onBytes?: (file: string, bytesRead: number) => void;
  sideEffectOf: (toolName: string) => SideEffectLevel;
}

export interface SessionPlans {
  /** Plans in write order: the run, its forks, then subagent runs. */
  plans: RunPlan[];
  /** The run id whose presence in the store means "already imported". */
  primaryRunId: string;
  /** Subagent files read with the session. */
  extraFiles: string[];
}

/**
 * What the importer synthesises, since a Claude Code transcript has no
 * business context: user (userType as roleId, permission mode as a
 * permission), conversation.sessionId, project from cwd and gitBranch, task
 * = the session (or subagent) with its summary title, tools.availableTools =
 * every tool name the transcript uses, model = the first model seen and the
 * Claude Code version as promptVersion.
 */
export function sessionContext(facts: SessionFacts, taskId: string): RuntimeContextSnapshot {
  const title = facts.summaries.at(-1)?.summary;
  const project: RuntimeContextSnapshot['project'] = { projectId: facts.cwd ? basename(facts.cwd) : 'unknown' };
  if (facts.cwd) project.cwd = facts.cwd;
  if (facts.gitBranch) project.gitBranch = facts.gitBranch;
  const task: RuntimeContextSnapshot['task'] = { taskId, workflowId: 'claude-code', stepStates: {} };
  if (title) task.title = title;
  return {
    user: {
      userId: 'unknown',
      roleId: facts.userType ?? 'unknown',
      permissions: facts.permissionMode ? [`permissionMode:${facts.permissionMode}`] : [],
    },
    conversation: { sessionId: facts.sessionId ?? taskId },
    project,
    task,
    tools: { availableTools: [...facts.toolNames].sort() },
    model: {
      provider: 'anthropic',
      model: facts.models[0] ?? 'unknown',
      promptVersion: facts.version ? `claude-code@${facts.version}` : 'claude-code',
    },
  };
}

interface ReadResult {
  entries: Entry[];
  facts: SessionFacts;
  hash: string;
  lines: number;
}

async function readTranscript(file: string, options: SessionReadOptions, sidechain: boolean): Promise<ReadResult> {
  const facts = newSessionFacts();
  const entries: Entry[] = [];
  const hash = createHash('sha256');
  let lines = 0;
  let sidechainLines = 0;
  for await (const { lineNo, value, where } of readSessionRows(file, {
    signal: options.signal,
    warnings: options.warnings,
    onBytes: (b) => options.onBytes?.(file, b),
    onText: (t) => hash.update(t),
  })) {
    lines = lineNo;
    const parsed = parseTranscriptLine(value, lineNo, where, facts);
    if (parsed.skipped) options.unknownTypes[parsed.skipped] = (options.unknownTypes[parsed.skipped] ?? 0) + 1;
    if (!parsed.entry) continue;
    if (parsed.entry.sidechain && !sidechain) {
      sidechainLines++; // an old-style subagent inlined in the session file
      continue;
    }
    entries.push(parsed.entry);
  }
  if (sidechainLines > 0) {
    options.warnings.push({
      file,
      message: `${sidechainLines} sidechain line(s) (subagents written into the session file by older versions) were skipped`,
    });
  }
  return { entries, facts, hash: hash.digest('hex').slice(0, 10), lines };
}

interface BuildInput {
  file: string;
  read: ReadResult;
  runId: string;
  agentId: string;
  metadata: Record<string, unknown>;
  options: SessionReadOptions;
  onSubagent?: (agentId: string, runId: string, toolCallId: string) => void;
}

function buildPlans(input: BuildInput): RunPlan[] {
  const { read, file, options } = input;
  const branches = splitBranches(read.entries);
  if (branches.length === 0) return [];
  const context = sessionContext(
    read.facts,
    input.agentId === 'claude-code' ? (read.facts.sessionId ?? input.runId) : input.agentId,
  );
  const startAt = read.facts.firstAt ?? 0;
  const runIds = branches.map((b, i) =>
    i === 0 ? input.runId : `${input.runId}-fork${i}-${(b.entries[0] as Entry).uuid.slice(0, 8)}`,
  );
  const forkStarts = new Map<number, { mapper: SessionMapper; from?: string; at: number }>();
  const plans: RunPlan[] = [];
  for (const branch of branches) {
    const runId = runIds[branch.index] as string;
    const env = {
      file,
      warnings: options.warnings,
      sideEffectOf: options.sideEffectOf,
      onSubagent: (agentId: string, toolCallId: string) => input.onSubagent?.(agentId, runId, toolCallId),
    };
    const start = forkStarts.get(branch.index);
    const mapper =
      start?.mapper ??
      new SessionMapper(
        new RunPlanBuilder(runId, {
          messages: [],
          ledger: [],
          runtimeContext: context,
          at: branch.entries[0]?.at ?? startAt,
        }),
        env,
        context,
      );
    const forksHere = new Map<string, number[]>();
    for (const other of branches) {
      if (other.parentIndex === branch.index && other.branchPointUuid) {
        const list = forksHere.get(other.branchPointUuid) ?? [];
        list.push(other.index);
        forksHere.set(other.branchPointUuid, list);
      }
    }
    branch.entries.forEach((entry, i) => {
      mapper.add(entry);
      const forks = forksHere.get(entry.uuid);
      if (!forks) return;
      // A rewind leaves after a complete response: close it here unless this branch's response goes on.
      const next = branch.entries
        .slice(i + 1)
        .find((e) => e.kind === 'assistant' || e.kind === 'user' || e.kind === 'system');
      if (!(next?.kind === 'assistant' && next.messageId !== undefined && next.messageId === mapper.pendingMessageId)) {
        mapper.flush();
      }
      for (const forkIndex of forks) {
        const forkBuilder = new RunPlanBuilder(runIds[forkIndex] as string, mapper.builder.snapshot());
        forkStarts.set(forkIndex, {
          mapper: mapper.fork(forkBuilder),
          from: mapper.builder.lastCheckpoint,
          at: mapper.builder.lastTimestamp,
        });
      }
    });
    mapper.flush();
    const open = mapper.builder.openTools();
    const apiError = mapper.apiError;
    const isFork = branch.index > 0 && branch.parentIndex !== undefined;
    const metadata: Record<string, unknown> = { ...input.metadata, compactions: mapper.compactions };
    if (isFork) metadata.rewoundAt = branch.branchPointUuid;
    if (branch.index > 0 && !isFork) metadata.detachedBranch = true;
    const plan = mapper.builder.finish({
      sessionId: read.facts.sessionId ?? input.runId,
      agentId: input.agentId,
      mode: isFork ? 'fork' : 'live',
      parentRunId: isFork ? runIds[branch.parentIndex as number] : undefined,
      forkFromCheckpointId: isFork ? start?.from : undefined,
      startedAt: start?.at ?? branch.entries[0]?.at ?? startAt,
      status: apiError ? 'failed' : open.length > 0 ? 'cancelled' : 'completed',
      error: apiError
        ? { message: apiError }
        : open.length > 0
          ? {
              message: `the transcript ends with ${open.length} unanswered tool call(s): ${open.map((r) => `${r.toolName} ${r.toolCallId}`).join(', ')}`,
            }
          : undefined,
      metadata,
    });
    if (plan.parentRunId === undefined) delete plan.parentRunId;
    if (plan.forkFromCheckpointId === undefined) delete plan.forkFromCheckpointId;
    if (plan.error === undefined) delete plan.error;
    plans.push(plan);
  }
  return plans;
}

function subagentFiles(sessionFile: string): string[] {
  const dir = join(dirname(sessionFile), basename(sessionFile, '.jsonl'), 'subagents');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((n) => /^agent-.+\.jsonl$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/** Reads a session (and its subagents when `file` is a session, not itself a subagent file). */
export async function readClaudeCodeSession(file: string, options: SessionReadOptions): Promise<SessionPlans> {
  const isSubagentFile = /^agent-.+\.jsonl$/.test(basename(file));
  const read = await readTranscript(file, options, isSubagentFile);
  const sessionId = read.facts.sessionId ?? basename(file, '.jsonl');
  const ownAgent = isSubagentFile ? (read.facts.agentId ?? basename(file, '.jsonl').slice('agent-'.length)) : undefined;
  const runId = ownAgent ? `cc-${sessionId}-agent-${ownAgent}-${read.hash}` : `cc-${sessionId}-${read.hash}`;
  const links = new Map<string, { runId: string; toolCallId: string }>();
  const source = (f: string, r: ReadResult) => ({
    format: 'claude-code',
    file: f,
    lines: r.lines,
    contentHash: r.hash,
  });
  const metadata: Record<string, unknown> = { source: source(file, read) };
  if (read.facts.summaries.length > 0) metadata.title = read.facts.summaries.at(-1)?.summary;
  if (read.facts.version) metadata.claudeCodeVersion = read.facts.version;
  const plans = buildPlans({
    file,
    read,
    runId,
    agentId: ownAgent ? 'claude-code/subagent' : 'claude-code',
    metadata,
    options,
    onSubagent: (agentId, parentRunId, toolCallId) => links.set(agentId, { runId: parentRunId, toolCallId }),
  });
  const extraFiles: string[] = [];
  if (!isSubagentFile && plans.length > 0) {
    for (const sub of subagentFiles(file)) {
      const subRead = await readTranscript(sub, options, true);
      const agentId = subRead.facts.agentId ?? basename(sub, '.jsonl').slice('agent-'.length);
      const link = links.get(agentId);
      const subMeta: Record<string, unknown> = { source: source(sub, subRead), subagentId: agentId };
      if (link) subMeta.subagentOf = link;
      else
        options.warnings.push({
          file: sub,
          message: `no tool call of the session names subagent ${agentId}; imported unlinked`,
        });
      extraFiles.push(sub);
      plans.push(
        ...buildPlans({
          file: sub,
          read: subRead,
          runId: `${runId}-agent-${agentId}`,
          agentId: 'claude-code/subagent',
          metadata: subMeta,
          options,
        }),
      );
    }
    const main = plans[0] as RunPlan;
    const subs = [...links].map(([agentId, l]) => ({
      agentId,
      ...l,
      runId: `${runId}-agent-${agentId}`,
      parentRunId: l.runId,
    }));
    if (subs.length > 0)
      main.metadata.subagents = subs.filter((s) => extraFiles.some((f) => basename(f) === `agent-${s.agentId}.jsonl`));
  }
  return { plans, primaryRunId: runId, extraFiles };
}

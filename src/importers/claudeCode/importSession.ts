/**
 * Reads one Claude Code session transcript (streamed line by line) and turns
 * it into RunPlans: the active branch as the run, rewound branches as forks
 * of it, and the subagent transcripts in `<session>/subagents/agent-*.jsonl`
 * as child runs linked to the tool call that started them (metadata
 * `subagentOf`). Synthesises the RuntimeContextSnapshot the format lacks
 * (see `sessionContext`). A session is read twice: `prepareClaudeCodeSession`
 * reads every line (validated once, with zod: entries.ts) for the tree and
 * the session's facts, keeping each line's position instead of its content
 * (lazyEntries.ts); `build` maps the runs, reading the content again line by
 * line — into plans kept whole, or handed to a PlanOutput that writes them as
 * they are made, so memory stays the tree's and the current conversation's.
 * Reads files; writes nothing itself.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { OcdbError, errorMessage, type RuntimeContextSnapshot, type SideEffectLevel } from '../../model';
import { RunPlanBuilder, planEnd, type PlanHead, type PlanOutput, type RunPlan } from '../runPlan';
import { LineSource } from '../lineReader';
import { LineHashes } from '../lineHashes';
import { prefixSha256 } from '../growth';
import type { ReaderOptions } from '../reader';
import type { ImportWarning } from '../types';
import { splitBranches } from './branches';
import { EntryStrings, lazyEntry } from './lazyEntries';
import { newSessionFacts, parseTranscriptLine, type Entry, type SessionFacts } from './entries';
import { SessionMapper } from './sessionMapper';
import { RunNotes, linkSubagent, sidechainGroups } from './subagentLinks';
import { readSessionRows } from './sessionRows';
import { StreamedResume } from '../planDigest';
import type { Sha256State } from '../resumableSha256';
import { TailRecorder } from './sessionTail';
import { fileRange } from '../fileTail';
import { deferredOptions, subagentFiles } from './subagentFiles';

export interface SessionReadOptions {
  signal?: AbortSignal;
  warnings: ImportWarning[];
  unknownTypes: Record<string, number>;
  onBytes?: (file: string, bytesRead: number) => void;
  sideEffectOf: (toolName: string) => SideEffectLevel;
  strict?: boolean;
  skip: ReaderOptions['skip'];
  idSuffix?: string;
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
  /** Sidechain lines of a session file (subagents written inline by Claude Code 1.x / 2.0). */
  sidechains: Entry[];
  /** True when every line is a sidechain line: the file is a subagent transcript, whatever its name. */
  subagentOnly: boolean;
  facts: SessionFacts;
  hash: string;
  lines: number;
  /** Lines read, blank ones and the last one too. */
  physicalLines: number;
  /** sha256 (hex) of the bytes read, when the file was read as lines (its entries' content is read again). */
  rawSha?: string;
  /** Bytes read. */
  bytes: number;
  /** Where each entry's line is (JSON Lines only). */
  positionOf: (e: Entry) => { start: number; length: number } | undefined;
  /** SHA-256 state of the bytes read, when a later import may continue it (every line LF-ended UTF-8, no CR). */
  sha?: Sha256State;
}

async function readTranscript(
  file: string,
  options: SessionReadOptions,
  source: LineSource,
  resumable = false,
): Promise<ReadResult> {
  const facts = newSessionFacts();
  const entries: Entry[] = [];
  const sidechains: Entry[] = [];
  const strings = new EntryStrings();
  // A JSON array's text is hashed whole (onText); JSON Lines line by line, its text and bytes in one pass.
  const hash = createHash('sha256');
  // the text's and the bytes' hash in one pass, and its state kept for the import that reads the grown file
  const lineHashes = await LineHashes.create();
  let asLines = false;
  const positions = new WeakMap<Entry, { start: number; length: number }>();
  let lines = 0;
  let physicalLines = 0;
  let bytes = 0;
  for await (const { lineNo, value, where, start, length } of readSessionRows(file, {
    signal: options.signal,
    warnings: options.warnings,
    onBytes: (b) => {
      bytes = b;
      options.onBytes?.(file, b);
    },
    onText: (t, bytes) => hash.update(bytes ?? t),
    onLine: (line) => {
      asLines = true;
      physicalLines = line.lineNo;
      lineHashes.line(line);
    },
    strict: options.strict,
    onSkip: (line, reason) => options.skip({ file, line }, new Error(reason)),
  })) {
    lines = lineNo;
    let parsed;
    try {
      parsed = parseTranscriptLine(value, lineNo, where, facts);
    } catch (e) {
      options.skip({ file, line: lineNo }, e);
      continue;
    }
    if (parsed.skipped) options.unknownTypes[parsed.skipped] = (options.unknownTypes[parsed.skipped] ?? 0) + 1;
    if (!parsed.entry) continue;
    // The content is read again when the run is mapped: the tree is what stays in memory.
    const entry = strings.share(
      start !== undefined && length !== undefined ? lazyEntry(parsed.entry, source, start, length) : parsed.entry,
    );
    if (start !== undefined && length !== undefined) positions.set(entry, { start, length });
    (entry.sidechain ? sidechains : entries).push(entry);
  }
  const subagentOnly = entries.length === 0 && sidechains.length > 0;
  const digests = asLines ? lineHashes.digests() : undefined;
  const sha = resumable && asLines && !subagentOnly ? lineHashes.state() : undefined;
  return {
    entries: subagentOnly ? sidechains : entries,
    sidechains: subagentOnly ? [] : sidechains,
    subagentOnly,
    facts,
    hash: (digests ? digests.text : hash.digest('hex')).slice(0, 10),
    lines,
    physicalLines,
    ...(digests ? { rawSha: digests.raw } : {}),
    bytes,
    positionOf: (e) => positions.get(e),
    ...(sha ? { sha } : {}),
  };
}

interface BuildInput {
  file: string;
  read: ReadResult;
  runId: string;
  agentId: string;
  metadata: Record<string, unknown>;
  options: SessionReadOptions;
  onSubagent?: (agentId: string, runId: string, toolCallId: string) => void;
  notes: RunNotes;
  output?: PlanOutput;
  /** Given for a session file whose run a later import may continue from its end (sessionTail.ts). */
  tail?: { recorder?: TailRecorder };
}

/** An unexpected error while mapping a line, naming the file and line. */
function lineError(file: string, lineNo: number, e: unknown): Error {
  const message = errorMessage(e);
  if (message.startsWith(file)) return e instanceof Error ? e : new Error(message);
  return new OcdbError('InvalidInput', `${file}: line ${lineNo}: ${message}`, { file, line: lineNo }, { cause: e });
}

function buildPlans(input: BuildInput): RunPlan[] {
  const { read, file, options } = input;
  const branches = splitBranches(read.entries, (lines) =>
    options.warnings.push({
      file,
      line: lines[0] as number,
      message: `the parentUuid links of lines ${lines.join(', ')} form a cycle; read them in file order from line ${String(lines[0])}`,
    }),
  );
  if (branches.length === 0) return [];
  const context = sessionContext(
    read.facts,
    input.agentId === 'claude-code' ? (read.facts.sessionId ?? basename(file, '.jsonl')) : input.agentId,
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
    const isFork = branch.index > 0 && branch.parentIndex !== undefined;
    const head: PlanHead = {
      runId,
      sessionId: read.facts.sessionId ?? basename(file, '.jsonl'),
      agentId: input.agentId,
      mode: isFork ? 'fork' : 'live',
      ...(isFork ? { parentRunId: runIds[branch.parentIndex as number] as string } : {}),
      ...(isFork && start?.from !== undefined ? { forkFromCheckpointId: start.from } : {}),
      startedAt: start?.at ?? branch.entries[0]?.at ?? startAt,
      // What is known before the run is mapped; the whole metadata comes with its end (PlanOutput).
      metadata: { ...input.metadata },
      initial: mapper.builder.start,
    };
    // A session whose conversation is one run: where a later import of the grown file may take it up again.
    const resume = input.tail && branches.length === 1 ? new StreamedResume(head) : undefined;
    const recorder =
      resume && input.tail ? (input.tail.recorder = new TailRecorder(read.positionOf, 0, resume)) : undefined;
    // the run's digest is taken once: by the output that writes the run, else here
    const feed = input.output ? undefined : resume;
    mapper.builder.observe((op) => {
      input.notes.note(runId, op);
      feed?.op(op);
    });
    input.output?.stream(mapper.builder, head, resume);
    // Written as it is mapped, and no fork starts from it: its finished calls need not stay whole in memory.
    if (input.output && !branches.some((b) => b.parentIndex === branch.index)) mapper.builder.forgetFinished();
    const forksHere = new Map<string, number[]>();
    for (const other of branches) {
      if (other.parentIndex === branch.index && other.branchPointUuid) {
        const list = forksHere.get(other.branchPointUuid) ?? [];
        list.push(other.index);
        forksHere.set(other.branchPointUuid, list);
      }
    }
    const end = { at: read.bytes, atLine: read.physicalLines + 1 };
    branch.entries.forEach((entry, i) => {
      recorder?.boundary(mapper, entry, end);
      try {
        mapper.add(entry);
      } catch (e) {
        throw lineError(file, entry.lineNo, e);
      }
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
    recorder?.boundary(mapper, undefined, end);
    try {
      mapper.flush();
    } catch (e) {
      throw lineError(file, branch.entries.at(-1)?.lineNo ?? 0, e);
    }
    const open = mapper.builder.closeUnanswered('the transcript ends before its result');
    const apiError = mapper.apiError;
    const metadata: Record<string, unknown> = { ...input.metadata, compactions: mapper.compactions };
    if (isFork) metadata.rewoundAt = branch.branchPointUuid;
    if (branch.index > 0 && !isFork) metadata.detachedBranch = true;
    const plan = mapper.builder.finish({
      sessionId: read.facts.sessionId ?? basename(file, '.jsonl'),
      agentId: input.agentId,
      mode: isFork ? 'fork' : 'live',
      parentRunId: isFork ? runIds[branch.parentIndex as number] : undefined,
      forkFromCheckpointId: isFork ? start?.from : undefined,
      startedAt: start?.at ?? branch.entries[0]?.at ?? startAt,
      ...planEnd(open, 'the transcript', apiError ? { message: apiError } : undefined),
      metadata,
    });
    if (plan.parentRunId === undefined) delete plan.parentRunId;
    if (plan.forkFromCheckpointId === undefined) delete plan.forkFromCheckpointId;
    if (plan.error === undefined) delete plan.error;
    plans.push(plan);
  }
  return plans;
}

/** A session read for its tree and facts (and its subagent files), ready to be mapped into runs once. */
export interface PreparedSession {
  /** The run id whose presence in the store means "already imported". */
  primaryRunId: string;
  /** The content part of the file's legacy run ids (the first 10 hex digits of its text's sha256). */
  contentHash: string;
  /** Maps the runs: kept whole in the plans, or streamed to `output` (their plans' ops then stay empty). */
  build(output?: PlanOutput): SessionPlans;
  /**
   * The sha256 of the bytes each file was read with, by file — throwing ImportFailed when a file's first bytes
   * changed since (its content was read again from them): call it after `build`, before the runs are kept.
   */
  verify(): Map<string, string | undefined>;
  close(): void;
}

/** Reads a session (and its subagents when `file` is a session, not itself a subagent file) for mapping. */
export async function prepareClaudeCodeSession(file: string, options: SessionReadOptions): Promise<PreparedSession> {
  const sources: LineSource[] = [];
  const reads: { file: string; read: ReadResult }[] = [];
  const open = (f: string) => {
    const src = new LineSource(f);
    sources.push(src);
    return src;
  };
  const close = () => sources.forEach((src) => src.close());
  try {
    const read = await readTranscript(file, options, open(file), !/^agent-.+\.jsonl$/.test(basename(file)));
    reads.push({ file, read });
    const isSubagentFile = /^agent-.+\.jsonl$/.test(basename(file)) || read.subagentOnly;
    const subs: { file: string; read: ReadResult; replay: () => void }[] = [];
    // Subagent files are read only for a session with a conversation (they are mapped after it).
    if (!isSubagentFile && read.entries.length > 0) {
      for (const sub of subagentFiles(file)) {
        const deferred = deferredOptions(options);
        const subRead = await readTranscript(sub, deferred.options, open(sub));
        reads.push({ file: sub, read: subRead });
        subs.push({ file: sub, read: subRead, replay: deferred.replay });
      }
    }
    const sessionId = read.facts.sessionId ?? basename(file, '.jsonl');
    const ownAgent = isSubagentFile
      ? (read.facts.agentId ?? basename(file, '.jsonl').replace(/^agent-/, ''))
      : undefined;
    // From the session, not the content: a re-import of the grown file continues the run (growth.ts).
    const suffix = options.idSuffix !== undefined ? `-${options.idSuffix}` : '';
    const runId = ownAgent ? `cc-${sessionId}-agent-${ownAgent}${suffix}` : `cc-${sessionId}${suffix}`;
    let built = false;
    return {
      primaryRunId: runId,
      contentHash: read.hash,
      build: (output) => {
        if (built) throw new Error(`${file}: a prepared session is mapped once`);
        built = true;
        return buildSession({ file, read, subs, isSubagentFile, ownAgent, runId, options, output });
      },
      verify: () => {
        const shas = new Map<string, string | undefined>();
        for (const { file: f, read: r } of reads) {
          const now = prefixSha256(f, r.bytes);
          if (r.rawSha !== undefined && now !== r.rawSha) {
            throw new OcdbError(
              'ImportFailed',
              `${f} changed while it was imported (its first ${r.bytes} bytes are not those read); nothing of it was imported. Import it again.`,
              { file: f },
            );
          }
          shas.set(f, now);
        }
        return shas;
      },
      close,
    };
  } catch (e) {
    close();
    throw e;
  }
}

/** Reads a session (and its subagents when `file` is a session, not itself a subagent file) into plans. */
export async function readClaudeCodeSession(file: string, options: SessionReadOptions): Promise<SessionPlans> {
  const prepared = await prepareClaudeCodeSession(file, options);
  try {
    const plans = prepared.build();
    prepared.verify();
    return plans;
  } finally {
    prepared.close();
  }
}

function buildSession(input: {
  file: string;
  read: ReadResult;
  subs: { file: string; read: ReadResult; replay: () => void }[];
  isSubagentFile: boolean;
  ownAgent: string | undefined;
  runId: string;
  options: SessionReadOptions;
  output: PlanOutput | undefined;
}): SessionPlans {
  const { file, read, isSubagentFile, ownAgent, runId, options, output } = input;
  const notes = new RunNotes();
  const links = new Map<string, { runId: string; toolCallId: string }>();
  const source = (f: string, r: ReadResult) => ({
    format: 'claude-code',
    file: f,
    lines: r.lines,
    contentHash: r.hash,
  });
  const metadata: Record<string, unknown> = { source: source(file, read) };
  if (ownAgent) metadata.subagentId = ownAgent;
  if (read.facts.summaries.length > 0) metadata.title = read.facts.summaries.at(-1)?.summary;
  if (read.facts.version) metadata.claudeCodeVersion = read.facts.version;
  const tail: { recorder?: TailRecorder } | undefined =
    !isSubagentFile && read.sha && read.sidechains.length === 0 ? {} : undefined;
  const plans = buildPlans({
    file,
    read,
    runId,
    agentId: ownAgent ? 'claude-code/subagent' : 'claude-code',
    metadata,
    options,
    onSubagent: (agentId, parentRunId, toolCallId) => links.set(agentId, { runId: parentRunId, toolCallId }),
    notes,
    ...(output ? { output } : {}),
    ...(tail ? { tail } : {}),
  });
  const kept = tail?.recorder?.result({
    read: fileRange(file),
    bytes: read.bytes,
    facts: read.facts,
    sha: read.sha,
    subagentFiles: input.subs.map((s) => s.file),
  });
  if (kept && plans.length === 1) (plans[0] as RunPlan).metadata.source = { ...source(file, read), tail: kept };
  const extraFiles: string[] = [];
  if (isSubagentFile || plans.length === 0) return { plans, primaryRunId: runId, extraFiles };
  const main = plans[0] as RunPlan;
  // The session's own calls (subagent runs mapped next add theirs to the notes, not to these).
  const calls = [...notes.calls];
  const compactions = [...(notes.promptBuilds.get(main.runId) ?? [])];
  const subagents: Record<string, unknown>[] = [];
  const addSubagent = (
    agentId: string,
    subRead: ReadResult,
    subFile: string,
    link: { runId: string; toolCallId?: string; checkpointId?: string; compaction?: boolean } | undefined,
    inline: boolean,
    runKey = agentId,
  ) => {
    const subRunId = `${runId}-agent-${runKey}`;
    const subMeta: Record<string, unknown> = { source: source(subFile, subRead), subagentId: agentId };
    if (inline) subMeta.inlineSidechain = true;
    if (link) {
      subMeta.subagentOf = link;
      subagents.push({ agentId, ...link, runId: subRunId, parentRunId: link.runId });
    } else {
      options.warnings.push({
        file: subFile,
        message: `no tool call of the session started subagent ${agentId}; imported unlinked`,
      });
    }
    plans.push(
      ...buildPlans({
        file: subFile,
        read: subRead,
        runId: subRunId,
        agentId: 'claude-code/subagent',
        metadata: subMeta,
        options,
        notes,
        ...(output ? { output } : {}),
      }),
    );
  };
  for (const group of sidechainGroups(read.sidechains)) {
    const subRead: ReadResult = { ...read, entries: group.entries, sidechains: [], subagentOnly: true };
    addSubagent(group.key, subRead, file, linkSubagent(group.agentId, group.entries, links, calls), true, group.runKey);
  }
  for (const { file: sub, read: subRead, replay } of input.subs) {
    replay();
    const agentId = subRead.facts.agentId ?? basename(sub, '.jsonl').slice('agent-'.length);
    extraFiles.push(sub);
    if (agentId.startsWith('acompact')) {
      // A compaction's summariser: linked to the compaction it wrote (the first one after it started).
      const at = subRead.entries.find((e) => e.at !== undefined)?.at ?? 0;
      const cp = compactions.find((op) => op.createdAt >= at) ?? compactions.at(-1);
      addSubagent(
        agentId,
        subRead,
        sub,
        { runId: main.runId, compaction: true, ...(cp ? { checkpointId: cp.checkpointId } : {}) },
        false,
      );
      continue;
    }
    addSubagent(agentId, subRead, sub, linkSubagent(agentId, subRead.entries, links, calls), false);
  }
  if (subagents.length > 0) main.metadata.subagents = subagents;
  return { plans, primaryRunId: runId, extraFiles };
}

/**
 * One line of a Claude Code / Claude Agent SDK session transcript, parsed
 * with zod into a compact Entry that keeps only what the mapper needs (the
 * structured `toolUseResult` copy of each tool output is dropped, except a
 * subagent's `agentId`). Unknown line types are reported, not failed. Pure.
 */
import { z } from 'zod';
import { parseWith } from '../../model';

export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

const BlockSchema = z.looseObject({ type: z.string() });
const ToolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
const ToolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
  is_error: z.boolean().nullish(),
});
const ContentSchema = z.union([z.string(), z.array(BlockSchema)]);

// Every optional field is nullish: real transcripts write `null` for absent values (`"isMeta": null`).
const Envelope = {
  uuid: z.string().min(1),
  parentUuid: z.string().nullish(),
  timestamp: z.string().nullish(),
  sessionId: z.string().nullish(),
  isSidechain: z.boolean().nullish(),
  cwd: z.string().nullish(),
  gitBranch: z.string().nullish(),
  version: z.string().nullish(),
  userType: z.string().nullish(),
  agentId: z.string().nullish(),
};

const UserLineSchema = z.looseObject({
  ...Envelope,
  type: z.literal('user'),
  message: z.looseObject({ role: z.string().nullish(), content: ContentSchema }),
  isCompactSummary: z.boolean().nullish(),
  isMeta: z.boolean().nullish(),
  permissionMode: z.string().nullish(),
  toolUseResult: z.unknown().optional(),
});

const UsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

const AssistantLineSchema = z.looseObject({
  ...Envelope,
  type: z.literal('assistant'),
  requestId: z.string().nullish(),
  isApiErrorMessage: z.boolean().nullish(),
  message: z.looseObject({
    id: z.string().nullish(),
    model: z.string().nullish(),
    content: ContentSchema,
    stop_reason: z.string().nullish(),
    usage: UsageSchema.nullish(),
  }),
});

const SystemLineSchema = z.looseObject({
  ...Envelope,
  type: z.literal('system'),
  logicalParentUuid: z.string().nullish(),
  subtype: z.string().nullish(),
  content: z.unknown().optional(),
});

const SummaryLineSchema = z.looseObject({
  type: z.literal('summary'),
  summary: z.string(),
  leafUuid: z.string().nullish(),
});

/** Line types that carry nothing the run needs but are part of the tree or the format. */
const TREE_ONLY_TYPES = new Set(['progress']);
const IGNORED_TYPES = new Set(['file-history-snapshot', 'queue-operation', 'custom-title', 'tag', 'attachment']);

export interface Usage4 {
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
}

interface EntryBase {
  lineNo: number;
  uuid: string;
  /** parentUuid, or for a compaction boundary its logicalParentUuid. */
  parent?: string;
  at?: number;
  sidechain: boolean;
  /** The subagent a line belongs to (`agentId` on sidechain lines since 2.0). */
  agentId?: string;
}

export interface UserEntry extends EntryBase {
  kind: 'user';
  content: string | ContentBlock[];
  isCompactSummary: boolean;
  isMeta: boolean;
  /** `toolUseResult.agentId` of an Agent/Task tool result: the subagent it ran. */
  subagentId?: string;
  /** The tool_use ids the line answers when its content is tool results only (branches.ts `toolResultIds`). */
  toolResults?: string[];
}

export interface AssistantEntry extends EntryBase {
  kind: 'assistant';
  messageId?: string;
  requestId?: string;
  model?: string;
  blocks: ContentBlock[];
  stopReason?: string;
  usage?: Usage4;
  apiError: boolean;
}

export interface SystemEntry extends EntryBase {
  kind: 'system';
  subtype?: string;
  text?: string;
}

export interface OtherEntry extends EntryBase {
  kind: 'other';
}

export type Entry = UserEntry | AssistantEntry | SystemEntry | OtherEntry;

export interface SessionFacts {
  sessionId?: string;
  cwd?: string;
  gitBranch?: string;
  version?: string;
  userType?: string;
  permissionMode?: string;
  agentId?: string;
  models: string[];
  toolNames: Set<string>;
  summaries: { summary: string; leafUuid?: string }[];
  firstAt?: number;
}

export function newSessionFacts(): SessionFacts {
  return { models: [], toolNames: new Set(), summaries: [] };
}

/** What a line gave: a tree entry, and/or an unknown type to count. */
export interface ParsedLine {
  entry?: Entry;
  skipped?: string;
}

/** Every line's type (made once: zod compiles a schema at its first parse, which costs more than the parse). */
const HeadSchema = z.looseObject({ type: z.string() });

const TreeNodeSchema = z.looseObject({
  uuid: z.string().nullish(),
  parentUuid: z.string().nullish(),
  logicalParentUuid: z.string().nullish(),
  timestamp: z.string().nullish(),
  isSidechain: z.boolean().nullish(),
});

/** Older transcripts name a finished subagent only in the Task result text: `agentId: a1b2c3`. */
function agentIdInText(content: string | ContentBlock[]): string | undefined {
  if (typeof content === 'string') return undefined;
  for (const b of content) {
    if (b.type !== 'tool_result') continue;
    const parts = typeof b.content === 'string' ? [b.content] : Array.isArray(b.content) ? b.content : [];
    for (const p of parts) {
      const text = typeof p === 'string' ? p : p && typeof p === 'object' ? (p as { text?: unknown }).text : undefined;
      const m = typeof text === 'string' ? /\bagentId: ([\w-]+)/.exec(text) : null;
      if (m) return m[1];
    }
  }
  return undefined;
}

/** The tool_use ids `content` answers when it holds tool results and nothing else. */
function onlyToolResults(content: string | ContentBlock[]): string[] | undefined {
  if (typeof content === 'string' || content.length === 0) return undefined;
  const ids: string[] = [];
  for (const b of content) {
    if (b.type !== 'tool_result') return undefined;
    ids.push(String(b.tool_use_id));
  }
  return ids;
}

function time(ts: string | null | undefined): number | undefined {
  if (ts === undefined || ts === null) return undefined;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? undefined : t;
}

function usageOf(u: z.infer<typeof UsageSchema> | null | undefined): Usage4 | undefined {
  if (!u) return undefined;
  return {
    input: u.input_tokens ?? 0,
    output: u.output_tokens ?? 0,
    cacheCreation: u.cache_creation_input_tokens ?? 0,
    cacheRead: u.cache_read_input_tokens ?? 0,
  };
}

function noteEnvelope(
  facts: SessionFacts,
  line: {
    sessionId?: string | null;
    cwd?: string | null;
    gitBranch?: string | null;
    version?: string | null;
    userType?: string | null;
    agentId?: string | null;
  },
  at: number | undefined,
): void {
  facts.sessionId ??= line.sessionId ?? undefined;
  if (line.cwd) facts.cwd = line.cwd;
  if (line.gitBranch) facts.gitBranch = line.gitBranch;
  if (line.version) facts.version = line.version;
  facts.userType ??= line.userType ?? undefined;
  facts.agentId ??= line.agentId ?? undefined;
  if (at !== undefined && facts.firstAt === undefined) facts.firstAt = at;
}

function blocksWithCheckedTools(blocks: ContentBlock[], where: string): ContentBlock[] {
  blocks.forEach((b, i) => {
    if (b.type === 'tool_use') parseWith(ToolUseBlockSchema, b, `${where}: message.content[${i}]`);
    else if (b.type === 'tool_result') parseWith(ToolResultBlockSchema, b, `${where}: message.content[${i}]`);
  });
  return blocks;
}

/**
 * Maps one parsed JSON line. Throws InvalidInput naming `where` (file and
 * line) and the field when a known line type is malformed.
 */
export function parseTranscriptLine(value: unknown, lineNo: number, where: string, facts: SessionFacts): ParsedLine {
  // A line's type read as HeadSchema checks it, without zod's copy of the whole line (HeadSchema names what is wrong).
  const type =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as { type?: unknown }).type
      : undefined;
  const head = typeof type === 'string' ? { type } : parseWith(HeadSchema, value, where);
  switch (head.type) {
    case 'user': {
      const line = parseWith(UserLineSchema, value, where);
      const at = time(line.timestamp);
      noteEnvelope(facts, line, at);
      if (line.permissionMode) facts.permissionMode = line.permissionMode;
      const content =
        typeof line.message.content === 'string'
          ? line.message.content
          : blocksWithCheckedTools(line.message.content as ContentBlock[], where);
      const tur = line.toolUseResult;
      const subagentId =
        tur && typeof tur === 'object' && typeof (tur as { agentId?: unknown }).agentId === 'string'
          ? (tur as { agentId: string }).agentId
          : (agentIdInText(content) ??
            // 2.0 wrote the subagent's id on the session's Task result line itself.
            (line.isSidechain !== true && typeof content !== 'string' && content.some((b) => b.type === 'tool_result')
              ? (line.agentId ?? undefined)
              : undefined));
      const toolResults = onlyToolResults(content);
      return {
        entry: {
          ...(toolResults ? { toolResults } : {}),
          kind: 'user',
          lineNo,
          uuid: line.uuid,
          parent: line.parentUuid ?? undefined,
          at,
          sidechain: line.isSidechain === true,
          ...(line.agentId ? { agentId: line.agentId } : {}),
          content,
          isCompactSummary: line.isCompactSummary === true,
          isMeta: line.isMeta === true,
          subagentId,
        },
      };
    }
    case 'assistant': {
      const line = parseWith(AssistantLineSchema, value, where);
      const at = time(line.timestamp);
      noteEnvelope(facts, line, at);
      const m = line.message;
      const blocks =
        typeof m.content === 'string'
          ? [{ type: 'text', text: m.content }]
          : blocksWithCheckedTools(m.content as ContentBlock[], where);
      for (const b of blocks) if (b.type === 'tool_use') facts.toolNames.add(String(b.name));
      const apiError = line.isApiErrorMessage === true || m.model === '<synthetic>';
      if (m.model && !apiError && !facts.models.includes(m.model)) facts.models.push(m.model);
      return {
        entry: {
          kind: 'assistant',
          lineNo,
          uuid: line.uuid,
          parent: line.parentUuid ?? undefined,
          at,
          sidechain: line.isSidechain === true,
          ...(line.agentId ? { agentId: line.agentId } : {}),
          messageId: m.id ?? undefined,
          requestId: line.requestId ?? undefined,
          model: apiError ? undefined : (m.model ?? undefined),
          blocks,
          stopReason: m.stop_reason ?? undefined,
          usage: usageOf(m.usage),
          apiError,
        },
      };
    }
    case 'system': {
      const line = parseWith(SystemLineSchema, value, where);
      const at = time(line.timestamp);
      noteEnvelope(facts, line, at);
      return {
        entry: {
          kind: 'system',
          lineNo,
          uuid: line.uuid,
          parent: line.parentUuid ?? line.logicalParentUuid ?? undefined,
          at,
          sidechain: line.isSidechain === true,
          subtype: line.subtype ?? undefined,
          text: typeof line.content === 'string' ? line.content : undefined,
        },
      };
    }
    case 'summary': {
      const line = parseWith(SummaryLineSchema, value, where);
      facts.summaries.push({ summary: line.summary, leafUuid: line.leafUuid ?? undefined });
      return {};
    }
    default: {
      // Lines of other types can still be links of the parentUuid tree (progress lines are): keep them as nodes.
      const line = parseWith(TreeNodeSchema, value, where);
      const known = TREE_ONLY_TYPES.has(head.type) || IGNORED_TYPES.has(head.type);
      const entry: Entry | undefined = line.uuid
        ? {
            kind: 'other',
            lineNo,
            uuid: line.uuid,
            parent: line.parentUuid ?? line.logicalParentUuid ?? undefined,
            at: time(line.timestamp),
            sidechain: line.isSidechain === true,
          }
        : undefined;
      return { entry, skipped: known ? undefined : head.type };
    }
  }
}

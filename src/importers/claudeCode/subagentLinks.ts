/**
 * How a Claude Code session's subagents are found and linked: inline sidechains grouped into runs of their own, the
 * Task / Agent calls noted as the session's runs are made, and the call that started each subagent (by the agentId
 * its result names, else its prompt, else the call running when it started).
 */
import type { PlanOp } from '../runPlan';
import type { Entry } from './entries';

/** The inline subagents of a session file: sidechain lines grouped by agentId, or by the root they hang from. */
export function sidechainGroups(lines: Entry[]): { key: string; runKey: string; agentId?: string; entries: Entry[] }[] {
  const byUuid = new Map(lines.map((e) => [e.uuid, e]));
  // A line whose parent is named but missing (lines lost) continues the sidechain line before it.
  const parentOf = new Map<string, Entry | undefined>();
  lines.forEach((e, i) => {
    const p = e.parent !== undefined ? (byUuid.get(e.parent) ?? (i > 0 ? lines[i - 1] : undefined)) : undefined;
    parentOf.set(e.uuid, p);
  });
  const rootOf = (e: Entry): string => {
    let cur = e;
    const seen = new Set<string>();
    for (;;) {
      seen.add(cur.uuid);
      const p = parentOf.get(cur.uuid);
      if (!p || seen.has(p.uuid)) return cur.uuid;
      cur = p;
    }
  };
  // A chain takes the agentId any of its lines carries.
  const agentOfRoot = new Map<string, string>();
  for (const e of lines) if (e.agentId && !agentOfRoot.has(rootOf(e))) agentOfRoot.set(rootOf(e), e.agentId);
  const groups = new Map<string, { key: string; runKey: string; agentId?: string; entries: Entry[] }>();
  for (const e of lines) {
    const agentId = e.agentId ?? agentOfRoot.get(rootOf(e));
    const key = agentId ?? `sidechain-${rootOf(e).slice(0, 8)}`;
    // The run's id names the chain's first line, known from that line on: a grown file keeps it (agentId may
    // only come with a later line).
    const runKey = `sidechain-${rootOf(e).slice(0, 8)}`;
    const g = groups.get(key) ?? { key, runKey, ...(agentId ? { agentId } : {}), entries: [] };
    g.entries.push(e);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** A Task / Agent call of the session that may have started a subagent. */
export interface TaskCall {
  runId: string;
  toolCallId: string;
  prompt?: string;
  startedAt: number;
  endedAt?: number;
  used?: boolean;
}

const TASK_TOOLS = new Set(['Task', 'Agent']);

/** What the session's runs are linked by, noted from their ops as they are made (kept or streamed). */
export class RunNotes {
  /** Task / Agent calls of the runs, in the order they were begun. */
  readonly calls: TaskCall[] = [];
  private readonly open = new Map<string, Map<string, TaskCall>>();
  /** Each run's before_prompt_build checkpoints (compactions). */
  readonly promptBuilds = new Map<string, { checkpointId: string; createdAt: number }[]>();

  note(runId: string, op: PlanOp): void {
    if (op.op === 'beginTool' && TASK_TOOLS.has(op.call.toolName)) {
      const args = op.call.args as { prompt?: unknown } | undefined;
      const call: TaskCall = {
        runId,
        toolCallId: op.call.toolCallId,
        startedAt: op.call.startedAt,
        ...(typeof args?.prompt === 'string' ? { prompt: args.prompt } : {}),
      };
      const mine = this.open.get(runId) ?? new Map<string, TaskCall>();
      mine.set(call.toolCallId, call);
      this.open.set(runId, mine);
      this.calls.push(call);
    } else if (op.op === 'finishTool') {
      const call = this.open.get(runId)?.get(op.toolCallId);
      if (call) call.endedAt = op.endedAt;
    } else if (op.op === 'checkpoint' && op.boundary === 'before_prompt_build') {
      const list = this.promptBuilds.get(runId) ?? [];
      list.push({ checkpointId: op.checkpointId, createdAt: op.createdAt });
      this.promptBuilds.set(runId, list);
    }
  }
}

function firstPrompt(entries: Entry[]): string | undefined {
  const e = entries.find((x) => x.kind === 'user');
  if (e?.kind !== 'user') return undefined;
  if (typeof e.content === 'string') return e.content;
  const text = e.content.filter((b) => b.type === 'text').map((b) => String(b.text));
  return text.length > 0 ? text.join('\n') : undefined;
}

/**
 * The Task call that started a subagent: the one whose result names its agentId, else the one whose prompt is
 * the subagent's first prompt, else the one running when the subagent started (the latest started before it).
 */
export function linkSubagent(
  agentId: string | undefined,
  entries: Entry[],
  byAgent: Map<string, { runId: string; toolCallId: string }>,
  calls: TaskCall[],
): { runId: string; toolCallId: string } | undefined {
  const claim = (c: TaskCall | undefined) => {
    if (!c) return undefined;
    c.used = true;
    return { runId: c.runId, toolCallId: c.toolCallId };
  };
  const named = agentId !== undefined ? byAgent.get(agentId) : undefined;
  if (named) {
    const c = calls.find((x) => x.toolCallId === named.toolCallId && x.runId === named.runId);
    if (c) c.used = true;
    return named;
  }
  const free = calls.filter((c) => !c.used);
  const prompt = firstPrompt(entries);
  if (prompt !== undefined) {
    const byPrompt = free.find((c) => c.prompt !== undefined && c.prompt.trim() === prompt.trim());
    if (byPrompt) return claim(byPrompt);
  }
  const at = entries.find((e) => e.at !== undefined)?.at;
  if (at === undefined) return undefined;
  const running = free
    .filter((c) => c.startedAt <= at && (c.endedAt === undefined || at <= c.endedAt))
    .sort((a, b) => b.startedAt - a.startedAt);
  return claim(running[0]);
}

/**
 * Splits a transcript's parentUuid tree into runs. The active branch — the
 * chain from the newest leaf back to the root — is the run; every other
 * branch holding conversation becomes a fork of the run it left, starting at
 * its branch point (a rewind). Parallel tool calls also make side branches
 * (each result hangs off its own tool_use line): a side branch whose only
 * conversation is tool results answering calls of an existing run is folded
 * back into that run rather than made a fork. Compaction boundaries link to
 * the pre-compaction chain through logicalParentUuid. Pure.
 */
import type { AssistantEntry, Entry, UserEntry } from './entries';

export interface Branch {
  /** 0 is the active run; forks follow. */
  index: number;
  /** Entries of this run in file order (tree-only nodes included). */
  entries: Entry[];
  /** For a fork: the branch it left and the uuid of the last shared entry. */
  parentIndex?: number;
  branchPointUuid?: string;
}

function isConversation(e: Entry): boolean {
  return e.kind === 'user' || e.kind === 'assistant';
}

/** The tool_use ids a tool-result-only user entry answers, or undefined when it holds anything else. */
export function toolResultIds(e: Entry): string[] | undefined {
  if (e.kind !== 'user' || typeof e.content === 'string' || e.content.length === 0) return undefined;
  const ids: string[] = [];
  for (const b of e.content) {
    if (b.type !== 'tool_result') return undefined;
    ids.push(String(b.tool_use_id));
  }
  return ids;
}

export function splitBranches(all: readonly Entry[]): Branch[] {
  const byUuid = new Map<string, Entry>();
  const hasChild = new Set<string>();
  for (const e of all) byUuid.set(e.uuid, e);
  for (const e of all) if (e.parent && byUuid.has(e.parent)) hasChild.add(e.parent);
  const owner = new Map<string, number>(); // uuid -> branch index
  const toolOwner = new Map<string, number>(); // tool_use id -> branch index
  const branches: Branch[] = [];
  const folded: { entry: Entry; branch: number }[] = [];

  const leaves = all.filter((e) => !hasChild.has(e.uuid)).sort((a, b) => b.lineNo - a.lineNo);
  for (const leaf of leaves) {
    if (owner.has(leaf.uuid)) continue;
    const path: Entry[] = [];
    let cur: Entry | undefined = leaf;
    let branchPoint: Entry | undefined;
    const seen = new Set<string>();
    while (cur && !seen.has(cur.uuid)) {
      if (owner.has(cur.uuid)) {
        branchPoint = cur;
        break;
      }
      seen.add(cur.uuid);
      path.push(cur);
      cur = cur.parent ? byUuid.get(cur.parent) : undefined;
    }
    const conversation = path.filter(isConversation);
    if (conversation.length === 0) {
      const o = branchPoint ? (owner.get(branchPoint.uuid) as number) : -1;
      for (const e of path) owner.set(e.uuid, o);
      continue;
    }
    if (!branchPoint && branches.length > 0 && conversation.every((e) => e.kind === 'user' && e.isMeta)) {
      // Hook reminders injected with a parent outside this file (seen in compaction subagents): part of the run.
      for (const e of path) {
        owner.set(e.uuid, 0);
        folded.push({ entry: e, branch: 0 });
      }
      continue;
    }
    const foldable = conversation.every((e) => {
      const ids = toolResultIds(e);
      return ids !== undefined && ids.every((id) => toolOwner.has(id));
    });
    if (foldable && branches.length > 0) {
      const targetOf = (e: Entry) => toolOwner.get((toolResultIds(e) as string[])[0] as string) as number;
      const main = targetOf(conversation[0] as Entry);
      for (const e of path) {
        const target = isConversation(e) ? targetOf(e) : main;
        owner.set(e.uuid, target);
        folded.push({ entry: e, branch: target });
      }
      continue;
    }
    const index = branches.length;
    const branch: Branch = { index, entries: path.reverse() };
    if (branchPoint) {
      const parentIndex = owner.get(branchPoint.uuid) as number;
      branch.parentIndex = parentIndex >= 0 ? parentIndex : undefined;
      branch.branchPointUuid = branchPoint.uuid;
    }
    for (const e of path) {
      owner.set(e.uuid, index);
      if (e.kind === 'assistant') {
        for (const b of (e as AssistantEntry).blocks) if (b.type === 'tool_use') toolOwner.set(String(b.id), index);
      }
    }
    branches.push(branch);
  }
  for (const { entry, branch } of folded) (branches[branch] as Branch).entries.push(entry);
  for (const b of branches) b.entries.sort((x, y) => x.lineNo - y.lineNo);
  return branches;
}

export type { UserEntry };

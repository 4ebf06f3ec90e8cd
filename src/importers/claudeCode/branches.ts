/**
 * Splits a transcript's parentUuid tree into runs. The active branch — the
 * chain from the newest leaf back to the root — is the run; a branch that
 * leaves it with a new user prompt is a rewind and becomes a fork of the run
 * it left, starting at its branch point. Everything else that hangs off the
 * tree is part of the run it hangs from:
 * - the lines of one model response (Claude Code 2.x writes one content block
 *   a line, sharing `message.id` / `requestId`) are one node, so the results
 *   of parallel tool calls, each parented on its own tool_use line, are
 *   siblings of one response, not branches;
 * - a side branch starting with tool results or hook reminders is folded
 *   back in file order;
 * - a line whose parent is not in the file (a compaction boundary whose
 *   pre-compaction chain is elsewhere, lines lost) continues the line before
 *   it; a file with no links at all (every parentUuid null) is one chain in
 *   file order.
 * Pure.
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
  return e.kind === 'user' ? e.toolResults : undefined;
}

/** A prompt the user typed (not a tool result, not an injected reminder, not a compaction summary). */
export function isUserPrompt(e: Entry): boolean {
  return e.kind === 'user' && !e.isMeta && !e.isCompactSummary && toolResultIds(e) === undefined;
}

function isCompaction(e: Entry): boolean {
  return (e.kind === 'system' && e.subtype === 'compact_boundary') || (e.kind === 'user' && e.isCompactSummary);
}

/** The response key of an assistant line: lines with the same key are one model call. */
function responseKey(e: Entry): string | undefined {
  if (e.kind !== 'assistant' || e.messageId === undefined) return undefined;
  return `${e.messageId}\u0000${e.requestId ?? ''}`;
}

/**
 * Breaks every cycle of `parentOf` (a hand-edited or corrupted transcript can chain parentUuids in a ring, which
 * leaves no leaf to start a run from): the earliest line of each ring becomes a root, so the ring reads in file order.
 * Answers the line numbers of each ring broken.
 */
function breakCycles(nodes: readonly Entry[], parentOf: Map<string, Entry | undefined>): number[][] {
  const done = new Set<string>();
  const rings: number[][] = [];
  for (const start of nodes) {
    const walk: Entry[] = [];
    const onWalk = new Set<string>();
    let cur: Entry | undefined = start;
    while (cur && !done.has(cur.uuid) && !onWalk.has(cur.uuid)) {
      onWalk.add(cur.uuid);
      walk.push(cur);
      cur = parentOf.get(cur.uuid);
    }
    if (cur && onWalk.has(cur.uuid)) {
      const ring = walk.slice(walk.indexOf(cur));
      const first = ring.reduce((a, b) => (b.lineNo < a.lineNo ? b : a));
      parentOf.set(first.uuid, undefined);
      rings.push(ring.map((e) => e.lineNo).sort((a, b) => a - b));
    }
    for (const e of walk) done.add(e.uuid);
  }
  return rings;
}

/** `onCycle` hears the line numbers of each parentUuid ring that was broken to read the file. */
export function splitBranches(all: readonly Entry[], onCycle?: (lines: number[]) => void): Branch[] {
  const byUuid = new Map<string, Entry>();
  for (const e of all) byUuid.set(e.uuid, e);
  // The lines of one response collapse onto their first line (the head).
  const headOfKey = new Map<string, Entry>();
  const headOf = new Map<string, Entry>(); // member uuid -> head
  const members = new Map<string, Entry[]>(); // head uuid -> other lines of the response
  for (const e of all) {
    const key = responseKey(e);
    if (key === undefined) continue;
    const head = headOfKey.get(key);
    if (!head) headOfKey.set(key, e);
    else {
      headOf.set(e.uuid, head);
      const list = members.get(head.uuid) ?? [];
      list.push(e);
      members.set(head.uuid, list);
    }
  }
  const canon = (uuid: string | undefined): Entry | undefined => {
    if (uuid === undefined) return undefined;
    const e = byUuid.get(uuid);
    return e ? (headOf.get(e.uuid) ?? e) : undefined;
  };
  const nodes = all.filter((e) => !headOf.has(e.uuid));
  const linked = nodes.some((e) => canon(e.parent) !== undefined);
  const parentOf = new Map<string, Entry | undefined>();
  nodes.forEach((e, i) => {
    let p = canon(e.parent);
    if (p === e) p = undefined;
    // No links in the whole file: one chain in file order. A line whose parent is named but not in the file (lines
    // lost or trimmed, a compaction whose pre-compaction chain is elsewhere) continues the line before it.
    const lost = e.parent !== undefined && !byUuid.has(e.parent);
    if (!p && i > 0 && (!linked || lost || isCompaction(e))) p = nodes[i - 1];
    parentOf.set(e.uuid, p);
  });
  for (const ring of breakCycles(nodes, parentOf)) onCycle?.(ring);
  const hasChild = new Set<string>();
  for (const e of nodes) {
    const p = parentOf.get(e.uuid);
    if (p) hasChild.add(p.uuid);
  }
  const owner = new Map<string, number>(); // node uuid -> branch index
  const branches: Branch[] = [];
  const folded: { entry: Entry; branch: number }[] = [];

  const leaves = nodes.filter((e) => !hasChild.has(e.uuid)).sort((a, b) => b.lineNo - a.lineNo);
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
      cur = parentOf.get(cur.uuid);
    }
    path.reverse();
    const firstTalk = path.find(isConversation);
    const foldInto = (target: number) => {
      for (const e of path) {
        owner.set(e.uuid, target);
        folded.push({ entry: e, branch: target });
      }
    };
    if (branches.length > 0) {
      if (!firstTalk) {
        // Tree-only lines (hooks, snapshots): part of the run they hang from.
        foldInto(branchPoint ? (owner.get(branchPoint.uuid) as number) : 0);
        continue;
      }
      if (branchPoint && !isUserPrompt(firstTalk)) {
        // Tool results, reminders or a response that left the chain: the same run, in file order.
        foldInto(owner.get(branchPoint.uuid) as number);
        continue;
      }
      if (!branchPoint && firstTalk.kind === 'user' && firstTalk.isMeta) {
        // Hook reminders injected with a parent outside this file (seen in compaction subagents): part of the run.
        foldInto(0);
        continue;
      }
    }
    const index = branches.length;
    const branch: Branch = { index, entries: path };
    if (branchPoint) {
      const parentIndex = owner.get(branchPoint.uuid) as number;
      branch.parentIndex = parentIndex;
      // The fork leaves after the whole response: its last line is the branch point.
      branch.branchPointUuid = (members.get(branchPoint.uuid)?.at(-1) ?? branchPoint).uuid;
    }
    for (const e of path) owner.set(e.uuid, index);
    branches.push(branch);
  }
  for (const { entry, branch } of folded) (branches[branch] as Branch).entries.push(entry);
  for (const b of branches) {
    b.entries = b.entries.flatMap((e) => [e, ...(members.get(e.uuid) ?? [])]);
    b.entries.sort((x, y) => x.lineNo - y.lineNo);
  }
  return branches;
}

export type { AssistantEntry, UserEntry };

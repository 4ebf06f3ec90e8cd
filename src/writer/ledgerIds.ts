/**
 * Where a writer's next checkpoint continues from: the lists (conversation and ledger) of the checkpoint before it,
 * and the toolCallId of each record of a run's ledger found from the runs' calls alone (a fork's inherited records
 * through its ancestors), so a writer reopening or forking a run never reads its whole ledger.
 */
import type { ToolCallRecord } from '../model';
import { itemFacts, type ListsFrom, type RunStore, type RunSummary } from '../store';
import type { RunTimeline } from './runTimeline';

/**
 * The lists of checkpoint `checkpointId` the next one continues: the timeline's conversation (as long as it is now:
 * it grows in place, so by the next checkpoint it may hold that checkpoint's new messages too) and `ledger`.
 */
export function listsFrom(checkpointId: string, timeline: RunTimeline, ledger: readonly ToolCallRecord[]): ListsFrom {
  const messages = timeline.state?.messages ?? [];
  return { checkpointId, messages, messageCount: messages.length, ledger };
}

/**
 * The toolCallId of each record of a run's ledger at its last checkpoint, by position, from the runs' calls alone:
 * a writer keeps the records a run started with first, in place — a fork's are its parent's ledger at the fork
 * point, known the same way — and adds the run's own calls after them in the order they were begun. So a fork of
 * a late checkpoint finds a call among thousands of inherited records without reading them. Holes where it
 * cannot know (an import's initial ledger). Checked against the last two records (a read each): undefined, and
 * every record searched as before, when a ledger was written otherwise.
 */
export function ledgerIdsOf(
  store: RunStore,
  run: RunSummary,
  ledger: readonly ToolCallRecord[],
  own: readonly { toolCallId: string }[],
): (string | undefined)[] | undefined {
  if (ledger.length === 0) return undefined;
  const ids = ledgerIdsAt(store, run, ledger.length, own, 0);
  // the last two records (near the list's end, found without walking it): a ledger whose records stand
  // elsewhere (shifted, or not from these calls) differs there
  for (const at of new Set([Math.max(0, ids.length - 2), ids.length - 1])) {
    if (ids[at] === undefined || itemFacts(ledger[at] as ToolCallRecord).toolCallId !== ids[at]) return undefined;
  }
  return ids;
}

/**
 * How many records a run's ledger started with (its first checkpoint's: a fork's inherited ledger, an import's
 * initial one): its own calls come after them, in the order they were begun.
 */
export function startLedgerLength(store: RunStore, runId: string): number {
  const first = store.listCheckpoints(runId, { limit: 1 })[0];
  return first ? store.getCheckpointState(first.checkpointId).toolLedgerSnapshot.length : 0;
}

/** ledgerIdsOf for `run`'s ledger when it held `length` records (`own`: its calls, when read already). */
function ledgerIdsAt(
  store: RunStore,
  run: RunSummary,
  length: number,
  own: readonly { toolCallId: string }[] | undefined,
  depth: number,
): (string | undefined)[] {
  const startLength = Math.min(length, startLedgerLength(store, run.runId));
  // a fork's start records are its parent's ledger at the fork point (a child run of another kind's are not)
  const parent =
    run.parentRunId && run.forkFromCheckpointId && depth < 64 && store.hasRun(run.parentRunId)
      ? run.parentRunId
      : undefined;
  const start: (string | undefined)[] =
    parent && startLength > 0
      ? ledgerIdsAt(store, store.getRun(parent), startLength, undefined, depth + 1)
      : new Array<undefined>(startLength).fill(undefined);
  const calls = (own?.map((c) => c.toolCallId) ?? store.listToolCallIds(run.runId)).slice(0, length - startLength);
  const ids = [...start, ...calls];
  // fewer calls than records: a ledger not written this way; a hole at the end has every record searched
  while (ids.length < length) ids.push(undefined);
  return ids;
}

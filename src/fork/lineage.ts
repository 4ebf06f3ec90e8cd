/**
 * A run's lineage: the run itself, then its parent, grandparent, ... (forks of
 * forks). The tool cassette of a fork is looked up across this chain. Reads
 * the store only; cycle-safe.
 */
import type { RunStore } from '../store';

/** `[runId, parentRunId, grandparentRunId, ...]`, stopping at a missing parent or a cycle. */
export function lineageOf(store: RunStore, runId: string): string[] {
  const chain: string[] = [];
  const seen = new Set<string>();
  let current: string | undefined = runId;
  while (current !== undefined && !seen.has(current) && store.hasRun(current)) {
    chain.push(current);
    seen.add(current);
    current = store.getRun(current).parentRunId;
  }
  return chain;
}

/**
 * The tool cassette of a fork: recorded results matched by toolName + argsHash
 * across the run's lineage (the n-th call with a key gets the n-th recorded
 * result, counting the calls made before the fork point; past the end, the
 * latest), and mocks from toolMockResults (or the context's tools.toolMocks).
 * Reads the store only; never runs a tool.
 */
import { OcdbError, argsHash, type ForkConfig, type RuntimeContextSnapshot, type ToolCallRecord } from '../model';
import { itemFacts, type RunStore, type ToolOutcome } from '../store';
import { outcomeOf, outcomeValue } from '../writer';

export interface CassetteAnswer {
  outcome: ToolOutcome;
  /** The result (success) or the error value (error / cancelled). */
  value: unknown;
  /** The recorded call the answer came from (reuse only). */
  recorded?: ToolCallRecord;
}

function keyOf(toolName: string, hash: string): string {
  return `${toolName}\u0000${hash}`;
}

/** The outcome a recorded call ended with (cancelled stays cancelled: outcomes.ts of the writer). */
export function recordedOutcome(record: ToolCallRecord): CassetteAnswer {
  return { outcome: outcomeOf(record), value: outcomeValue(record), recorded: record };
}

export class ToolCassette {
  private readonly used = new Map<string, number>();

  /**
   * @param lineage the source run followed by its ancestors
   * @param before the ledger at the fork point: calls already finished count as used
   */
  constructor(
    private readonly store: RunStore,
    private readonly lineage: readonly string[],
    private readonly before: readonly ToolCallRecord[],
  ) {}

  /**
   * Calls finished before the fork point consumed their results; one begun but unfinished there is answered by the
   * fork. Counted at the first reuse, from the records' inline fields only (a long inherited ledger's arguments
   * and results are never read).
   */
  private usedBefore(): Map<string, number> {
    if (this.counted) return this.used;
    this.counted = true;
    for (const record of this.before) {
      const r = itemFacts(record) as Pick<ToolCallRecord, 'endedAt' | 'toolName' | 'argsHash'>;
      if (r.endedAt === undefined) continue;
      const key = keyOf(r.toolName, r.argsHash);
      this.used.set(key, (this.used.get(key) ?? 0) + 1);
    }
    return this.used;
  }

  private counted = false;

  /** The recorded answer for this call (reuse_result); CassetteMiss naming the tool and hash when there is none. */
  reuse(toolName: string, args: unknown): CassetteAnswer {
    const hash = argsHash(args);
    const finished = (runIds: readonly string[]) =>
      runIds.length === 0
        ? []
        : this.store.findToolCalls(runIds, toolName, hash).filter((r) => r.endedAt !== undefined);
    // The source run's own timeline first, then its ancestors' (asked apart: nothing else of the run is read).
    const matches = [...finished(this.lineage.slice(0, 1)), ...finished(this.lineage.slice(1))];
    if (matches.length === 0) {
      throw new OcdbError(
        'CassetteMiss',
        `No recorded result for ${toolName} with argsHash ${hash} in ${this.lineage.join(' <- ')}: the fork called it with arguments the recording never saw. Map ${toolName} to mock_result (with toolMockResults) or run the fork with the agent program.`,
        { toolName, argsHash: hash, args, lineage: this.lineage },
      );
    }
    const key = keyOf(toolName, hash);
    const used = this.usedBefore();
    const n = used.get(key) ?? 0;
    used.set(key, n + 1);
    return recordedOutcome(matches[Math.min(n, matches.length - 1)] as ToolCallRecord);
  }
}

/** The mock of `toolName`: toolMockResults first, then the context's tools.toolMocks; MockMissing otherwise. */
export function mockFor(
  toolName: string,
  config: Pick<ForkConfig, 'toolMockResults'>,
  context: RuntimeContextSnapshot,
): CassetteAnswer {
  if (config.toolMockResults && Object.hasOwn(config.toolMockResults, toolName)) {
    return { outcome: 'success', value: config.toolMockResults[toolName] };
  }
  const fromContext = context.tools.toolMocks;
  if (fromContext && Object.hasOwn(fromContext, toolName)) return { outcome: 'success', value: fromContext[toolName] };
  throw new OcdbError(
    'MockMissing',
    `${toolName} is set to mock_result but toolMockResults has no entry for it: add toolMockResults.${toolName} (e.g. --mock ${toolName}=result.json) or choose another policy.`,
    { toolName, path: `toolMockResults.${toolName}` },
  );
}

/**
 * The tool cassette of a fork: recorded results matched by toolName + argsHash
 * across the run's lineage (the n-th call with a key gets the n-th recorded
 * result, counting the calls made before the fork point; past the end, the
 * latest), and mocks from toolMockResults (or the context's tools.toolMocks).
 * Reads the store only; never runs a tool.
 */
import { OcdbError, argsHash, type ForkConfig, type RuntimeContextSnapshot, type ToolCallRecord } from '../model';
import { itemFacts, type RunStore, type ToolOutcome } from '../store';
import { outcomeOf, outcomeValue, startLedgerLength } from '../writer';

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
   * The ledger at the fork point holds the records the source run started with (what its own source had
   * recorded up to its fork point, or an import's initial ledger), then the source's own calls in the order they
   * were begun. Its start records are read once, inline fields only (a long inherited ledger's arguments and
   * results are never read); each own call is looked up where it stands, so a long recording is not walked.
   */
  private layout:
    | {
        startCount: number;
        /** Positions of the start records finished at the fork point, by key. */
        startFinished: Map<string, number[]>;
        /** Index of each of the source's own calls in the order they were begun. */
        ownIndex: Map<string, number>;
      }
    | undefined;

  private layoutOf(): NonNullable<ToolCassette['layout']> {
    const source = this.lineage[0];
    const startCount = source
      ? Math.min(this.before.length, startLedgerLength(this.store, source))
      : this.before.length;
    const startFinished = new Map<string, number[]>();
    for (let at = 0; at < startCount; at++) {
      const r = itemFacts(this.before[at] as ToolCallRecord) as Pick<
        ToolCallRecord,
        'endedAt' | 'toolName' | 'argsHash'
      >;
      if (r.endedAt === undefined) continue;
      const key = keyOf(r.toolName, r.argsHash);
      const positions = startFinished.get(key);
      if (positions) positions.push(at);
      else startFinished.set(key, [at]);
    }
    const ownIndex = new Map<string, number>();
    if (source) this.store.listToolCallIds(source).forEach((id, i) => ownIndex.set(id, i));
    return { startCount, startFinished, ownIndex };
  }

  /**
   * The results recorded for `key` in the order the source's timeline got them — the start records first, then
   * the source's own calls — and how many of them had been used at the fork point (a call begun but unfinished
   * there is answered by the fork). Undefined when a record is not where the order of the calls says (a ledger
   * written otherwise).
   */
  private timelineOf(
    key: string,
    own: readonly ToolCallRecord[],
  ): { recorded: ToolCallRecord[]; used: number } | undefined {
    const layout = (this.layout ??= this.layoutOf());
    const inherited = (layout.startFinished.get(key) ?? []).map((at) => this.before[at] as ToolCallRecord);
    let used = inherited.length;
    for (const call of own) {
      const j = layout.ownIndex.get(call.toolCallId);
      if (j === undefined) return undefined;
      const at = layout.startCount + j;
      if (at >= this.before.length) continue; // begun after the fork point
      const r = itemFacts(this.before[at] as ToolCallRecord);
      if (r.toolCallId !== call.toolCallId) return undefined;
      if (r.endedAt !== undefined) used++;
    }
    return { recorded: [...inherited, ...own], used };
  }

  /** The recorded answer for this call (reuse_result); CassetteMiss naming the tool and hash when there is none. */
  reuse(toolName: string, args: unknown): CassetteAnswer {
    const hash = argsHash(args);
    const key = keyOf(toolName, hash);
    const finished = (runIds: readonly string[]) =>
      runIds.length === 0
        ? []
        : this.store.findToolCalls(runIds, toolName, hash).filter((r) => r.endedAt !== undefined);
    let entry = this.answers.get(key);
    if (!entry) {
      // The source run's own calls (asked apart: nothing else of the run is read), and what it inherited.
      const own = finished(this.lineage.slice(0, 1));
      const timeline = this.timelineOf(key, own);
      const recorded = timeline && timeline.recorded.length > 0 ? timeline.recorded : undefined;
      // Without a recording in the timeline: the ancestors' calls after their fork points, oldest first.
      entry = recorded
        ? { recorded, used: timeline?.used ?? 0 }
        : { recorded: [...own, ...finished(this.lineage.slice(1))], used: timeline ? 0 : this.countAll(key) };
      this.answers.set(key, entry);
    }
    if (entry.recorded.length === 0) {
      throw new OcdbError(
        'CassetteMiss',
        `No recorded result for ${toolName} with argsHash ${hash} in ${this.lineage.join(' <- ')}: the fork called it with arguments the recording never saw. Map ${toolName} to mock_result (with toolMockResults) or run the fork with the agent program.`,
        { toolName, argsHash: hash, args, lineage: this.lineage },
      );
    }
    const n = entry.used++;
    return recordedOutcome(entry.recorded[Math.min(n, entry.recorded.length - 1)] as ToolCallRecord);
  }

  /** The recorded results of each key asked for, and how many the timeline has used so far. */
  private readonly answers = new Map<string, { recorded: ToolCallRecord[]; used: number }>();

  /** The finished records with `key` in the whole ledger at the fork point (when it was written otherwise). */
  private countAll(key: string): number {
    let n = 0;
    for (const record of this.before) {
      const r = itemFacts(record) as Pick<ToolCallRecord, 'endedAt' | 'toolName' | 'argsHash'>;
      if (r.endedAt !== undefined && keyOf(r.toolName, r.argsHash) === key) n++;
    }
    return n;
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

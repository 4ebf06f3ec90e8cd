/**
 * Ledger: the tool ledger of a RunTimeline (runTimeline.ts) — its records by id, found without reading a long
 * inherited ledger, and the sealed snapshot each checkpoint takes, updated in place. Pure: no I/O.
 */
import type { ToolCallRecord } from '../model';
import { isStoredItem, itemFacts, sealList, updateInPlace } from '../store';
import { deepFreeze } from './sealed';

/**
 * The ledger of a timeline: the records it started with (a fork's inherited ledger, a resumed run's last
 * snapshot — stored items, read only when looked into) in their order, a record set again for one of their ids
 * in its place, and the records added since, in the order they were begun. An id among the start records is found
 * by a search from the end, reading only each record's inline fields (itemFacts): the calls a fork finishes are
 * the last ones begun, and a long inherited ledger is not read to write the next checkpoint. The snapshot a
 * checkpoint takes is a sealed list, updated in place from the previous one (store `updateInPlace`) when only its
 * end changed, so the store finds the records it shares by identity, not by comparing them, and a change costs
 * the records changed, not a copy of the ledger.
 */
export class Ledger {
  private readonly items: ToolCallRecord[];
  private readonly startLength: number;
  /** Positions of start records by id, for the ones searched so far (from the end). */
  private readonly startIndex = new Map<string, number>();
  /** Start records before this position have not been searched. */
  private unsearched: number;
  /** Positions of the records added since the start. */
  private readonly addedIndex = new Map<string, number>();
  private snapshot: readonly ToolCallRecord[] | undefined;
  /** The first position changed since `snapshot` was taken. */
  private dirtyFrom = Infinity;

  constructor(start: readonly ToolCallRecord[], ids?: readonly (string | undefined)[]) {
    this.items = start.map((r) => (isStoredItem(r) ? r : deepFreeze(r)));
    this.startLength = this.items.length;
    this.unsearched = this.startLength;
    if (ids && ids.length === this.startLength) {
      // The ids by position are known (a writer letting go of its history, the calls of a run's lineage) from the
      // end back to the last hole: only the records before it are searched (none when there is no hole).
      let at = ids.length - 1;
      for (; at >= 0; at--) {
        const id = ids[at];
        if (id === undefined) break;
        if (!this.startIndex.has(id)) this.startIndex.set(id, at);
      }
      this.unsearched = at + 1;
    }
  }

  /** The id of each record by position, when every position is known without reading a record; else undefined. */
  ids(): string[] | undefined {
    if (this.unsearched > 0) return undefined;
    const out = new Array<string>(this.items.length);
    for (const [id, at] of this.startIndex) out[at] = id;
    for (const [id, at] of this.addedIndex) out[at] = id;
    for (let at = 0; at < out.length; at++) if (out[at] === undefined) return undefined;
    return out;
  }

  private positionOf(id: string): number | undefined {
    const added = this.addedIndex.get(id);
    if (added !== undefined) return added;
    const known = this.startIndex.get(id);
    if (known !== undefined || this.unsearched === 0) return known;
    while (this.unsearched > 0) {
      const at = --this.unsearched;
      const found = itemFacts(this.items[at] as ToolCallRecord).toolCallId as string;
      if (!this.startIndex.has(found)) this.startIndex.set(found, at);
      if (found === id) return at;
    }
    return undefined;
  }

  get(id: string): ToolCallRecord | undefined {
    const at = this.positionOf(id);
    return at === undefined ? undefined : this.items[at];
  }

  /** Sets the record of its id (in place when the id is known, else at the end); returns how to undo it. */
  set(record: ToolCallRecord): () => void {
    const id = record.toolCallId;
    const at = this.positionOf(id);
    this.dirtyFrom = Math.min(this.dirtyFrom, at ?? this.items.length);
    if (at !== undefined) {
      const had = this.items[at] as ToolCallRecord;
      this.items[at] = record;
      return () => {
        this.items[at] = had;
        this.snapshot = undefined;
      };
    }
    this.addedIndex.set(id, this.items.length);
    this.items.push(record);
    return () => {
      this.items.pop();
      this.addedIndex.delete(id);
      this.snapshot = undefined;
    };
  }

  /**
   * Every record, oldest first (start records first), as a sealed list: do not mutate it, and do not keep it past
   * the checkpoint it is taken for — the next change updates it in place (store `updateInPlace`: a long ledger is
   * not copied at every call begun or finished). `RunTimeline.ledger` hands out a copy.
   */
  all(): readonly ToolCallRecord[] {
    if (!this.snapshot) this.snapshot = sealList(this.items.slice());
    else if (this.dirtyFrom < this.items.length || this.snapshot.length !== this.items.length) {
      const from = Math.min(this.dirtyFrom, this.snapshot.length, this.items.length);
      this.snapshot = updateInPlace(this.snapshot as ToolCallRecord[], from, this.items, from);
    }
    this.dirtyFrom = Infinity;
    return this.snapshot;
  }
}

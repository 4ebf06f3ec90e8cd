/**
 * Reading a run's checkpoints for a copy into another store (RunStore.exportCheckpoints: `ocdb push` / `pull`, a
 * team store's copy, `ocdb export`): whole checkpoints whose items are the same objects wherever the run repeats
 * them, read and validated once per content, so neither side pays for what every checkpoint repeats.
 */
import { OcdbError, type Checkpoint, type Message, type ToolCallRecord } from '../model';
import { CHECKPOINT_AT, type CheckpointTable } from './checkpointTable';
import type { StoreContext } from './storeContext';

export class CheckpointExport {
  constructor(
    private readonly ctx: StoreContext,
    private readonly table: CheckpointTable,
  ) {}

  /**
   * What a copy of a run has read (exportBatch): its items by list and hash (one object per content for the whole
   * copy), and the last list of each kind (the next checkpoint's shares its prefix: found by walking up the nodes).
   */
  private copying:
    | { runId: string; items: Map<string, object>; last: Record<'m' | 'l', { node: number; items: object[] }> }
    | undefined;

  /**
   * Checkpoints `from` … `to - 1` of a run, whole, as a copy into another store reads them (RunStore
   * exportCheckpoints): each its row (answered from the batch read ahead on PostgreSQL: runReadAhead.ts) and head,
   * its lists' items validated and deep-frozen once per content and the same objects in every checkpoint that holds
   * them, for the run's whole copy (a batch from index 0 starts one); a list continuing the one before is that
   * one's items and its new ones. The target then knows two checkpoints' shared prefix by identity: a copy costs the
   * items the run holds, not the items every checkpoint repeats.
   */
  exportBatch(runId: string, from: number, to: number): Checkpoint[] {
    if (from === 0 || this.copying?.runId !== runId) {
      this.copying = { runId, items: new Map(), last: { m: { node: 0, items: [] }, l: { node: 0, items: [] } } };
    }
    const { items, last } = this.copying;
    const content = this.ctx.content;
    const listOf = (kind: 'm' | 'l', node: number, length: number, read: (hash: string, i: number) => object) => {
      const before = last[kind];
      const shared =
        before.items.length > 0 && length > 0
          ? content.commonPrefix(before.node, before.items.length, node, length)
          : 0;
      const out = before.items.slice(0, shared);
      const at = content.listReader(node, length);
      for (let i = shared; i < length; i++) {
        const hash = at(i) as string;
        let item = items.get(kind + hash);
        if (!item) items.set(kind + hash, (item = read(hash, i)));
        out.push(item);
      }
      last[kind] = { node, items: out };
      return out;
    };
    const out: Checkpoint[] = [];
    for (let index = from; index < to; index++) {
      const row = this.ctx.sql(CHECKPOINT_AT).get(runId, index);
      if (!row) {
        this.ctx.requireRunRow(runId);
        throw new OcdbError('CheckpointNotFound', `Run ${runId} has no checkpoint at index ${index}.`, {
          runId,
          index,
        });
      }
      const { cp, where } = this.table.head(row);
      cp.messages = listOf('m', Number(row.messages_node), Number(row.message_count), (h, i) =>
        this.table.item('messages', h, where, i),
      ) as Message[];
      cp.toolLedgerSnapshot = listOf('l', Number(row.ledger_node), Number(row.ledger_count), (h, i) =>
        this.table.item('toolLedgerSnapshot', h, where, i),
      ) as ToolCallRecord[];
      out.push(cp);
    }
    return out;
  }
}

/**
 * Lists as hash-consed chains of `list_nodes` (parent, item): lists that share a prefix share its rows, and a
 * checkpoint refers to its messages and ledger by a node id. A list continuing the last one written under the same
 * key (a run's messages) finds the shared prefix by identity of deep-frozen items (immutableValues.ts), so only new
 * items are validated, stored and linked; reads walk up from a node, from the end on demand (listReader).
 */
import type { SqlDriver, SqlStatement } from './sqlDriver';
import { hashKey, hashOf } from './blobCodec';
import { isDeepFrozen, sameValue, snapshot } from './immutableValues';
import { extensionOf, isSealedList, settleList } from './listIdentity';
import { recordCallId } from './itemParts';
import { Lru } from './lru';
import { isStoredItem } from './storedItems';

/** The id of the empty list. */
export const EMPTY_LIST = 0;

/** Items this close to a list's end are found by walking up from it; further back, the whole chain is read. */
const SUFFIX_WALK = 256;

/**
 * The last list written for one key, to find the shared prefix fast: the
 * caller's items (for the identity fast path), whether each was deep-frozen
 * when it was written (a frozen object cannot change, so the same object is
 * the same value: one pointer comparison), private structural copies of the
 * others (compared field by field) and the node ids of each prefix. Updated in
 * place: an append costs O(new items), not a copy of the whole memo.
 */
interface ListMemo {
  originals: unknown[];
  frozen: boolean[];
  values: unknown[];
  /** The node of each prefix; a hole where a list adopted from another (`seedList`) has not been walked yet. */
  nodes: number[];
  /** The list last written (or adopted) under this key, as the caller passed it. */
  lastRaw?: readonly unknown[];
}

/** Validates (and normalises) one new item of a list; gets its index for located errors. */
export type ItemParser = (raw: unknown, index: number) => unknown;

export class ListNodes {
  private readonly selectNode: SqlStatement;
  private readonly findNode: SqlStatement;
  private readonly insertNode: SqlStatement;
  private readonly chainCache = new Lru<number, readonly string[]>(512);
  /** For list nodes read: the list read that holds each (its tail node) and the node's length there. */
  private readonly nodeOwner = new Map<number, { tail: number; length: number }>();
  private readonly memos = new Map<string, ListMemo>();

  /**
   * Engines whose node ids are taken ahead (EngineTraits.nodeIdBlock): the nodes this transaction added (nobody
   * else sees them before it commits, so nobody else adds a node under one), and their children by (parent, item).
   */
  private readonly fresh:
    | {
        nodes: Set<number>;
        children: Map<string, number>;
        spare: number[];
        block: SqlStatement;
        insert: SqlStatement;
      }
    | undefined;

  /**
   * `putItem` stores one item and answers its hash; `getValue` reads one back (ContentStore). `nodeIdBlock`: the
   * engine's query for a block of node ids (EngineTraits.nodeIdBlock), if it takes them ahead.
   */
  constructor(
    db: SqlDriver,
    private readonly putItem: (value: unknown) => string,
    private readonly getValue: (hash: string) => unknown,
    nodeIdBlock?: string,
  ) {
    if (nodeIdBlock !== undefined) {
      this.fresh = {
        nodes: new Set(),
        children: new Map(),
        spare: [],
        block: db.prepare(nodeIdBlock, { volatile: true }),
        insert: db.prepare('INSERT INTO list_nodes (id, parent, item, len) VALUES (?, ?, ?, ?)'),
      };
    }
    this.selectNode = db.prepare('SELECT parent, item FROM list_nodes WHERE id = ?', { readAhead: 'listNodeChain' });
    this.findNode = db.prepare('SELECT id FROM list_nodes WHERE parent = ? AND item = ?');
    // Inserted first, looked up only when it was there already: a new item's node (nearly every one a writer puts)
    // costs one statement, not a look-up and then an insert.
    this.insertNode = db.prepare('INSERT OR IGNORE INTO list_nodes (parent, item, len) VALUES (?, ?, ?)', {
      returnsId: 'id',
    });
  }

  /**
   * Stores a list of values as a chain of nodes and returns the last node's id.
   * `memoKey` names the sequence this list continues (e.g. a run's messages):
   * the shared prefix with the previous list of that key is found by
   * identity (deep-frozen items) or structural comparison against a private
   * copy, so only new items are validated (`parseItem`), serialized, hashed
   * and written.
   */
  putList(raw: readonly unknown[], memoKey?: string, parseItem?: ItemParser): number {
    let memo = memoKey ? this.memos.get(memoKey) : undefined;
    let shared = 0;
    let node = EMPTY_LIST;
    const last = memo?.lastRaw;
    const extension = extensionOf(raw);
    // changed in place since it was written (updateInPlace): the same list, but not the same items
    const inPlace = extension?.base === raw;
    if (memo && last && raw === last && isSealedList(raw) && !inPlace && memo.nodes.length === raw.length) {
      // The same sealed list as last time (state carried over): nothing to compare.
      return raw.length === 0 ? EMPTY_LIST : this.prefixNode(memo, raw.length);
    }
    if (memo && last && extension?.base === last && isSealedList(last) && extension.keep <= memo.nodes.length) {
      // The last (sealed) list with new items after its first `keep` ones: those are shared, without a comparison.
      shared = extension.keep;
      if (shared > 0) node = this.prefixNode(memo, shared);
      memo.originals.length = shared;
      memo.frozen.length = shared;
      memo.values.length = shared;
      memo.nodes.length = shared;
    } else if (memo) {
      const { originals, frozen, values } = memo;
      const max = Math.min(originals.length, raw.length);
      while (shared < max) {
        const item = raw[shared];
        if (item !== originals[shared] || !frozen[shared]) {
          // Not the same frozen object: compare with the private copy, and remember this item for next time.
          if (!sameValue(values[shared], item)) break;
          const isFrozen = isDeepFrozen(item);
          originals[shared] = item;
          frozen[shared] = isFrozen;
          if (isFrozen) values[shared] = item;
        }
        shared++;
      }
      // Before the memo is cut to the shared prefix: a hole there is filled from a node after it.
      if (shared > 0) node = this.prefixNode(memo, shared);
      originals.length = shared;
      frozen.length = shared;
      values.length = shared;
      memo.nodes.length = shared;
    } else if (memoKey) {
      memo = { originals: [], frozen: [], values: [], nodes: [] };
      this.memos.set(memoKey, memo);
    }
    for (let i = shared; i < raw.length; i++) {
      const value = parseItem ? parseItem(raw[i], i) : raw[i];
      const hash = this.putItem(value);
      node = this.nodeOf(node, hash, i + 1, isCallRecord(value));
      if (memo) {
        const item = raw[i];
        const isFrozen = isDeepFrozen(item);
        memo.nodes.push(node);
        memo.originals.push(item);
        memo.frozen.push(isFrozen);
        memo.values.push(isFrozen ? item : snapshot(value));
      }
    }
    if (memo) memo.lastRaw = raw;
    if (inPlace) settleList(raw);
    return node;
  }

  /**
   * Makes `memoKey` continue the list ending at `node` (another run's, e.g. a fork's source checkpoint), whose
   * items are `items` — the caller's word, e.g. they were read from that list — so the next putList of `memoKey`
   * reuses its nodes for the items it shares with `items` by identity, without hashing them. The items must be
   * deep-frozen (a mutable one could change before the next putList): the writer's are (sealed copies, frozen
   * records). Only the top level is checked here — a deep walk of a long conversation is what this saves — and
   * a list with an item that is not frozen is not adopted.
   */
  seedList(memoKey: string, items: readonly unknown[], node: number, length = items.length): void {
    const frozen = (item: unknown) => typeof item !== 'object' || isStoredItem(item) || Object.isFrozen(item);
    // `length`: the node's items are the list's first ones (a list grown in place since: updateInPlace)
    const own = length === items.length ? items : items.slice(0, length);
    if (own.length === 0 || !own.every(frozen)) return;
    const nodes = new Array<number>(own.length);
    nodes[own.length - 1] = node;
    this.memos.set(memoKey, {
      originals: [...own],
      frozen: own.map(() => true),
      values: [...own],
      nodes,
      ...(isSealedList(items) ? { lastRaw: items } : {}),
    });
  }

  /** Set while nodes are taken as new (takeNewNodes). */
  private newNodes = false;

  /**
   * Until the returned function is called, a node under a node another transaction added (not the empty list's,
   * unless its item is a tool call's ledger record) is taken as new as well: its id from the block taken ahead, a plain INSERT sent with the transaction's next read or
   * COMMIT, no round trip. A continuation of a run's lists (a shipped run's next checkpoints) adds nodes under its
   * last ones that no other list has, nearly always; when one had it after all, the unique (parent, item) index
   * fails the INSERT and the whole transaction with it (nothing half-written), and the caller writes it again
   * without this (RunContinuer). Engines that answer a node's id at once (SQLite): nothing changes.
   */
  takeNewNodes(): () => void {
    const was = this.newNodes;
    this.newNodes = this.fresh !== undefined;
    return () => {
      this.newNodes = was;
    };
  }

  /** True while the list last written under `memoKey` is known here (see putList). */
  knowsList(memoKey: string): boolean {
    return this.memos.has(memoKey);
  }

  /** The id of the list node (`parent`, `hash`) of `length` items: inserted, or the one there (hash-consed). */
  private nodeOf(parent: number, hash: string, length: number, callRecord: boolean): number {
    const item = hashKey(hash);
    const fresh = this.fresh;
    // the empty list's children are shared by every list that starts alike (a common first prompt), except a
    // ledger's first record: it names the run's own call (its first call finished since the copy: a new record)
    if (fresh && (fresh.nodes.has(parent) || (this.newNodes && (parent !== EMPTY_LIST || callRecord)))) {
      // under a node this transaction added: only this transaction can have added (parent, item), so its id is
      // known here and the INSERT goes with the transaction's next read or COMMIT (a plain INSERT: a conflict
      // would be a bug, not a race; or, while nodes are taken as new, a node there after all: takeNewNodes)
      const key = `${parent}\u0000${hash}`;
      const known = fresh.children.get(key);
      if (known !== undefined) return known;
      if (fresh.spare.length === 0)
        fresh.spare = fresh.block
          .all(512)
          .map((r) => Number(r.id))
          .reverse();
      const id = fresh.spare.pop() as number;
      fresh.insert.run(id, parent, item, length);
      fresh.nodes.add(id);
      fresh.children.set(key, id);
      return id;
    }
    const inserted = this.insertNode.run(parent, item, length);
    if (inserted.changes === 1) {
      const id = Number(inserted.lastInsertRowid);
      fresh?.nodes.add(id);
      return id;
    }
    const found = this.findNode.get(parent, item);
    if (!found) throw new Error(`list node (${parent}, ${hash}) was neither inserted nor found`);
    return Number(found.id);
  }

  /** The node of the first `length` items of a memo's list (walking up from the next known node over a hole). */
  private prefixNode(memo: ListMemo, length: number): number {
    const known = memo.nodes[length - 1];
    if (known !== undefined) return known;
    let at = length;
    while (at < memo.nodes.length && memo.nodes[at] === undefined) at++;
    let node = memo.nodes[at] as number;
    for (; at >= length; at--) {
      const row = this.selectNode.get(node);
      if (!row) throw new Error(`list node ${node} is missing from the store`);
      node = Number(row.parent);
      memo.nodes[at - 1] = node;
    }
    return node;
  }

  /**
   * How many leading items the lists ending at `a` (of `lengthA` items) and `b` share: both are walked up to
   * their common ancestor (hash-consed nodes: the same prefix is the same node), so it costs the items they do
   * not share, not their length.
   */
  commonPrefix(a: number, lengthA: number, b: number, lengthB: number): number {
    const up = (node: number): number => {
      const row = this.selectNode.get(node);
      if (!row) throw new Error(`list node ${node} is missing from the store`);
      return Number(row.parent);
    };
    while (lengthA > lengthB) {
      a = up(a);
      lengthA--;
    }
    while (lengthB > lengthA) {
      b = up(b);
      lengthB--;
    }
    while (a !== b) {
      a = up(a);
      b = up(b);
      lengthA--;
    }
    return lengthA;
  }

  /**
   * The item hashes of `node`'s list when no walk is needed: cached, or a prefix of a list read before that holds
   * the node (stepping back, reverse continue).
   */
  private knownChain(node: number): readonly string[] | undefined {
    const cached = this.chainCache.get(node);
    if (cached) return cached;
    const owner = this.nodeOwner.get(node);
    const ownerChain = owner === undefined ? undefined : this.chainCache.get(owner.tail);
    if (!owner || !ownerChain || ownerChain.length < owner.length) return undefined;
    const prefix = ownerChain.slice(0, owner.length);
    this.chainCache.set(node, prefix);
    return prefix;
  }

  /** The item hashes of the list ending at `node`, first to last. */
  listHashes(node: number): readonly string[] {
    if (node === EMPTY_LIST) return [];
    const cached = this.knownChain(node);
    if (cached) return cached;
    const suffix: string[] = [];
    const suffixNodes: number[] = [];
    let cur = node;
    let prefix: readonly string[] = [];
    let parent: number | undefined;
    while (cur !== EMPTY_LIST) {
      const hit = this.knownChain(cur);
      if (hit) {
        prefix = hit;
        break;
      }
      const row = this.selectNode.get(cur);
      if (!row) throw new Error(`list node ${cur} is missing from the store`);
      suffix.push(hashOf(row.item));
      suffixNodes.push(cur);
      cur = Number(row.parent);
      parent ??= cur;
    }
    suffix.reverse();
    const all = prefix.length > 0 ? prefix.concat(suffix) : suffix;
    this.chainCache.set(node, all);
    // Where each node read sits in this list, so reading an ancestor later takes a prefix instead of a walk.
    if (this.nodeOwner.size > 2_000_000) this.nodeOwner.clear();
    suffixNodes.forEach((n, j) => this.nodeOwner.set(n, { tail: node, length: all.length - j }));
    // The parent too: the next list of a ledger replaces its last record (a finished call), so it grows from
    // this list's parent, not from this list — without it each such read would walk the whole chain again.
    if (parent !== undefined && parent !== EMPTY_LIST && !this.chainCache.get(parent)) {
      this.chainCache.set(parent, all.slice(0, -1));
    }
    return all;
  }

  /**
   * The item hashes of the list ending at `node` (of `length` items) by index, read from the end on demand: an
   * item near the end costs the nodes after it, one further back the walk of the whole chain (once; listHashes).
   * What a view of a late checkpoint costs is then what is read of it, not the length of its lists.
   */
  listReader(node: number, length: number): (index: number) => string | undefined {
    let full = this.knownChain(node);
    const suffix: string[] = []; // suffix[k]: the hash of item length - 1 - k
    let frontier = node;
    return (index) => {
      if (index < 0 || index >= length) return undefined;
      if (full) return full[index];
      const k = length - 1 - index;
      if (k >= SUFFIX_WALK) {
        full = this.listHashes(node);
        return full[index];
      }
      while (suffix.length <= k) {
        const row = this.selectNode.get(frontier);
        if (!row) throw new Error(`list node ${frontier} is missing from the store`);
        suffix.push(hashOf(row.item));
        frontier = Number(row.parent);
      }
      return suffix[k];
    };
  }

  /** The values of the list ending at `node`, freshly parsed (callers may mutate them). */
  getList(node: number): unknown[] {
    return this.listHashes(node).map((h) => this.getValue(h));
  }

  /** The transaction ended: the nodes it added are everyone's now (others may add nodes under them). */
  transactionEnded(): void {
    this.fresh?.nodes.clear();
    this.fresh?.children.clear();
  }

  /** Forgets the list memos and chains read (after garbage collection or a failed transaction). */
  forget(): void {
    this.transactionEnded();
    this.memos.clear();
    this.nodeOwner.clear();
    this.chainCache.clear();
  }

  /** Forgets the list last written under `memoKey`. */
  forgetMemo(memoKey: string): void {
    this.memos.delete(memoKey);
  }
}

/** A tool call's ledger record (itemParts.recordCallId): its id is its run's own. */
function isCallRecord(value: unknown): boolean {
  return typeof value === 'object' && value !== null && recordCallId(value as Record<string, unknown>) !== undefined;
}

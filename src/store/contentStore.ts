/**
 * Content-addressed storage inside the run store: `blobs` keyed by the hash
 * of their canonical JSON, and hash-consed `list_nodes` (parent, item) so
 * lists that share a prefix share its rows. Reads are cached: blobs and nodes
 * are immutable once written, so a cache entry can never go stale.
 */
import { canonicalJson, contentHash } from '../model';
import type { SqlDriver, SqlStatement } from './sqlDriver';

/** The id of the empty list. */
export const EMPTY_LIST = 0;

/** A small LRU map. */
class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }
  clear(): void {
    this.map.clear();
  }
}

/**
 * The last list written for one key, to find the shared prefix fast: the
 * caller's items (for the identity fast path), private structural copies of
 * them (for everything else) and the node ids of each prefix.
 */
interface ListMemo {
  originals: readonly unknown[];
  values: readonly unknown[];
  nodes: number[];
}

const deepFrozen = new WeakSet<object>();

/** True when nothing in `value` can change any more (cached: a frozen object stays frozen). */
function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (deepFrozen.has(value)) return true;
  if (!Object.isFrozen(value)) return false;
  for (const v of Object.values(value)) if (!isDeepFrozen(v)) return false;
  deepFrozen.add(value);
  return true;
}

/** Validates (and normalises) one new item of a list; gets its index for located errors. */
export type ItemParser = (raw: unknown, index: number) => unknown;

/** A private structural copy that shares the (immutable) strings: cheap, and safe from later mutation by the caller. */
function snapshot(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(snapshot);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = snapshot(v);
  return out;
}

/**
 * Structural equality that costs O(nodes), not O(bytes), when the two values
 * share their strings (JS strings are immutable, and zod passes them through
 * unchanged, so an unchanged message compares by pointer).
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

export class ContentStore {
  private readonly insertBlob: SqlStatement;
  private readonly selectBlob: SqlStatement;
  private readonly selectNode: SqlStatement;
  private readonly findNode: SqlStatement;
  private readonly insertNode: SqlStatement;
  private readonly textCache = new Lru<string, string>(20_000);
  private readonly chainCache = new Lru<number, readonly string[]>(512);
  private readonly memos = new Map<string, ListMemo>();

  constructor(db: SqlDriver) {
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)');
    this.selectBlob = db.prepare('SELECT data FROM blobs WHERE hash = ?');
    this.selectNode = db.prepare('SELECT parent, item FROM list_nodes WHERE id = ?');
    this.findNode = db.prepare('SELECT id FROM list_nodes WHERE parent = ? AND item = ?');
    this.insertNode = db.prepare('INSERT INTO list_nodes (parent, item, len) VALUES (?, ?, ?)');
  }

  /** Stores `value` once; returns its hash. Call inside a write transaction. */
  putValue(value: unknown): string {
    return this.putText(canonicalJson(value));
  }

  putText(text: string): string {
    const hash = contentHash(text);
    this.insertBlob.run(hash, text);
    return hash;
  }

  getText(hash: string): string {
    const cached = this.textCache.get(hash);
    if (cached !== undefined) return cached;
    const row = this.selectBlob.get(hash);
    if (!row) throw new Error(`blob ${hash} is missing from the store`);
    const text = String(row.data);
    this.textCache.set(hash, text);
    return text;
  }

  getValue(hash: string): unknown {
    return JSON.parse(this.getText(hash));
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
    const memo = memoKey ? this.memos.get(memoKey) : undefined;
    let shared = 0;
    if (memo) {
      const max = Math.min(memo.values.length, raw.length);
      while (shared < max) {
        const item = raw[shared];
        // The same deep-frozen object cannot have changed; anything else is compared with the private copy.
        const same = (item === memo.originals[shared] && isDeepFrozen(item)) || sameValue(memo.values[shared], item);
        if (!same) break;
        shared++;
      }
    }
    const nodes = memo ? memo.nodes.slice(0, shared) : [];
    const originals = memo ? memo.originals.slice(0, shared) : [];
    const kept = memo ? memo.values.slice(0, shared) : [];
    let node = shared > 0 ? (nodes[shared - 1] as number) : EMPTY_LIST;
    for (let i = shared; i < raw.length; i++) {
      const value = parseItem ? parseItem(raw[i], i) : raw[i];
      const hash = this.putValue(value);
      const found = this.findNode.get(node, hash);
      node = found ? Number(found.id) : Number(this.insertNode.run(node, hash, i + 1).lastInsertRowid);
      nodes.push(node);
      if (memoKey) {
        originals.push(raw[i]);
        kept.push(snapshot(value));
      }
    }
    if (memoKey) this.memos.set(memoKey, { originals, values: kept, nodes });
    return node;
  }

  /** The item hashes of the list ending at `node`, first to last. */
  listHashes(node: number): readonly string[] {
    if (node === EMPTY_LIST) return [];
    const cached = this.chainCache.get(node);
    if (cached) return cached;
    const suffix: string[] = [];
    let cur = node;
    let prefix: readonly string[] = [];
    while (cur !== EMPTY_LIST) {
      const hit = this.chainCache.get(cur);
      if (hit) {
        prefix = hit;
        break;
      }
      const row = this.selectNode.get(cur);
      if (!row) throw new Error(`list node ${cur} is missing from the store`);
      suffix.push(String(row.item));
      cur = Number(row.parent);
    }
    suffix.reverse();
    const all = prefix.length > 0 ? prefix.concat(suffix) : suffix;
    this.chainCache.set(node, all);
    return all;
  }

  /** The values of the list ending at `node`, freshly parsed (callers may mutate them). */
  getList(node: number): unknown[] {
    return this.listHashes(node).map((h) => this.getValue(h));
  }

  /** Forget list memos (after garbage collection or a failed transaction). */
  forgetMemos(): void {
    this.memos.clear();
    this.chainCache.clear();
  }

  forgetMemo(memoKey: string): void {
    this.memos.delete(memoKey);
  }
}

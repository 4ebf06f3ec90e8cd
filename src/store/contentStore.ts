/**
 * Content-addressed storage inside the run store: `blobs` keyed by the hash
 * of their canonical JSON, and hash-consed `list_nodes` (parent, item) so
 * lists that share a prefix share its rows. Reads are cached: blobs and nodes
 * are immutable once written, so a cache entry can never go stale.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { artifactContentHash, canonicalJson, contentHash, isTextContent } from '../model';
import type { SqlDriver, SqlStatement } from './sqlDriver';
import { extensionOf, isSealedList } from './listIdentity';
import { isStoredItem } from './storedItems';

/** The id of the empty list. */
export const EMPTY_LIST = 0;

/**
 * A list item's member (or an element of a member array) whose canonical JSON is at least this long is stored as
 * a blob of its own and referred to by hash (schema 4, `blobs.refs`): a tool result that is the `content` of the
 * tool message, the `result` of the ledger record and the call's `result_ref` is then one blob, not three.
 */
export const SHARED_PART_MIN = 512;

/** Blob texts at least this long are stored deflated (a BLOB in `blobs.data`) when that saves a tenth or more. */
export const COMPRESS_MIN = 256;

/** Items this close to a list's end are found by walking up from it; further back, the whole chain is read. */
const SUFFIX_WALK = 256;

/** How many texts just written stay readable without a read (see ContentStore.written). */
const RECENT_WRITES = 16;

/**
 * What `blobs.data` holds for `text`: the text itself, or its raw deflate when that is worth it. `bytesOnly` (an
 * engine whose columns hold one type, PostgreSQL): always the deflate.
 */
function encodeData(text: string, bytesOnly = false): string | Buffer {
  if (text.length < COMPRESS_MIN && !bytesOnly) return text;
  const packed = deflateRawSync(text, { level: 4, windowBits: windowBitsFor(text) });
  return bytesOnly || packed.length <= Buffer.byteLength(text) * 0.9 ? packed : text;
}

/**
 * The smallest deflate window that holds all of `text` (as zlib counts: the window less its 262-byte lookahead),
 * at most the default 15: the same compressed bytes as the default window (no match can reach further back than
 * the text's start), without allocating and clearing 64 KiB windows for every short text (issue 11 item 6, branch
 * i11import3). Inflating with the default window reads them.
 */
function windowBitsFor(text: string): number {
  const bytes = text.length * 3; // at most three UTF-8 bytes per UTF-16 unit: a bound, not a count
  let bits = 9;
  while (bits < 15 && (1 << bits) - 262 < bytes) bits++;
  return bits;
}

/** The text of a `blobs.data` cell: TEXT as it is (every blob of schema 3), a BLOB inflated. */
function decodeData(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return inflateRawSync(data).toString('utf8');
  return String(data);
}

/**
 * A content hash as the store's columns hold it (schema 6, branch i11schema): the bytes of its hex (16 for a
 * `contentHash`), not 32 characters of text — in `blobs.hash`, `list_nodes.item` and every column that refers to a
 * blob. Text that is not lowercase hex of even length names no blob: it becomes a key no blob has (empty).
 */
export function hashKey(hash: string): Buffer {
  return hash.length % 2 === 0 && HEX.test(hash) ? Buffer.from(hash, 'hex') : EMPTY_KEY;
}
const HEX = /^[0-9a-f]*$/;
const EMPTY_KEY = Buffer.alloc(0);

/** A hash column's value as the hash text everything above the store uses (lowercase hex). */
export function hashOf(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  return String(value);
}

/** A nullable hash column's value: undefined for NULL. */
export function hashOrUndefined(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : hashOf(value);
}

/** Where a member of a stored value sits: `[key]` or `[key, index]`. */
type PartPath = [string] | [string, number];

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

const deepFrozen = new WeakSet<object>();

/** True when nothing in `value` can change any more (cached: a frozen object stays frozen). */
export function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (deepFrozen.has(value) || isStoredItem(value)) return true;
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

/** A member of a list item as putItem writes it: its key's JSON, its canonical JSON (an array's by element). */
interface ItemPart {
  key: string;
  text: string;
  elements?: string[];
  /** What the item's inline text holds for it when it is stored apart (null, or its array with holes). */
  hole?: string;
}

/** The members of `record` that canonical JSON writes, in its (sorted) order, each serialised once. */
function itemParts(record: Record<string, unknown>): Map<string, ItemPart> {
  const parts = new Map<string, ItemPart>();
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    const part: ItemPart = { key: JSON.stringify(key), text: '' };
    if (Array.isArray(member) && typeof (member as { toJSON?: unknown }).toJSON !== 'function') {
      const elements: string[] = new Array<string>(member.length);
      for (let i = 0; i < member.length; i++) elements[i] = canonicalJson(member[i]);
      part.elements = elements;
      part.text = `[${elements.join(',')}]`;
    } else part.text = canonicalJson(member);
    parts.set(key, part);
  }
  return parts;
}

/** canonicalJson of the item of `parts` (`holed`: with each member stored apart written as its hole). */
function joinParts(parts: Map<string, ItemPart>, holed = false): string {
  let out = '{';
  let first = true;
  for (const part of parts.values()) {
    out += `${first ? '' : ','}${part.key}:${holed && part.hole !== undefined ? part.hole : part.text}`;
    first = false;
  }
  return `${out}}`;
}

export class ContentStore {
  private readonly insertBlob: SqlStatement;
  private readonly selectBlob: SqlStatement;
  private readonly hasBlob: SqlStatement;
  private readonly insertBlobWithRefs: SqlStatement;
  private readonly selectNode: SqlStatement;
  private readonly findNode: SqlStatement;
  private readonly insertNode: SqlStatement;
  private readonly textCache = new Lru<string, string>(20_000);
  /**
   * The last few texts written, by hash: a call's result is read back right after it is written (the record a
   * finish returns), and must not be inflated from the page it was just deflated to. Small, so an import of large
   * results does not keep them (the read cache is not filled by writes).
   */
  private readonly written = new Lru<string, string>(RECENT_WRITES);
  /**
   * The hashes of the last few large texts put, by text: a tool result is put as the call's result, then as a
   * member of its tool message and of its ledger record — hashed once, not three times (issue 11 item 6, branch
   * i11import3). A hash depends on the text alone, so an entry never goes stale (a rollback does not touch it).
   */
  private readonly hashes: { text: string; hash: string }[] = [];
  private nextHash = 0;
  private readonly chainCache = new Lru<number, readonly string[]>(512);
  /** Rows of blobs with refs (their inline text): a record read again is put together without a read. */
  private readonly rowCache = new Lru<string, { text: string; refs: [PartPath, string][] | undefined }>(20_000);
  /** For list nodes read: the list read that holds each (its tail node) and the node's length there. */
  private readonly nodeOwner = new Map<number, { tail: number; length: number }>();
  private readonly memos = new Map<string, ListMemo>();
  private readonly valueMemos = new Map<string, { value: unknown; hash: string }>();

  /** Blob data always bytes (SqlDriver.strictColumnTypes). */
  private readonly bytesOnly: boolean;

  constructor(db: SqlDriver) {
    this.bytesOnly = db.strictColumnTypes === true;
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)');
    this.selectBlob = db.prepare('SELECT data, refs FROM blobs WHERE hash = ?');
    this.hasBlob = db.prepare('SELECT 1 AS x FROM blobs WHERE hash = ?');
    this.insertBlobWithRefs = db.prepare('INSERT OR IGNORE INTO blobs (hash, data, refs) VALUES (?, ?, ?)');
    this.selectNode = db.prepare('SELECT parent, item FROM list_nodes WHERE id = ?');
    this.findNode = db.prepare('SELECT id FROM list_nodes WHERE parent = ? AND item = ?');
    this.insertNode = db.prepare('INSERT INTO list_nodes (parent, item, len) VALUES (?, ?, ?)');
  }

  /** Stores `value` once; returns its hash. Call inside a write transaction. */
  putValue(value: unknown): string {
    return this.putText(canonicalJson(value));
  }

  /**
   * putValue for a value that usually repeats under `memoKey` (a run's context, its system prompt): the same
   * deep-frozen object (or the same string) as last time is known by identity, without serialising or hashing it.
   */
  putValueMemo(value: unknown, memoKey: string): string {
    const memo = this.valueMemos.get(memoKey);
    if (memo && memo.value === value && isDeepFrozen(value)) return memo.hash;
    const hash = this.putValue(value);
    this.valueMemos.set(memoKey, { value, hash });
    return hash;
  }

  /** `contentHash(text)`, remembered for the last few large texts (see `hashes`). */
  private hashText(text: string): string {
    if (text.length < SHARED_PART_MIN) return contentHash(text);
    // A ring, not a Map: a lookup compares lengths, and only a text of the same length as a whole (no hashing).
    for (const known of this.hashes) if (known.text.length === text.length && known.text === text) return known.hash;
    const hash = contentHash(text);
    this.hashes[this.nextHash] = { text, hash };
    this.nextHash = (this.nextHash + 1) % RECENT_WRITES;
    return hash;
  }

  putText(text: string): string {
    const hash = this.hashText(text);
    // A blob worth deflating is looked up first: the same result arrives as the call's result and in its message.
    this.written.set(hash, text);
    if (text.length >= COMPRESS_MIN && this.hasBlob.get(hashKey(hash))) return hash;
    this.insertBlob.run(hashKey(hash), encodeData(text, this.bytesOnly));
    return hash;
  }

  /**
   * Stores a list item (a message, a ledger record) once: like putValue, with the same hash (of the whole
   * value's canonical JSON), but its large members — and the large elements of its member arrays — are blobs of
   * their own, so a tool result in the conversation, the ledger and the call's result is stored once.
   */
  putItem(value: unknown): string {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return this.putValue(value);
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return this.putValue(value);
    // Each member serialised once: the item's canonical JSON is put together from its members' (canonical JSON
    // is member by member), and so is the text with the large ones left out (issue 11 item 6, branch i11import3).
    const record = value as Record<string, unknown>;
    const parts = itemParts(record);
    const text = joinParts(parts);
    if (text.length < 2 * SHARED_PART_MIN) return this.putText(text);
    const hash = contentHash(text);
    this.written.set(hash, text);
    if (this.hasBlob.get(hashKey(hash))) return hash;
    const refs: [PartPath, string][] = [];
    // In the record's own key order (the order of `refs`, as before).
    for (const key of Object.keys(record)) {
      const part = parts.get(key);
      const member = record[key];
      if (!part || (typeof member !== 'object' && typeof member !== 'string')) continue;
      // An array's large elements first: a member holding one is large itself, and is then not stored whole.
      if (part.elements) {
        let holed: string[] | undefined;
        for (let i = 0; i < part.elements.length; i++) {
          const elementText = part.elements[i] as string;
          const element: unknown = (member as unknown[])[i];
          if (typeof element !== 'object' && typeof element !== 'string') continue;
          if (elementText.length < SHARED_PART_MIN) continue;
          refs.push([[key, i], this.putText(elementText)]);
          holed ??= [...part.elements];
          holed[i] = 'null';
        }
        if (holed) {
          part.hole = `[${holed.join(',')}]`;
          continue;
        }
      }
      if (part.text.length < SHARED_PART_MIN) continue;
      refs.push([[key], this.putText(part.text)]);
      part.hole = 'null';
    }
    if (refs.length === 0) this.insertBlob.run(hashKey(hash), encodeData(text, this.bytesOnly));
    else {
      const inline = joinParts(parts, true);
      this.insertBlobWithRefs.run(hashKey(hash), encodeData(inline, this.bytesOnly), JSON.stringify(refs));
    }
    return hash;
  }

  /**
   * Stores bytes (an artifact's content) once under `artifactContentHash(bytes)`; returns the hash. Text is stored as
   * a text blob — the same hash and row as `putText` of that text — and anything else as its raw deflate (a BLOB,
   * which `blobs.data` only ever holds deflated). Call inside a write transaction.
   */
  putBytes(bytes: Uint8Array): string {
    if (isTextContent(bytes)) return this.putText(Buffer.from(bytes).toString('utf8'));
    const hash = artifactContentHash(bytes);
    if (!this.hasBlob.get(hashKey(hash))) this.insertBlob.run(hashKey(hash), deflateRawSync(bytes, { level: 4 }));
    return hash;
  }

  /** The bytes stored under `hash` (by putBytes, or any text blob); undefined when the store has none. */
  getBytes(hash: string): Buffer | undefined {
    const row = this.selectBlob.get(hashKey(hash));
    if (!row) return undefined;
    if (row.refs !== null && row.refs !== undefined) return Buffer.from(this.getText(hash), 'utf8');
    if (typeof row.data === 'string') return Buffer.from(row.data, 'utf8');
    if (row.data instanceof Uint8Array) return inflateRawSync(row.data);
    return Buffer.from(String(row.data), 'utf8');
  }

  getText(hash: string): string {
    const cached = this.textCache.get(hash) ?? this.written.get(hash);
    if (cached !== undefined) return cached;
    const row = this.readBlob(hash);
    const text = row.refs ? canonicalJson(this.assemble(row)) : row.text;
    this.textCache.set(hash, text);
    return text;
  }

  /** A fresh parse of the value of `hash` (callers may mutate it). */
  getValue(hash: string): unknown {
    const cached = this.textCache.get(hash) ?? this.written.get(hash);
    if (cached !== undefined) return JSON.parse(cached);
    const row = this.readBlob(hash);
    if (!row.refs) {
      this.textCache.set(hash, row.text);
      return JSON.parse(row.text);
    }
    // A value with large members of its own: put together from the parts, not serialised and parsed again.
    return this.assemble(row);
  }

  /**
   * The members of `hash`'s value stored inline, parsed, with the large members (blobs of their own) left out:
   * what a ledger walk needs of a record (ids, names, times) without reading its arguments or result.
   */
  getInline(hash: string): { value: Record<string, unknown>; omitted: string[] } {
    const cached = this.textCache.get(hash) ?? this.written.get(hash);
    if (cached !== undefined) return { value: JSON.parse(cached) as Record<string, unknown>, omitted: [] };
    const row = this.readBlob(hash);
    const value = JSON.parse(row.text) as Record<string, unknown>;
    const omitted: string[] = [];
    for (const [path] of row.refs ?? []) {
      if (path.length === 1) delete value[path[0]];
      else delete value[path[0]];
      omitted.push(path[0]);
    }
    return { value, omitted };
  }

  /** A blob's row: its (inflated) text and the refs of its large members (schema 4), cached briefly. */
  private readBlob(hash: string): { text: string; refs: [PartPath, string][] | undefined } {
    const hit = this.rowCache.get(hash);
    if (hit) return hit;
    const row = this.selectBlob.get(hashKey(hash));
    if (!row) throw new Error(`blob ${hash} is missing from the store`);
    const refs =
      row.refs !== null && row.refs !== undefined ? (JSON.parse(String(row.refs)) as [PartPath, string][]) : undefined;
    const read = { text: decodeData(row.data), refs };
    if (refs) this.rowCache.set(hash, read);
    return read;
  }

  /** The value of a blob with refs: its inline text with each large member put back in place. */
  private assemble(row: { text: string; refs: [PartPath, string][] | undefined }): Record<string, unknown> {
    // Key order is the canonical one already (the holes were written in place).
    const value = JSON.parse(row.text) as Record<string, unknown>;
    for (const [path, ref] of row.refs ?? []) {
      const part = this.getValue(ref);
      if (path.length === 1) value[path[0]] = part;
      else (value[path[0]] as unknown[])[path[1]] = part;
    }
    return value;
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
    if (memo && last && raw === last && isSealedList(raw) && memo.nodes.length === raw.length) {
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
      const found = this.findNode.get(node, hashKey(hash));
      node = found ? Number(found.id) : Number(this.insertNode.run(node, hashKey(hash), i + 1).lastInsertRowid);
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
  seedList(memoKey: string, items: readonly unknown[], node: number): void {
    const frozen = (item: unknown) => typeof item !== 'object' || isStoredItem(item) || Object.isFrozen(item);
    if (items.length === 0 || !items.every(frozen)) return;
    const nodes = new Array<number>(items.length);
    nodes[items.length - 1] = node;
    this.memos.set(memoKey, {
      originals: [...items],
      frozen: items.map(() => true),
      values: [...items],
      nodes,
      ...(isSealedList(items) ? { lastRaw: items } : {}),
    });
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

  /** Forget list memos (after garbage collection or a failed transaction). */
  forgetMemos(): void {
    this.written.clear();
    this.memos.clear();
    this.nodeOwner.clear();
    this.valueMemos.clear();
    this.chainCache.clear();
  }

  forgetMemo(memoKey: string): void {
    this.memos.delete(memoKey);
    this.valueMemos.delete(memoKey);
  }
}

/**
 * Content-addressed storage inside the run store: `blobs` keyed by the hash of their canonical JSON (their cells
 * encoded by blobCodec.ts), list items stored as their parts (itemParts.ts), and lists as chains of list nodes
 * (listNodes.ts, reached through this class). Reads are cached: blobs and nodes never change once written
 * (immutableValues.ts says what that allows).
 */
import { deflateRawSync } from 'node:zlib';
import {
  artifactContentHash,
  canonicalJson,
  contentHash,
  errorMessage,
  isTextContent,
  OcdbError,
  rememberCanonical,
  rememberedCanonical,
} from '../model';
import { engineTraits, type EngineTraits } from './engineTraits';
import { COMPRESS_MIN, decodeData, encodeData, hashKey, hashOf, unpackData } from './blobCodec';
import { freezeDeep, isDeepFrozen } from './immutableValues';
import {
  DELTA_MIN,
  merged,
  recordCallId,
  sameMember,
  SHARED_PART_MIN,
  type OpenRecord,
  type PartPath,
} from './itemParts';
import { ListNodes, type ItemParser } from './listNodes';
import { Lru } from './lru';
import { insertRows, lookUpRows } from './rowBatches';
import type { SqlDriver, SqlStatement } from './sqlDriver';

/** A text at least this long is looked up before it is compressed and written (a shorter one costs less to write). */
const LOOKUP_MIN = 256;

/** After this many look-ups in a row found nothing, blobs are written without one (BlobLookups). */
const MISSES_TO_SKIP = 16;
/** While they are, one insert in this many is asked whether it found its row there (BlobLookups). */
const INSERT_SAMPLE = 8;

/**
 * Whether a blob worth compressing is looked up before it is compressed and written. Looking up saves the
 * compression of content stored before (an import of a transcript again, a fork's inherited results); but a writer
 * of new content (a recording: every blob new) pays a look-up that finds nothing at every blob — four a ReAct
 * step (`npm run bench -- record`): ~1 % of an append on SQLite, a round trip each on PostgreSQL (a tool call recorded 6 % faster). So the look-ups adapt: after MISSES_TO_SKIP
 * in a row found nothing, blobs are inserted at once (INSERT OR IGNORE: the same row either way), and one insert in
 * INSERT_SAMPLE is asked whether its row was there already (on PostgreSQL that answer is a round trip: a queued
 * insert is otherwise sent with the next read); one that was turns the look-ups back on.
 */
class BlobLookups {
  private misses = 0;
  private skipping = false;
  private inserts = 0;

  /** True: look the blob up first. */
  get first(): boolean {
    return !this.skipping;
  }

  /** A look-up found the blob there, or not. */
  found(there: boolean): void {
    if (there) this.misses = 0;
    else if (++this.misses >= MISSES_TO_SKIP) {
      this.skipping = true;
      this.inserts = 0;
    }
  }

  /** A blob written without a look-up (`changes`: the insert's count, read only when sampled). */
  inserted(result: { readonly changes: number }): void {
    if (++this.inserts % INSERT_SAMPLE !== 0 || result.changes !== 0) return;
    this.skipping = false;
    this.misses = 0;
  }
}

/** How many blobs of the current transaction ContentStore remembers as there at most (see its inTransaction). */
const IN_TRANSACTION_MAX = 16_384;

/** How many texts just written stay readable without a read (see ContentStore.written). */
const RECENT_WRITES = 16;

export class ContentStore {
  private readonly insertBlob: SqlStatement;
  private readonly selectBlob: SqlStatement;
  private readonly hasBlob: SqlStatement;
  private readonly insertBlobWithRefs: SqlStatement;
  private readonly lists: ListNodes;
  private readonly textCache = new Lru<string, string>(20_000);
  /**
   * The last few texts written, by hash: a call's result is read back right after it is written (the record a
   * finish returns), and must not be inflated from the page it was just deflated to. Small, so an import of large
   * results does not keep them (the read cache is not filled by writes).
   */
  private readonly written = new Lru<string, string>(RECENT_WRITES);
  /**
   * The hash of each value putFrozenValue stored, by identity: a tool result is written as a blob three times over
   * (the call's result, a member of its tool message, of its ledger record) and hashed once. Keyed by the frozen
   * object, not by its text: a map keyed by a long string hashes the whole string at every look-up.
   */
  private readonly frozenHashes = new WeakMap<object, string>();
  /** The same for the last few long strings stored so (a string cannot be a WeakMap key; see rememberCanonical). */
  private readonly stringHashes = new Lru<string, string>(32);
  /** Blobs the current write transaction stored or found (putText): there until it ends, not looked up again. */
  private readonly inTransaction = new Set<string>();
  /** Rows of blobs with refs (their inline text): a record read again is put together without a read. */
  private readonly rowCache = new Lru<string, { text: string; refs: [PartPath, string][] | undefined }>(20_000);
  private readonly valueMemos = new Map<string, { value: unknown; hash: string }>();

  /** Open ledger records stored lately, by toolCallId (putItem: a finished record is stored as what it adds). */
  private readonly openRecords = new Lru<string, OpenRecord>(256);
  /** Small values a table module keeps per run between its writes (a checkpoint's head): gone with the memos. */
  private readonly rowMemos = new Map<string, unknown>();

  /** Blob data always bytes, and every column one type (EngineTraits.bytesOnly). */
  readonly bytesOnly: boolean;
  /** Whether blobs are looked up before they are written. */
  private readonly lookups = new BlobLookups();

  /** The statements of putTexts' batches, by text (rowBatches.ts: a few texts a table). */
  private readonly batchStatements = new Map<string, SqlStatement>();
  private readonly batchSql: (text: string) => SqlStatement;

  constructor(db: SqlDriver, traits: EngineTraits = engineTraits(db.name)) {
    this.bytesOnly = traits.bytesOnly;
    this.batchSql = (text) => {
      let s = this.batchStatements.get(text);
      if (!s) this.batchStatements.set(text, (s = db.prepare(text)));
      return s;
    };
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)');
    this.selectBlob = db.prepare('SELECT data, refs FROM blobs WHERE hash = ?');
    this.hasBlob = db.prepare('SELECT 1 AS x FROM blobs WHERE hash = ?');
    this.insertBlobWithRefs = db.prepare('INSERT OR IGNORE INTO blobs (hash, data, refs) VALUES (?, ?, ?)');
    this.lists = new ListNodes(
      db,
      (value) => this.putItem(value),
      (hash) => this.getValue(hash),
      traits.nodeIdBlock,
    );
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

  /**
   * Stores `value` once and returns it as stored: a deep-frozen parse of its canonical JSON, which later
   * serialisations of anything holding it (the list item it is a member of) write by identity, without walking it
   * again (`rememberCanonical`), and its hash. Call inside a write transaction.
   */
  putFrozenValue(value: unknown): { hash: string; value: unknown } {
    const text = canonicalJson(value);
    // a string is stored as it is: it cannot change
    const stored = typeof value === 'string' ? value : freezeDeep(JSON.parse(text) as unknown);
    const hash = this.putText(text);
    if (typeof stored === 'string') {
      rememberCanonical(stored, text);
      if (rememberedCanonical(stored) !== undefined) this.stringHashes.set(stored, hash);
    } else if (typeof stored === 'object' && stored !== null) {
      rememberCanonical(stored, text);
      this.frozenHashes.set(stored, hash);
    }
    return { hash, value: stored };
  }

  /** Set while a copy of a run writes (bulkWrites): blobs are inserted without a look-up first. */
  private bulk = false;

  /**
   * Runs `fn` (a copy of a run from another store) with every blob inserted at once (OR IGNORE) and never looked
   * up or counted first: a copy's blobs are nearly all new, and over the network each look-up is a round trip.
   * `newNodes`: list nodes taken as new too (ListNodes.takeNewNodes: a continuation; one that was there after all
   * fails the transaction, which the caller writes again without it).
   */
  bulkWrites<T>(fn: () => T, options: { newNodes?: boolean } = {}): T {
    const was = this.bulk;
    this.bulk = true;
    const nodes = options.newNodes ? this.lists.takeNewNodes() : undefined;
    try {
      return fn();
    } finally {
      this.bulk = was;
      nodes?.();
    }
  }

  /** Stores `text` once; returns its hash (`given`: the caller knows it already, e.g. a stored value's). */
  putText(text: string, given?: string): string {
    // A text to be deflated is encoded once, for its hash and its compression: a string given to each is encoded by
    // each (for a tool result with a non-ASCII character in it, e.g. Claude Code's line numbers, ~5 µs a KB).
    const utf8 = given === undefined && text.length >= COMPRESS_MIN ? Buffer.from(text, 'utf8') : undefined;
    const hash = given ?? contentHash(utf8 ?? text);
    // A blob worth deflating is looked up first: the same result arrives as the call's result and in its message.
    this.written.set(hash, text);
    if (this.inTransaction.has(hash)) return hash;
    const worthLookUp = text.length >= LOOKUP_MIN && !this.bulk;
    const lookedUp = worthLookUp && this.lookups.first;
    if (!lookedUp || !this.isThere(hash)) {
      const written = this.insertBlob.run(hashKey(hash), encodeData(text, this.bytesOnly, utf8));
      if (worthLookUp && !lookedUp) this.lookups.inserted(written);
    }
    // One transaction can write a whole import: what it keeps of them is bounded (a blob forgotten is looked up again).
    if (this.inTransaction.size >= IN_TRANSACTION_MAX) this.inTransaction.clear();
    this.inTransaction.add(hash);
    return hash;
  }

  /**
   * putText of many texts at once (an import's rebuilt files): the ones this transaction has not stored yet are
   * looked up in a few reads (none in bulkWrites), and the missing ones inserted in a few multi-row statements
   * (rowBatches.ts), where putText costs a statement each and, for a long text, a look-up: a round trip each on
   * PostgreSQL. Answers each text's hash, in order. Call inside a write transaction.
   */
  putTexts(texts: readonly string[]): string[] {
    const fresh = new Map<string, { text: string; utf8: Buffer | undefined }>();
    const hashes = texts.map((text) => {
      const utf8 = text.length >= COMPRESS_MIN ? Buffer.from(text, 'utf8') : undefined;
      const hash = contentHash(utf8 ?? text);
      if (!this.inTransaction.has(hash)) fresh.set(hash, { text, utf8 });
      return hash;
    });
    if (fresh.size === 0) return hashes;
    if (!this.bulk) {
      const keys = [...fresh.keys()].map(hashKey);
      for (const row of lookUpRows(this.batchSql, 'SELECT hash FROM blobs WHERE hash IN', keys))
        fresh.delete(hashOf(row.hash));
    }
    const rows = [...fresh].map(([hash, t]) => [hashKey(hash), encodeData(t.text, this.bytesOnly, t.utf8)]);
    insertRows(this.batchSql, 'INSERT OR IGNORE INTO blobs (hash, data)', 2, rows);
    for (const hash of hashes) {
      if (this.inTransaction.size >= IN_TRANSACTION_MAX) this.inTransaction.clear();
      this.inTransaction.add(hash);
    }
    return hashes;
  }

  /** A look-up of blob `hash` (BlobLookups): true when it is there. */
  private isThere(hash: string): boolean {
    const there = this.hasBlob.get(hashKey(hash)) !== undefined;
    this.lookups.found(there);
    return there;
  }

  /**
   * The transaction ended (committed or rolled back): what it wrote or found is no longer known to be there (another
   * process's garbage collection may remove a blob no run refers to between two transactions, never during one).
   */
  transactionEnded(): void {
    this.inTransaction.clear();
    this.lists.transactionEnded();
  }

  /**
   * Stores a list item (a message, a ledger record) once: like putValue, with the same hash (of the whole
   * value's canonical JSON), but the large members of a tool message or a ledger record — and the large elements of
   * their member arrays — are blobs of their own, so a tool result in the conversation, the ledger and the call's
   * result is stored once; and a finished ledger record is stored as what it adds to its open one (its base).
   */
  putItem(value: unknown): string {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return this.putValue(value);
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return this.putValue(value);
    const record = value as Record<string, unknown>;
    const text = canonicalJson(value);
    const base = text.length >= DELTA_MIN ? this.openRecordOf(record) : undefined;
    // Only what can be shared is worth a blob of its own: the members of a tool message or a ledger record (its
    // result is the call's result too, its arguments the call's); a part of another message is nowhere else.
    const shared = typeof record.toolCallId === 'string' && text.length >= SHARED_PART_MIN;
    if (!shared && !base) return this.remember(record, text, this.putText(text));
    const hash = contentHash(text);
    this.written.set(hash, text);
    const lookedUp = this.lookups.first && !this.bulk;
    if (lookedUp && this.isThere(hash)) return this.remember(record, text, hash);
    // the members its base holds are not stored again
    const holed: Record<string, unknown> = {};
    const refs: [PartPath, string][] = base ? [[[], base.hash]] : [];
    for (const key of Object.keys(record)) {
      if (base && Object.hasOwn(base.value, key)) continue;
      const member = record[key];
      holed[key] = member;
      if (!shared) continue;
      if (typeof member !== 'object' && typeof member !== 'string') continue;
      if (member === null) continue;
      // A stored result (its text known by identity) is the one blob the call's result_ref names: referred to whole,
      // never split into its elements — a result holding a screenshot would otherwise store the image twice.
      const known = rememberedCanonical(member);
      if (known !== undefined) {
        if (known.length >= SHARED_PART_MIN) {
          const hash = typeof member === 'string' ? this.stringHashes.get(member) : this.frozenHashes.get(member);
          refs.push([[key], this.putText(known, hash)]);
          holed[key] = null;
        }
        continue;
      }
      // An array's large elements first: a member holding one is large itself, and is then not serialised whole.
      if (Array.isArray(member)) {
        const copy: unknown[] = [...member];
        let extracted = false;
        member.forEach((element, i) => {
          if (typeof element !== 'object' && typeof element !== 'string') return;
          const elementText = canonicalJson(element);
          if (elementText.length < SHARED_PART_MIN) return;
          refs.push([[key, i], this.putText(elementText)]);
          copy[i] = null;
          extracted = true;
        });
        if (extracted) {
          holed[key] = copy;
          continue;
        }
      }
      const memberText = canonicalJson(member);
      if (memberText.length < SHARED_PART_MIN) continue;
      refs.push([[key], this.putText(memberText)]);
      holed[key] = null;
    }
    const written =
      refs.length === 0
        ? this.insertBlob.run(hashKey(hash), encodeData(text, this.bytesOnly))
        : this.insertBlobWithRefs.run(
            hashKey(hash),
            encodeData(canonicalJson(holed), this.bytesOnly),
            JSON.stringify(refs),
          );
    if (!lookedUp && !this.bulk) this.lookups.inserted(written);
    return this.remember(record, text, hash);
  }

  /**
   * The open ledger record stored lately that a finished `record` (one with `endedAt`) continues: same toolCallId,
   * and every member of the open one the same in `record`. Undefined for anything else.
   */
  private openRecordOf(record: Record<string, unknown>): OpenRecord | undefined {
    const id = recordCallId(record);
    if (id === undefined || record.endedAt === undefined) return undefined;
    const open = this.openRecords.get(id);
    if (!open) return undefined;
    for (const key of Object.keys(open.value)) {
      if (!Object.hasOwn(record, key) || !sameMember(open.value[key], record[key])) return undefined;
    }
    return open;
  }

  /** Keeps an open ledger record (stored under `hash`) for the finished one that follows it; returns `hash`. */
  private remember(record: Record<string, unknown>, text: string, hash: string): string {
    const id = recordCallId(record);
    if (id === undefined) return hash;
    if (record.endedAt !== undefined) this.openRecords.delete(id);
    else {
      // a private copy unless nothing in it can change
      const value = isDeepFrozen(record) ? record : (JSON.parse(text) as Record<string, unknown>);
      this.openRecords.set(id, { hash, value });
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
    if (row.data instanceof Uint8Array) return unpackData(row.data);
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
    return this.inlineOf(hash);
  }

  /** getInline of one blob, and of its base (a finished record's open one) as part of the same read. */
  private inlineOf(hash: string): { value: Record<string, unknown>; omitted: string[] } {
    const cached = this.textCache.get(hash) ?? this.written.get(hash);
    if (cached !== undefined) return { value: JSON.parse(cached) as Record<string, unknown>, omitted: [] };
    const row = this.readBlob(hash);
    const value = JSON.parse(row.text) as Record<string, unknown>;
    const omitted: string[] = [];
    let base: { value: Record<string, unknown>; omitted: string[] } | undefined;
    for (const [path, ref] of row.refs ?? []) {
      if (path.length === 0) base = this.inlineOf(ref);
      else {
        delete value[path[0]];
        omitted.push(path[0]);
      }
    }
    if (!base) return { value, omitted };
    return { value: merged(base.value, value), omitted: [...base.omitted, ...omitted] };
  }

  /** A blob's row: its (inflated) text and the refs of its large members (schema 4), cached briefly. */
  private readBlob(hash: string): { text: string; refs: [PartPath, string][] | undefined } {
    const hit = this.rowCache.get(hash);
    if (hit) return hit;
    const row = this.selectBlob.get(hashKey(hash));
    if (!row) throw new OcdbError('StoreCorrupt', `Blob ${hash} is missing from the store.`, { hash });
    let read: { text: string; refs: [PartPath, string][] | undefined };
    try {
      const refs =
        row.refs !== null && row.refs !== undefined
          ? (JSON.parse(String(row.refs)) as [PartPath, string][])
          : undefined;
      read = { text: decodeData(row.data), refs };
    } catch (e) {
      throw new OcdbError(
        'StoreCorrupt',
        `Blob ${hash} of the store cannot be read: ${errorMessage(e)}.`,
        { hash },
        { cause: e },
      );
    }
    const { refs } = read;
    if (refs) this.rowCache.set(hash, read);
    return read;
  }

  /** The value of a blob with refs: its inline text with each large member put back in place. */
  private assemble(row: { text: string; refs: [PartPath, string][] | undefined }): Record<string, unknown> {
    // Key order is the canonical one already (the holes were written in place; a base's members merged in order).
    const value = JSON.parse(row.text) as Record<string, unknown>;
    let base: Record<string, unknown> | undefined;
    for (const [path, ref] of row.refs ?? []) {
      const part = this.getValue(ref);
      if (path.length === 0) base = part as Record<string, unknown>;
      else if (path.length === 1) value[path[0]] = part;
      else (value[path[0]] as unknown[])[path[1]] = part;
    }
    return base ? merged(base, value) : value;
  }

  // ---- lists (listNodes.ts) ---------------------------------------------------------------

  /** Stores a list of items as a chain of nodes; returns the last node's id (ListNodes.putList). */
  putList(raw: readonly unknown[], memoKey?: string, parseItem?: ItemParser): number {
    return this.lists.putList(raw, memoKey, parseItem);
  }

  /** Makes `memoKey` continue the list ending at `node` (ListNodes.seedList). */
  seedList(memoKey: string, items: readonly unknown[], node: number, length = items.length): void {
    this.lists.seedList(memoKey, items, node, length);
  }

  /** How many leading items two lists share (ListNodes.commonPrefix). */
  commonPrefix(a: number, lengthA: number, b: number, lengthB: number): number {
    return this.lists.commonPrefix(a, lengthA, b, lengthB);
  }

  /** The item hashes of the list ending at `node`, first to last. */
  listHashes(node: number): readonly string[] {
    return this.lists.listHashes(node);
  }

  /** The item hashes of a list by index, read from the end on demand (ListNodes.listReader). */
  listReader(node: number, length: number): (index: number) => string | undefined {
    return this.lists.listReader(node, length);
  }

  /** The values of the list ending at `node`, freshly parsed (callers may mutate them). */
  getList(node: number): unknown[] {
    return this.lists.getList(node);
  }

  // ---- memos ---------------------------------------------------------------------------------

  /** Forget list memos (after garbage collection or a failed transaction). */
  forgetMemos(): void {
    this.openRecords.clear();
    this.rowMemos.clear();
    this.inTransaction.clear();
    this.written.clear();
    this.lists.forget();
    this.valueMemos.clear();
  }

  /** True while the list last written under `memoKey` is known (not forgotten since: a failed transaction forgets). */
  knowsList(memoKey: string): boolean {
    return this.lists.knowsList(memoKey);
  }

  forgetMemo(memoKey: string): void {
    this.rowMemos.delete(memoKey);
    this.lists.forgetMemo(memoKey);
    this.valueMemos.delete(memoKey);
  }

  /** A value kept under `key` since the last write that set it (see rowMemos); undefined once memos are forgotten. */
  rowMemo<T>(key: string): T | undefined {
    return this.rowMemos.get(key) as T | undefined;
  }

  setRowMemo(key: string, value: unknown): void {
    this.rowMemos.set(key, value);
  }

  forgetRowMemo(key: string): void {
    this.rowMemos.delete(key);
  }
}

/**
 * Content-addressed storage inside the run store: `blobs` keyed by the hash
 * of their canonical JSON, and hash-consed `list_nodes` (parent, item) so
 * lists that share a prefix share its rows. Reads are cached: blobs and nodes
 * are immutable once written, so a cache entry can never go stale.
 */
import { brotliDecompressSync, constants, deflateRawSync, inflateRawSync } from 'node:zlib';
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
import type { SqlDriver, SqlStatement } from './sqlDriver';
import { extensionOf, isSealedList, settleList } from './listIdentity';
import { isStoredItem } from './storedItems';

/** The id of the empty list. */
export const EMPTY_LIST = 0;

/**
 * A member (or an element of a member array) of a list item with a `toolCallId` — a tool message, a ledger record —
 * whose canonical JSON is at least this long is stored as a blob of its own and referred to by hash (schema 4,
 * `blobs.refs`): a tool result that is the `content` of the tool message, the `result` of the ledger record and the
 * call's `result_ref` is then one blob, not three. Other items are stored whole (branch i11bytes): their parts are
 * nowhere else, and a blob of their own would only add its row, its index entry and its ref.
 */
export const SHARED_PART_MIN = 512;

/**
 * Blob texts at least this long are stored compressed (a BLOB in `blobs.data`) when that saves a tenth or more. A
 * shorter one (a ledger record's open part, a tool message without its result, a finished record's delta: three a
 * tool call) is stored as it is: each deflate costs 7–20 µs to set up whatever its length, for some 60 bytes saved.
 * Measured with 32 against 256 (issue 11, `npm run bench -- record`, 10k checkpoints, medians of 5): a tool call's
 * checkpoint 190 → 168 µs, recording the run 2.75 → 2.44 s; the store 1.05× → 1.17× its unique content (beyond an
 * empty store); a 50 MiB import 3.4 → 3.1 s, its store 0.20× → 0.22× the transcript. PostgreSQL's bytea column
 * always holds it compressed (`bytesOnly`).
 */
export const COMPRESS_MIN = 256;

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
 * step (issue 11): ~1 % of an append on SQLite, a round trip each on PostgreSQL (a tool call recorded 6 % faster). So the look-ups adapt: after MISSES_TO_SKIP
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

/** Items this close to a list's end are found by walking up from it; further back, the whole chain is read. */
const SUFFIX_WALK = 256;

/** How many blobs of the current transaction ContentStore remembers as there at most (see its inTransaction). */
const IN_TRANSACTION_MAX = 16_384;

/** How many texts just written stay readable without a read (see ContentStore.written). */
const RECENT_WRITES = 16;

/**
 * The first byte of a compressed `blobs.data` cell: raw deflate with `DICTIONARY_1` after `DICTIONARY_MARK` (every
 * text blob written now); brotli after `BROTLI_MARK` (texts of 512 characters or more written by schema 7's first
 * release: still read, no longer written). A raw deflate stream never starts with either (its block type bits would
 * be 11, which deflate reserves), so a BLOB without a mark is raw deflate (every compressed blob written before
 * schema 7, and artifact bytes).
 */
const BROTLI_MARK = 0xff;
const DICTIONARY_MARK = 0xfe;

/**
 * The preset dictionary of blob texts: the keys and enum values of ledger records and messages as canonical JSON
 * writes them (most frequent last), so a ledger record or a tool message of a few hundred bytes compresses to a
 * third, and a long message starts with its keys known. Never change it: blobs written with it read with it. A
 * better one is `DICTIONARY_2` behind a mark of its own.
 */
const DICTIONARY_1 = Buffer.from(
  [
    '"none","expensive_read","write","external_irreversible","re_execute","mock_result","manual_confirm",',
    '"forbid_replay",{"error":{"message":"Cancelled","name":"',
    '"liveEdit":{"at":',
    '"editedBy":"',
    '"stopId":"',
    '"mocked":true,"originalArgsHash":"',
    '{"content":[{"text":"',
    '"type":"text"},{"args":{',
    '"type":"tool_call"}],"role":"assistant"}',
    '"role":"user"}',
    '"role":"system"}',
    '{"content":null,"role":"tool","toolCallId":"',
    '"toolName":"',
    '"result":null,',
    '{"endedAt":17',
    '{"args":{',
    '"argsHash":"',
    '"replayPolicy":"reuse_result","sideEffectLevel":"read_only","startedAt":17',
    '"toolCallId":"call_',
    '"toolName":"',
  ].join(''),
);

/**
 * `text` deflated with `DICTIONARY_1` behind its mark, with a window just over the dictionary and the text (plus
 * deflate's 262-byte lookahead: every match the 32 KiB one would find) and hash tables to match — a short text's
 * zlib state is a few KiB, not 256. Deflate, not brotli: brotli (quality 5) took 2–4× as long (each call sets up
 * ~1 MiB of encoder state), a tenth of an append's CPU (issue 11), for long texts no smaller than the dictionary's
 * deflate makes them (the record bench's messages: brotli 0.46 of their size, this 0.45, raw deflate 0.52).
 */
function pack(text: string, utf8?: Buffer): Buffer {
  const windowBits = Math.min(
    15,
    Math.max(9, Math.ceil(Math.log2((utf8?.length ?? Buffer.byteLength(text)) + DICTIONARY_1.length + 262))),
  );
  const body = deflateRawSync(utf8 ?? text, {
    level: 4,
    dictionary: DICTIONARY_1,
    windowBits,
    memLevel: windowBits - 7,
    ...(mostlyBase64(text) ? { strategy: constants.Z_HUFFMAN_ONLY } : {}),
  });
  return Buffer.concat([DICTIONARY_MARK_BYTE, body]);
}

/** Texts this long are checked for base64 (mostlyBase64); a shorter one is deflated as any text. */
const BASE64_CHECK_MIN = 16 * 1024;
const BASE64_RUN = /^[A-Za-z0-9+/]{64}$/;

/**
 * True when `text` is mostly base64 — an image or a file inlined as data (a screenshot in a tool result): its
 * middle and both quarters are base64 runs. Deflate's string matching finds nothing to match in such data and
 * spends 3/4 of its time there; Huffman coding alone (Z_HUFFMAN_ONLY) makes it exactly as small (3/4 of the text:
 * 6 bits a character) four times as fast. Still a deflate stream: it reads back as every other blob does.
 */
export function mostlyBase64(text: string): boolean {
  if (text.length < BASE64_CHECK_MIN) return false;
  for (const at of [0.25, 0.5, 0.75]) {
    const from = Math.floor(text.length * at);
    if (!BASE64_RUN.test(text.slice(from, from + 64))) return false;
  }
  return true;
}
const DICTIONARY_MARK_BYTE = Buffer.from([DICTIONARY_MARK]);

/**
 * What `blobs.data` holds for `text`: the text itself, or its compression when that is worth it. `bytesOnly` (an
 * engine whose columns hold one type, PostgreSQL): always compressed.
 */
function encodeData(text: string, bytesOnly = false, utf8?: Buffer): string | Buffer {
  if (text.length < COMPRESS_MIN && !bytesOnly) return text;
  const packed = pack(text, utf8);
  return bytesOnly || packed.length <= (utf8?.length ?? Buffer.byteLength(text)) * 0.9 ? packed : text;
}

/** The bytes of a compressed `blobs.data` cell: brotli or dictionary deflate behind its mark, or raw deflate. */
export function unpackData(data: Uint8Array): Buffer {
  if (data[0] === BROTLI_MARK) return brotliDecompressSync(data.subarray(1));
  if (data[0] === DICTIONARY_MARK) return inflateRawSync(data.subarray(1), { dictionary: DICTIONARY_1 });
  return inflateRawSync(data);
}

/** The text of a `blobs.data` cell: TEXT as it is (every blob of schema 3), a BLOB decompressed. */
function decodeData(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return unpackData(data).toString('utf8');
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

/**
 * Where a member of a stored value sits: `[key]` or `[key, index]`; `[]` (branch i11bytes) names the value's base,
 * a blob whose members the value has too (a finished ledger record's open record): only the members it adds are
 * stored with it.
 */
type PartPath = [] | [string] | [string, number];

/** A finished ledger record of at least this many characters is stored as what it adds to its open record. */
const DELTA_MIN = 256;

/** An open ledger record stored lately: its hash and value (deep-frozen, or a private parse). */
interface OpenRecord {
  hash: string;
  value: Record<string, unknown>;
}

/** The toolCallId of a ledger record (one with a toolCallId and an argsHash); undefined for anything else. */
function recordCallId(record: Record<string, unknown>): string | undefined {
  return typeof record.toolCallId === 'string' && typeof record.argsHash === 'string' ? record.toolCallId : undefined;
}

/** True when member values `a` and `b` are the same value. */
function sameMember(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** The members of `base` and `own` (own's where both have one) in canonical key order. */
function merged(base: Record<string, unknown>, own: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of [...new Set([...Object.keys(base), ...Object.keys(own)])].sort()) {
    out[key] = Object.hasOwn(own, key) ? own[key] : base[key];
  }
  return out;
}

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
  delete(key: K): void {
    this.map.delete(key);
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

/** Freezes a value parsed from JSON all the way down (it is the store's own: nobody else holds it). */
function freezeDeep<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) freezeDeep(v);
    Object.freeze(value);
    deepFrozen.add(value);
  }
  return value;
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
   * The hash of each value putFrozenValue stored, by identity: a tool result is written as a blob three times over
   * (the call's result, a member of its tool message, of its ledger record) and hashed once. Keyed by the frozen
   * object, not by its text: a map keyed by a long string hashes the whole string at every look-up.
   */
  private readonly frozenHashes = new WeakMap<object, string>();
  /** The same for the last few long strings stored so (a string cannot be a WeakMap key; see rememberCanonical). */
  private readonly stringHashes = new Lru<string, string>(32);
  /** Blobs the current write transaction stored or found (putText): there until it ends, not looked up again. */
  private readonly inTransaction = new Set<string>();
  private readonly chainCache = new Lru<number, readonly string[]>(512);
  /** Rows of blobs with refs (their inline text): a record read again is put together without a read. */
  private readonly rowCache = new Lru<string, { text: string; refs: [PartPath, string][] | undefined }>(20_000);
  /** For list nodes read: the list read that holds each (its tail node) and the node's length there. */
  private readonly nodeOwner = new Map<number, { tail: number; length: number }>();
  private readonly memos = new Map<string, ListMemo>();
  private readonly valueMemos = new Map<string, { value: unknown; hash: string }>();

  /** Open ledger records stored lately, by toolCallId (putItem: a finished record is stored as what it adds). */
  private readonly openRecords = new Lru<string, OpenRecord>(256);
  /** Small values a table module keeps per run between its writes (a checkpoint's head): gone with the memos. */
  private readonly rowMemos = new Map<string, unknown>();

  /** Blob data always bytes, and every column one type (EngineTraits.bytesOnly). */
  readonly bytesOnly: boolean;
  /** Whether blobs are looked up before they are written. */
  private readonly lookups = new BlobLookups();

  constructor(db: SqlDriver, traits: EngineTraits = engineTraits(db.name)) {
    this.bytesOnly = traits.bytesOnly;
    this.insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)');
    this.selectBlob = db.prepare('SELECT data, refs FROM blobs WHERE hash = ?');
    this.hasBlob = db.prepare('SELECT 1 AS x FROM blobs WHERE hash = ?');
    this.insertBlobWithRefs = db.prepare('INSERT OR IGNORE INTO blobs (hash, data, refs) VALUES (?, ?, ?)');
    this.selectNode = db.prepare('SELECT parent, item FROM list_nodes WHERE id = ?');
    this.findNode = db.prepare('SELECT id FROM list_nodes WHERE parent = ? AND item = ?');
    // Inserted first, looked up only when it was there already: a new item's node (nearly every one a writer puts)
    // costs one statement, not a look-up and then an insert.
    this.insertNode = db.prepare('INSERT OR IGNORE INTO list_nodes (parent, item, len) VALUES (?, ?, ?)');
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

  /** Stores `text` once; returns its hash (`given`: the caller knows it already, e.g. a stored value's). */
  putText(text: string, given?: string): string {
    // A text to be deflated is encoded once, for its hash and its compression: a string given to each is encoded by
    // each (for a tool result with a non-ASCII character in it, e.g. Claude Code's line numbers, ~5 µs a KB).
    const utf8 = given === undefined && text.length >= COMPRESS_MIN ? Buffer.from(text, 'utf8') : undefined;
    const hash = given ?? contentHash(utf8 ?? text);
    // A blob worth deflating is looked up first: the same result arrives as the call's result and in its message.
    this.written.set(hash, text);
    if (this.inTransaction.has(hash)) return hash;
    const worthLookUp = text.length >= LOOKUP_MIN;
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
    const lookedUp = this.lookups.first;
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
    if (!lookedUp) this.lookups.inserted(written);
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
      node = this.nodeOf(node, hash, i + 1);
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

  /** The id of the list node (`parent`, `hash`) of `length` items: inserted, or the one there (hash-consed). */
  private nodeOf(parent: number, hash: string, length: number): number {
    const item = hashKey(hash);
    const inserted = this.insertNode.run(parent, item, length);
    if (inserted.changes === 1) return Number(inserted.lastInsertRowid);
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

  /** Forget list memos (after garbage collection or a failed transaction). */
  forgetMemos(): void {
    this.openRecords.clear();
    this.rowMemos.clear();
    this.inTransaction.clear();
    this.written.clear();
    this.memos.clear();
    this.nodeOwner.clear();
    this.valueMemos.clear();
    this.chainCache.clear();
  }

  forgetMemo(memoKey: string): void {
    this.rowMemos.delete(memoKey);
    this.memos.delete(memoKey);
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

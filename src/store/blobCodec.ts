/**
 * How a blob is kept in `blobs.data` and a hash in the store's columns: the text itself or its compression (deflate
 * with a preset dictionary behind a mark byte; brotli and raw deflate of older blobs still read), and a content
 * hash as its bytes. Pure: no I/O, no state.
 */
import { brotliDecompressSync, constants, deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Blob texts at least this long are stored compressed (a BLOB in `blobs.data`) when that saves a tenth or more. A
 * shorter one (a ledger record's open part, a tool message without its result, a finished record's delta: three a
 * tool call) is stored as it is: each deflate costs 7–20 µs to set up whatever its length, for some 60 bytes saved.
 * Measured with 32 against 256 (`npm run bench -- record`, 10k checkpoints, medians of 5): a tool call's
 * checkpoint 190 → 168 µs, recording the run 2.75 → 2.44 s; the store 1.05× → 1.17× its unique content (beyond an
 * empty store); a 50 MiB import 3.4 → 3.1 s, its store 0.20× → 0.22× the transcript. PostgreSQL's bytea column
 * always holds it compressed (`bytesOnly`).
 */
export const COMPRESS_MIN = 256;

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
 * ~1 MiB of encoder state), a tenth of an append's CPU (`npm run bench -- record`), for long texts no smaller than the dictionary's
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
export function encodeData(text: string, bytesOnly = false, utf8?: Buffer): string | Buffer {
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
export function decodeData(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return unpackData(data).toString('utf8');
  return String(data);
}

/**
 * A content hash as the store's columns hold it (schema 6): the bytes of its hex (16 for a
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

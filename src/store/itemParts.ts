/**
 * The parts of a stored list item (a message, a ledger record): which of its members are blobs of their own (a tool
 * result shared by the call, its tool message and its ledger record is stored once), and a finished ledger record
 * stored as what it adds to its open one (its base). ContentStore.putItem writes them; readBlob and assemble put
 * them back together.
 */
import { canonicalJson } from '../model';

/**
 * A member (or an element of a member array) of a list item with a `toolCallId` — a tool message, a ledger record —
 * whose canonical JSON is at least this long is stored as a blob of its own and referred to by hash (schema 4,
 * `blobs.refs`): a tool result that is the `content` of the tool message, the `result` of the ledger record and the
 * call's `result_ref` is then one blob, not three. Other items are stored whole (schema 7): their parts are
 * nowhere else, and a blob of their own would only add its row, its index entry and its ref.
 */
export const SHARED_PART_MIN = 512;

/**
 * Where a member of a stored value sits: `[key]` or `[key, index]`; `[]` names the value's base,
 * a blob whose members the value has too (a finished ledger record's open record): only the members it adds are
 * stored with it.
 */
export type PartPath = [] | [string] | [string, number];

/** A finished ledger record of at least this many characters is stored as what it adds to its open record. */
export const DELTA_MIN = 256;

/** An open ledger record stored lately: its hash and value (deep-frozen, or a private parse). */
export interface OpenRecord {
  hash: string;
  value: Record<string, unknown>;
}

/** The toolCallId of a ledger record (one with a toolCallId and an argsHash); undefined for anything else. */
export function recordCallId(record: Record<string, unknown>): string | undefined {
  return typeof record.toolCallId === 'string' && typeof record.argsHash === 'string' ? record.toolCallId : undefined;
}

/** True when member values `a` and `b` are the same value. */
export function sameMember(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** The members of `base` and `own` (own's where both have one) in canonical key order. */
export function merged(base: Record<string, unknown>, own: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of [...new Set([...Object.keys(base), ...Object.keys(own)])].sort()) {
    out[key] = Object.hasOwn(own, key) ? own[key] : base[key];
  }
  return out;
}

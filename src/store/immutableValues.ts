/**
 * The values that never change, and what the store may do with them.
 *
 * The contract:
 * - A value is **deep-frozen** when it and everything in it is frozen (`Object.isFrozen`), or it is a stored item
 *   (storedItems.ts: the store's own read of a list item, which it never hands out mutable). `isDeepFrozen` checks
 *   once and remembers (a frozen object stays frozen: a WeakSet, never a stale entry).
 * - A deep-frozen value is the same value as long as it is the same object: the store compares it by identity (one
 *   pointer comparison) and may keep it, its canonical text (model `rememberCanonical`) and its hash by identity,
 *   without a copy. Anything not deep-frozen may change after the call that passed it: the store keeps a private
 *   copy (`snapshot`) and compares by structure (`sameValue`).
 * - Rows the store writes never change either: a blob under its content hash, a list node (parent, item) under its
 *   id (ids are never reused). So a cache of them (ContentStore's texts and rows, ListNodes' chains, PostgreSQL's
 *   read-ahead) can never be stale; it is dropped only when the rows may be gone: a rollback (what the transaction
 *   wrote is gone) or a garbage collection (deleteRun), by `ContentStore.forgetMemos`.
 * - What the store parses for itself and keeps is frozen here (`freezeDeep`): nobody else holds it.
 * - A list item the store validated as it read it (a message, a ledger record) is marked so (`markValidated`): a copy
 *   of a run into another store of this process writes it without validating it again (`wasValidated`). Only the
 *   store marks, only objects it made and froze, so the mark cannot be had by a value that did not pass.
 */
import { isStoredItem } from './storedItems';

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
export function freezeDeep<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) freezeDeep(v);
    Object.freeze(value);
    deepFrozen.add(value);
  }
  return value;
}

/** A private structural copy that shares the (immutable) strings: cheap, and safe from later mutation by the caller. */
export function snapshot(value: unknown): unknown {
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
export function sameValue(a: unknown, b: unknown): boolean {
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

const validated = { message: new WeakSet<object>(), record: new WeakSet<object>() };

/** Marks `value` (a list item the store parsed with its schema and will freeze) as having passed as a `kind`. */
export function markValidated<T>(value: T, kind: 'message' | 'record'): T {
  if (typeof value === 'object' && value !== null) validated[kind].add(value);
  return value;
}

/** True when the store itself validated `value` as a `kind` (markValidated). */
export function wasValidated(value: unknown, kind: 'message' | 'record'): boolean {
  return typeof value === 'object' && value !== null && validated[kind].has(value);
}

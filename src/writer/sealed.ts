/**
 * Values sealed for the timeline and the store: private deep-frozen copies of messages and JSON data, marked so that
 * the store recognises an unchanged item by identity (one pointer comparison) instead of comparing it field by field,
 * and so that an agent mutating its own objects later changes nothing recorded. Used by RunTimeline (runTimeline.ts)
 * and the importers' planner. Pure: no I/O.
 */
import { canonicalJson, type Message } from '../model';
import { extensionOf, isSealedList, isStoredItem, sealList } from '../store';

/**
 * Ledger records are facts about the past: frozen, which also lets the store recognise an unchanged record by
 * identity instead of comparing it field by field at every checkpoint.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A frozen copy of plain JSON data (objects, arrays, strings, finite numbers, booleans, null); undefined for anything else. */
function frozenPlainCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : undefined;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out: unknown[] = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          const v = frozenPlainCopy(value[i]);
          if (v === undefined) return undefined;
          out[i] = v;
        }
        return Object.freeze(out);
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return undefined;
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(value)) {
        const v = frozenPlainCopy(item);
        if (v === undefined) return undefined;
        out[k] = v;
      }
      return Object.freeze(out);
    }
    default:
      return undefined;
  }
}

/**
 * A private, deep-frozen copy of a message as the store keeps it (anything that is not plain JSON goes through its
 * canonical JSON, as the store writes it). The timeline's conversation holds only such copies, so the store
 * recognises the unchanged prefix of the next checkpoint by identity (one pointer comparison per item) instead of
 * comparing it field by field, and an agent mutating its own objects later changes nothing recorded.
 */
export function sealMessage(message: Message): Message {
  return sealValue(message);
}

/** A private deep-frozen copy of JSON data (see sealMessage); a value sealed before is returned as it is. */
export function sealValue<T>(value: T): T {
  // A stored item (a conversation carried over from the store) is deep-frozen when read: sealed already.
  if (typeof value !== 'object' || value === null || sealed.has(value) || isStoredItem(value)) return value;
  const copy = (frozenPlainCopy(value) ?? deepFreeze(JSON.parse(canonicalJson(value)))) as T & object;
  sealed.add(copy);
  return copy;
}

const sealed = new WeakSet<object>();

/**
 * Deep-freezes `value` in place and marks it sealed, so the timeline and the store take it as it is, by identity
 * (sealValue makes no copy of it): for plain JSON the caller owns, has checked and never changes again — an
 * importer's plan (runPlan.ts `storable` checks each message is plain JSON before it is sealed so).
 */
export function sealPlainJson<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !sealed.has(value) && !isStoredItem(value)) {
    deepFreeze(value);
    sealed.add(value);
  }
  return value;
}

/**
 * `next` with the items it shares (by identity) with `prev` kept and the others sealed, as a sealed list (store
 * `sealList`): O(n) pointer comparisons. A list the writer made from `prev` (`extendList`: the recorder's answer
 * appended, a tool message) is sealed in place, its new items only.
 */
export function sealMessages(next: readonly Message[], prev: readonly Message[] = []): Message[] {
  if (isSealedList(next)) return next as Message[];
  const extension = extensionOf(next);
  if (extension && extension.base === prev && isSealedList(prev)) {
    const own = next as Message[];
    for (let i = extension.keep; i < own.length; i++) own[i] = sealMessage(own[i] as Message);
    return sealList(own) as Message[];
  }
  const out = new Array<Message>(next.length);
  for (let i = 0; i < next.length; i++) {
    const m = next[i] as Message;
    out[i] = m === prev[i] ? m : sealMessage(m);
  }
  return sealList(out) as Message[];
}

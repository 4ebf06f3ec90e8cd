/**
 * Stored items: a list item (a message, a ledger record) of a stored list, read on first use. Each is a Proxy over
 * an empty object that, at the first look inside (a property read, `in`, keys, `Object.isFrozen`, JSON), reads its
 * value from the store, validates it, deep-freezes it and becomes it. Until then it is only an identity: an array
 * of them can be copied, sliced, extended and compared item by item (`===`) at the cost of pointers, which is what
 * the writer does with a conversation it continues — so a fork of a late checkpoint, or a run resumed late, does
 * not read its whole conversation and ledger to write its next checkpoint. The store and the writer know them as
 * sealed (deep-frozen once read: `isStoredItem`). No I/O of its own: the loader is the caller's.
 */

/** How an item is read: its full value, and (for ledger records) its small fields without reading large members. */
export interface ItemLoader {
  load(): object;
  /** The item's fields whose values are stored inline (ids, names, times): no large member is read. */
  facts?(): Record<string, unknown>;
}

interface Slot {
  loader: ItemLoader;
  loaded: boolean;
  facts?: Record<string, unknown>;
}

const slots = new WeakMap<object, Slot>();

function ensure(target: object, slot: Slot): void {
  if (slot.loaded) return;
  const value = slot.loader.load();
  slot.loaded = true;
  Object.assign(target, value);
  Object.freeze(target);
}

/** One handler for every item: a trap finds the item's slot by its target. */
const targets = new WeakMap<object, Slot>();
const load = (t: object): void => ensure(t, targets.get(t) as Slot);
const HANDLER: ProxyHandler<object> = {
  get(t, key, receiver) {
    load(t);
    return Reflect.get(t, key, receiver) as unknown;
  },
  has(t, key) {
    load(t);
    return Reflect.has(t, key);
  },
  ownKeys(t) {
    load(t);
    return Reflect.ownKeys(t);
  },
  getOwnPropertyDescriptor(t, key) {
    load(t);
    return Reflect.getOwnPropertyDescriptor(t, key);
  },
  isExtensible(t) {
    load(t);
    return Reflect.isExtensible(t);
  },
  preventExtensions(t) {
    load(t);
    return Reflect.preventExtensions(t);
  },
  set(t, key, value, receiver) {
    load(t);
    return Reflect.set(t, key, value, receiver);
  },
  defineProperty(t, key, descriptor) {
    load(t);
    return Reflect.defineProperty(t, key, descriptor);
  },
  deleteProperty(t, key) {
    load(t);
    return Reflect.deleteProperty(t, key);
  },
};

/** A stored item read by `loader` on first use (see the file header). `load` must return a deep-frozen value. */
export function storedItem<T extends object>(loader: ItemLoader): T {
  const slot: Slot = { loader, loaded: false };
  const target = {};
  targets.set(target, slot);
  const proxy = new Proxy(target, HANDLER);
  slots.set(proxy, slot);
  return proxy as T;
}

/** True for an item made by `storedItem`: deep-frozen once read, so known by identity. Reads nothing. */
export function isStoredItem(value: unknown): boolean {
  return typeof value === 'object' && value !== null && slots.has(value);
}

/** True when a stored item has not been read yet (nothing is read to answer). */
export function isUnread(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const slot = slots.get(value);
  return slot !== undefined && !slot.loaded;
}

/**
 * The fields of `value` that a ledger walk needs (toolCallId, toolName, argsHash, endedAt, levels, policies): for a
 * stored item not read yet, its inline fields (large members absent) without reading the rest; otherwise the value.
 */
export function itemFacts<T extends object>(value: T): Partial<T> {
  const slot = slots.get(value);
  if (!slot || slot.loaded || !slot.loader.facts) return value;
  slot.facts ??= slot.loader.facts();
  return slot.facts as Partial<T>;
}

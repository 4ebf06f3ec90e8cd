/**
 * Stored items: a list item (a message, a ledger record) of a stored list, read on first use. Each is a Proxy over
 * an empty object that, at the first look inside (a property read, `in`, keys, `Object.isFrozen`, JSON), reads its
 * value from the store, validates it, deep-freezes it and becomes it. Until then it is only an identity: an array
 * of them can be copied, sliced, extended and compared item by item (`===`) at the cost of pointers, which is what
 * the writer does with a conversation it continues — so a fork of a late checkpoint, or a run resumed late, does
 * not read its whole conversation and ledger to write its next checkpoint. The store and the writer know them as
 * sealed (deep-frozen once read: `isStoredItem`). No I/O of its own: the loader is the caller's.
 */

/** How the items of one stored list are read: an item's full value, and (ledger records) its inline fields. */
export interface ItemLoader {
  /** The value of item `index`, deep-frozen. */
  load(index: number): object;
  /** The fields of item `index` whose values are stored inline (ids, names, times): no large member is read. */
  facts?(index: number): Record<string, unknown>;
}

interface Slot {
  loader: ItemLoader;
  index: number;
  loaded: boolean;
  facts?: Record<string, unknown>;
}

/** Where an item's slot is kept: a non-enumerable symbol of its target (no JSON, keys or equality sees it). */
const SLOT = Symbol('storedItem');

const slotOf = (t: object): Slot => (t as { [SLOT]: Slot })[SLOT];

function ensure(t: object): void {
  const slot = slotOf(t);
  if (slot.loaded) return;
  const value = slot.loader.load(slot.index);
  slot.loaded = true;
  Object.assign(t, value);
  Object.freeze(t);
}

/** One handler for every item; asking for the slot reads nothing. */
const HANDLER: ProxyHandler<object> = {
  get(t, key, receiver) {
    if (key === SLOT) return slotOf(t);
    ensure(t);
    return Reflect.get(t, key, receiver) as unknown;
  },
  has(t, key) {
    ensure(t);
    return Reflect.has(t, key);
  },
  ownKeys(t) {
    ensure(t);
    return Reflect.ownKeys(t);
  },
  getOwnPropertyDescriptor(t, key) {
    ensure(t);
    return Reflect.getOwnPropertyDescriptor(t, key);
  },
  isExtensible(t) {
    ensure(t);
    return Reflect.isExtensible(t);
  },
  preventExtensions(t) {
    ensure(t);
    return Reflect.preventExtensions(t);
  },
  set(t, key, value, receiver) {
    ensure(t);
    return Reflect.set(t, key, value, receiver);
  },
  defineProperty(t, key, descriptor) {
    ensure(t);
    return Reflect.defineProperty(t, key, descriptor);
  },
  deleteProperty(t, key) {
    ensure(t);
    return Reflect.deleteProperty(t, key);
  },
};

/** The `length` items of a stored list, each read by `loader` on first use (see the file header). */
export function storedItems<T extends object>(length: number, loader: ItemLoader): T[] {
  const items = new Array<T>(length);
  for (let index = 0; index < length; index++) {
    const target = {};
    Object.defineProperty(target, SLOT, { value: { loader, index, loaded: false } satisfies Slot });
    items[index] = new Proxy(target, HANDLER) as T;
  }
  return items;
}

function slotOfItem(value: unknown): Slot | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const slot = (value as { [SLOT]?: unknown })[SLOT];
  return slot !== undefined ? (slot as Slot) : undefined;
}

/** True for an item made by `storedItems`: deep-frozen once read, so known by identity. Reads nothing. */
export function isStoredItem(value: unknown): boolean {
  return slotOfItem(value) !== undefined;
}

/** True when a stored item has not been read yet (nothing is read to answer). */
export function isUnread(value: unknown): boolean {
  const slot = slotOfItem(value);
  return slot !== undefined && !slot.loaded;
}

/**
 * The fields of `value` that a ledger walk needs (toolCallId, toolName, argsHash, endedAt, levels, policies): for a
 * stored item not read yet, its inline fields (large members absent) without reading the rest; otherwise the value.
 */
export function itemFacts<T extends object>(value: T): Partial<T> {
  const slot = slotOfItem(value);
  if (!slot || slot.loaded || !slot.loader.facts) return value;
  slot.facts ??= slot.loader.facts(slot.index);
  return slot.facts as Partial<T>;
}

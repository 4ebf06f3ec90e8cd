/**
 * A list whose items are read on first access: an Array (Array.isArray is true, `length` is known up front) behind
 * a Proxy that fills an index the first time it is read. Paging a conversation of 10,000 messages reads the page,
 * not the conversation; iterating, spreading, JSON.stringify or Object.keys read what they touch (all of it).
 */
function indexOf(key: PropertyKey): number | undefined {
  if (typeof key !== 'string' || key.length === 0) return undefined;
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57 || (c === 48 && key.length > 1)) return undefined;
  const n = Number(key);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function lazyList<T>(length: number, at: (index: number) => T): T[] {
  const target: T[] = new Array<T>(length);
  const loaded = new Uint8Array(length);
  const fill = (i: number | undefined): void => {
    if (i === undefined || i >= length || loaded[i]) return;
    loaded[i] = 1;
    target[i] = at(i);
  };
  const fillAll = (): void => {
    for (let i = 0; i < length; i++) fill(i);
  };
  return new Proxy(target, {
    get(t, key, receiver) {
      fill(indexOf(key));
      return Reflect.get(t, key, receiver) as unknown;
    },
    has(t, key) {
      fill(indexOf(key));
      return Reflect.has(t, key);
    },
    getOwnPropertyDescriptor(t, key) {
      fill(indexOf(key));
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
    ownKeys(t) {
      fillAll();
      return Reflect.ownKeys(t);
    },
    set(t, key, value, receiver) {
      const i = indexOf(key);
      if (i !== undefined && i < length) loaded[i] = 1;
      if (key === 'length' && typeof value === 'number') for (let j = value; j < length; j++) loaded[j] = 1;
      return Reflect.set(t, key, value, receiver);
    },
    deleteProperty(t, key) {
      const i = indexOf(key);
      if (i !== undefined && i < length) loaded[i] = 1;
      return Reflect.deleteProperty(t, key);
    },
    defineProperty(t, key, descriptor) {
      const i = indexOf(key);
      if (i !== undefined && i < length) loaded[i] = 1;
      return Reflect.defineProperty(t, key, descriptor);
    },
  });
}

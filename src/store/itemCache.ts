/**
 * The items of stored lists (a message, a ledger record) as a reader last read them: validated and deep-frozen,
 * by what they are and their content hash. Content-addressed items never change, so a debugger stepping from one
 * checkpoint to the next — whose pages of messages and ledger records are the same items — reads and validates
 * each item once, not once a step. Bounded by count and by the characters of the strings the items hold (a
 * conversation of screenshots stays a few megabytes). Pure: no I/O.
 */

/** Freezes a value read from the store, all the way down (it is nobody else's), and returns how many characters its strings and keys hold. */
export function freezeWeighed(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 8;
  if (Object.isFrozen(value)) return 0; // already someone's (a shared part): weighed there
  Object.freeze(value);
  let weight = 16;
  if (Array.isArray(value)) for (const v of value) weight += freezeWeighed(v);
  else {
    for (const [k, v] of Object.entries(value)) weight += k.length + freezeWeighed(v);
  }
  return weight;
}

export class ItemCache {
  private readonly map = new Map<string, { value: object; weight: number }>();
  private weight = 0;

  constructor(
    private readonly maxItems = 8192,
    private readonly maxWeight = 8 * 2 ** 20,
  ) {}

  /** The item cached under `key`, or `read()`'s (frozen, and cached when it is not most of the cache). */
  get<T extends object>(key: string, read: () => T): T {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
      return hit.value as T;
    }
    const value = read();
    const weight = freezeWeighed(value);
    if (weight > this.maxWeight / 4) return value;
    this.map.set(key, { value, weight });
    this.weight += weight;
    while (this.map.size > this.maxItems || this.weight > this.maxWeight) {
      const [oldest, entry] = this.map.entries().next().value as [string, { weight: number }];
      this.map.delete(oldest);
      this.weight -= entry.weight;
    }
    return value;
  }
}

/**
 * What the store may know of a list by its identity, on its writer's word: a sealed list (never changed, every
 * item deep-frozen) and a list made as another's first `keep` items followed by new ones. The writer
 * makes its conversation and ledger that way; `ContentStore.putList` then finds the prefix a checkpoint shares
 * with the previous one without comparing it item by item — an append costs its new items, not the list's length.
 * No I/O.
 */

const sealed = new WeakSet<readonly unknown[]>();
/**
 * The list each was made from. A list forgets its own base when it is extended (its base was needed while it was
 * written, which comes first): a chain of extensions must not keep every earlier list alive.
 */
const extensions = new WeakMap<readonly unknown[], { base: readonly unknown[]; keep: number }>();

/**
 * Remembers `list` as sealed. The caller's word: every item is deep-frozen (or a stored item) and the list is
 * never changed again — it is not frozen, because V8 copies a frozen array several times slower, and a writer
 * copies its conversation at every append; what it hands to others is a frozen copy (the recorder's
 * `run.messages`) or a copy.
 */
export function sealList<T>(list: T[]): readonly T[] {
  sealed.add(list);
  return list;
}

/** True when `list` was sealed by `sealList` (it and its items do not change). */
export function isSealedList(list: readonly unknown[]): boolean {
  return sealed.has(list);
}

/** A new array: the first `keep` items of `base` (default all) and then `items`, remembered as such. */
export function extendList<T>(base: readonly T[], items: readonly T[], keep = base.length): T[] {
  const list = keep === base.length ? base.concat(items) : base.slice(0, keep).concat(items);
  extensions.delete(base);
  extensions.set(list, { base, keep });
  return list;
}

/**
 * `list` — a sealed list its maker owns and hands only to the checkpoint it builds, which no one keeps — with its
 * items from `keep` on replaced, in place, by `items` from `from` on: a ledger that grows by a record, or whose
 * last record finished, costs the records changed, not a copy of the whole ledger (which never shrinks: a copy at
 * every change made a long import quadratic). Remembered as made from itself, so the store, which knows the list
 * it last wrote by identity, takes its first `keep` items as shared (`ContentStore.putList`, which forgets that
 * once it has written the list). Changed twice before the store saw it: the smaller `keep` counts.
 */
export function updateInPlace<T>(list: T[], keep: number, items: readonly T[], from: number): readonly T[] {
  const pending = extensions.get(list);
  list.length = keep;
  for (let i = from; i < items.length; i++) list.push(items[i] as T);
  extensions.set(list, { base: list, keep: pending?.base === list ? Math.min(pending.keep, keep) : keep });
  return list;
}

/** Forgets that `list` was changed in place (`updateInPlace`): the store has written it as it is now. */
export function settleList(list: readonly unknown[]): void {
  if (extensions.get(list)?.base === list) extensions.delete(list);
}

/** The list `list` was made from by `extendList`, and how many of its items it kept. */
export function extensionOf(list: readonly unknown[]): { base: readonly unknown[]; keep: number } | undefined {
  return extensions.get(list);
}

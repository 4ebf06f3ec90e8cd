/**
 * Deep merge of a fork's `contextPatch` into a runtime context: objects merge
 * recursively, arrays and scalars replace, `null` removes a key. The result is
 * validated as a RuntimeContextSnapshot. Pure.
 */
import { RuntimeContextSnapshotSchema, type RuntimeContextSnapshot } from './context';
import { parseWith } from './parse';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Returns a new value: `base` with `patch` merged in. Neither input is modified. */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch) || !isPlainObject(base)) {
    return structuredClone(patch);
  }
  const out: Record<string, unknown> = structuredClone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else if (value === undefined) {
      continue;
    } else if (isPlainObject(value) && isPlainObject(out[key])) {
      out[key] = deepMerge(out[key], value);
    } else {
      out[key] = structuredClone(value);
    }
  }
  return out;
}

/**
 * Applies a context patch and checks that the result is still a valid
 * RuntimeContextSnapshot; throws `InvalidInput` naming the field otherwise
 * (e.g. `contextPatch -> user.roleId: expected string`).
 */
export function applyContextPatch(
  context: RuntimeContextSnapshot,
  patch: Record<string, unknown> | undefined,
): RuntimeContextSnapshot {
  if (!patch || Object.keys(patch).length === 0) return structuredClone(context);
  return parseWith(RuntimeContextSnapshotSchema, deepMerge(context, patch), 'runtime context after contextPatch');
}

/** Paths (dotted) whose value differs between two JSON-like values: what a context patch changed, what two runs differ in. */
export function changedPaths(before: unknown, after: unknown, prefix = ''): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(before) && isObj(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].flatMap((k) => changedPaths(before[k], after[k], prefix === '' ? k : `${prefix}.${k}`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix];
}

/**
 * Staged edits of the runtime context for the next fork: `setVariable` in
 * the Runtime Context scope records a value here as a `contextPatch` (the
 * recording never changes). Arrays are patched whole (deep merge replaces
 * arrays). The patch is validated by applying it, so a value of the wrong
 * type is refused with the field named. Pure.
 */
import { OcdbError, applyContextPatch, canonicalJson, deepMerge, type RuntimeContextSnapshot } from '../model';
import type { StagedPatch } from './protocol';

export type PathSegment = string | number;

/** The staged edits of one checkpoint (the shape the `stagedContextPatch` request answers). */
export type { StagedPatch } from './protocol';

/** Parses what the user typed: JSON when it is JSON, else the text as a string. */
export function parseEditedValue(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    return trimmed;
  }
}

function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

/** A patch that sets `path` (within the runtime context) to `value`, given the current (patched) context. */
export function patchFor(context: unknown, path: readonly PathSegment[], value: unknown): Record<string, unknown> {
  if (path.length === 0 || typeof path[0] !== 'string') {
    throw new OcdbError('InvalidInput', 'Only fields inside the runtime context can be edited.', { path: 'name' });
  }
  const arrayAt = path.findIndex((s) => typeof s === 'number');
  const objectPath = (arrayAt < 0 ? path : path.slice(0, arrayAt - 1)) as string[];
  let leafKey: string;
  let leafValue: unknown;
  if (arrayAt < 0) {
    leafKey = objectPath[objectPath.length - 1] as string;
    leafValue = value;
  } else {
    // patch the whole array that holds the edited element
    const arrayKey = path[arrayAt - 1] as string;
    let cur: unknown = context;
    for (const seg of path.slice(0, arrayAt)) cur = (cur as Record<string, unknown> | undefined)?.[seg as string];
    const copy = clone(cur);
    let target: unknown = copy;
    const rest = path.slice(arrayAt);
    for (const seg of rest.slice(0, -1)) target = (target as Record<PathSegment, unknown>)[seg];
    (target as Record<PathSegment, unknown>)[rest[rest.length - 1] as PathSegment] = value;
    leafKey = arrayKey;
    leafValue = copy;
    objectPath.push(arrayKey);
  }
  let patch: Record<string, unknown> = { [leafKey]: leafValue };
  for (const seg of objectPath.slice(0, -1).reverse()) patch = { [seg]: patch };
  return patch;
}

/** Adds an edit to `staged` (a new source checkpoint starts a new patch) and checks the result is a valid context. */
export function stageEdit(
  staged: StagedPatch | undefined,
  at: { runId: string; checkpointId: string; context: RuntimeContextSnapshot },
  path: readonly PathSegment[],
  value: unknown,
): StagedPatch {
  const base = staged && staged.checkpointId === at.checkpointId ? staged.contextPatch : {};
  const current = applyContextPatch(at.context, base);
  const patch = deepMerge(base, patchFor(current, path, value)) as Record<string, unknown>;
  applyContextPatch(at.context, patch); // throws InvalidInput naming the field when the type is wrong
  return { runId: at.runId, checkpointId: at.checkpointId, contextPatch: patch };
}

/**
 * True when `context` already holds every value `patch` sets (applying it changes nothing): a fork whose context
 * this is has used the staged edits.
 */
export function isAppliedIn(context: RuntimeContextSnapshot, patch: Record<string, unknown>): boolean {
  try {
    return canonicalJson(applyContextPatch(context, patch)) === canonicalJson(context);
  } catch {
    return false; // the patch does not even fit this context
  }
}

/**
 * The path inside the runtime context a Watch expression names (`runtimeContext.user.roleId`,
 * `runtimeContext.items[0]`, `runtimeContext."cost-center"`), or undefined when it is not a plain path into it
 * (setExpression stages only those).
 */
export function contextPathOf(expression: string): PathSegment[] | undefined {
  const text = expression.trim();
  const head = /^runtimeContext/.exec(text);
  if (!head) return undefined;
  const out: PathSegment[] = [];
  const segment = /\.([A-Za-z_][A-Za-z0-9_]*)|\."((?:[^"\\]|\\.)*)"|\[(\d+)\]/y;
  segment.lastIndex = head[0].length;
  while (segment.lastIndex < text.length) {
    const at = segment.lastIndex;
    const m = segment.exec(text);
    if (!m || m.index !== at) return undefined;
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(JSON.parse(`"${m[2]}"`) as string);
    else out.push(Number(m[3]));
  }
  return out.length > 0 ? out : undefined;
}

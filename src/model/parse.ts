/**
 * Parsing of untrusted data with zod, turning failures into located
 * `InvalidInput` errors (`checkpoints[3].boundary: ...`). Every boundary where
 * data enters goes through `parseWith`. Pure: no I/O.
 */
import type { z } from 'zod';
import { OcdbError } from './errors';

/** Formats a zod issue path as `a.b[3].c` (the form users see in messages). */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * Parses `value` with `schema`; on failure throws `InvalidInput` whose message
 * names the first offending field path (prefixed by `where`, e.g. a file name)
 * and whose details carry every issue. `basePath` places `value` inside a
 * larger document (e.g. `['messages', 3]`) so the path names the whole way.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where?: string,
  basePath: ReadonlyArray<PropertyKey> = [],
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: formatPath([...basePath, ...issue.path]),
    message: issue.message,
  }));
  const first = result.error.issues[0];
  const path = first ? formatPath([...basePath, ...first.path]) : formatPath(basePath);
  const got = first ? describeValue(valueAt(value, first.path)) : '';
  const prefix = where ? `${where}: ` : '';
  const location = path === '' ? '(root)' : path;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  throw new OcdbError('InvalidInput', `${prefix}${location}: ${first?.message ?? 'invalid'} (got ${got})${more}`, {
    path,
    issues,
    where,
  });
}

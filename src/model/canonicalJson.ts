/**
 * Canonical JSON (object keys sorted, no whitespace) and the hashes built on
 * it: `argsHash` (the cassette key of a tool call) and `contentHash` (the key
 * of a content-addressed blob), and the nesting limit of every input
 * (`MAX_JSON_DEPTH`). Uses node:crypto only. No other I/O.
 */
import * as crypto from 'node:crypto';
import { OcdbError } from './errors';

/**
 * How deeply values may nest (objects and arrays inside each other) anywhere
 * data enters: a DebugRun loaded with `ocdb load`, an HTTP body, an imported
 * record, a recorded value. Deeper input is refused with a located
 * `InvalidInput` error instead of exhausting the stack. Real agent data nests
 * a few dozen levels at most.
 */
export const MAX_JSON_DEPTH = 256;

/** `a.b[3]` of a path, the middle elided when it is long (a refused value is deep by definition). */
function shortPath(path: readonly (string | number)[]): string {
  const shown = path.length > 12 ? [...path.slice(0, 8), '…', ...path.slice(-3)] : path;
  let out = '';
  for (const key of shown) {
    if (key === '…') out += '…';
    else if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

/** The error for a value nested deeper than MAX_JSON_DEPTH; `basePath` places the value in its document. */
export function tooDeep(
  path: readonly (string | number)[],
  where?: string,
  basePath: readonly (string | number)[] = [],
): OcdbError {
  const full = [...basePath, ...path];
  const at = shortPath(full) || '(root)';
  return new OcdbError(
    'InvalidInput',
    `${where ? `${where}: ` : ''}${at}: nested deeper than ${MAX_JSON_DEPTH} levels (the limit of nesting; flatten the value or store it as a string)`,
    { path: shortPath(full), depth: full.length, limit: MAX_JSON_DEPTH, ...(where ? { where } : {}) },
  );
}

/**
 * Throws the located InvalidInput of `tooDeep` when `value` nests deeper than
 * MAX_JSON_DEPTH. Iterative: any depth is checked without recursion.
 */
export function assertJsonDepth(value: unknown, where?: string, basePath: readonly (string | number)[] = []): void {
  // The depth alone first (no path per node: every imported line passes here); the path only for the error.
  const values: unknown[] = [value];
  const depths: number[] = [basePath.length];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop() as number;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return throwTooDeep(value, where, basePath);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const item: unknown = v[i];
        if (item !== null && typeof item === 'object') {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        const item = (v as Record<string, unknown>)[key];
        if (item !== null && typeof item === 'object') {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
}

/** Throws the error for `value` nested too deep, with the path of its first node past MAX_JSON_DEPTH. */
function throwTooDeep(value: unknown, where: string | undefined, basePath: readonly (string | number)[]): never {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (v === null || typeof v !== 'object') continue;
    if (basePath.length + path.length >= MAX_JSON_DEPTH) throw tooDeep(path, where, basePath);
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    else for (const [k, item] of Object.entries(v)) stack.push({ value: item, path: [...path, k] });
  }
  throw tooDeep([], where, basePath);
}

/**
 * What every JSON input is checked for before it is parsed into the model:
 * nesting within MAX_JSON_DEPTH, and no `__proto__` key (a JS object cannot
 * keep one as data: it would be dropped without notice). Located InvalidInput.
 */
export function assertJsonInput(value: unknown, where?: string, basePath: readonly (string | number)[] = []): void {
  assertJsonDepth(value, where, basePath);
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    else
      for (const [k, item] of Object.entries(v)) {
        if (k === '__proto__') {
          const at = shortPath([...basePath, ...path, k]);
          throw new OcdbError(
            'InvalidInput',
            `${where ? `${where}: ` : ''}${at}: the key "__proto__" is not allowed (it cannot be kept as data); rename it`,
            { path: at, ...(where ? { where } : {}) },
          );
        }
        stack.push({ value: item, path: [...path, k] });
      }
  }
}

type Frame = { kind: 'value'; value: unknown; depth: number } | { kind: 'text'; text: string };

/** Pushes the frames that write `value`, in reverse (the stack pops the first part first). */
function expand(value: unknown, depth: number, stack: Frame[], out: string[], path: () => (string | number)[]): void {
  if (value === null || value === undefined) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      out.push(Number.isFinite(value) ? JSON.stringify(value) : 'null');
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'object': {
      const withToJson = value as { toJSON?: () => unknown };
      if (typeof withToJson.toJSON === 'function') {
        expand(withToJson.toJSON(), depth, stack, out, path);
        return;
      }
      if (depth >= MAX_JSON_DEPTH) throw tooDeep(path());
      const parts: Frame[] = [];
      if (Array.isArray(value)) {
        parts.push({ kind: 'text', text: '[' });
        value.forEach((item, i) => {
          if (i > 0) parts.push({ kind: 'text', text: ',' });
          const v = item === undefined || typeof item === 'function' ? null : (item as unknown);
          parts.push({ kind: 'value', value: v, depth: depth + 1 });
        });
        parts.push({ kind: 'text', text: ']' });
      } else {
        const record = value as Record<string, unknown>;
        parts.push({ kind: 'text', text: '{' });
        let first = true;
        for (const key of Object.keys(record).sort()) {
          const v = record[key];
          if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
          parts.push({ kind: 'text', text: `${first ? '' : ','}${JSON.stringify(key)}:` });
          first = false;
          parts.push({ kind: 'value', value: v, depth: depth + 1 });
        }
        parts.push({ kind: 'text', text: '}' });
      }
      for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i] as Frame);
      return;
    }
    default:
      // functions and symbols have no JSON form
      out.push('null');
  }
}

/** How deeply `writeShallow` recurses before it leaves a value to the iterative walk. */
const SHALLOW_DEPTH = 32;

/**
 * Canonical JSON of deep-frozen values written before, by identity: a frozen value cannot change, so its text is
 * the same wherever it appears again (a tool's result in the ledger record, in the call's result and in the tool
 * message). `depth`: how deeply the value nests (an object alone is 1), so a remembered text is only used where
 * the recursion would have reached it without leaving for the iterative walk — the output and the nesting limit's
 * error are exactly those of a full walk.
 */
const remembered = new WeakMap<object, { text: string; depth: number }>();

/**
 * Remembers `text` as the canonical JSON of `value`, which the caller has deep-frozen (every object in it frozen,
 * nothing with toJSON) and whose canonicalJson `text` is — the caller's word, e.g. `value` was parsed from
 * `text`. Later serialisations of anything holding `value` write `text` in its place.
 */
export function rememberCanonical(value: object | string, text: string): void {
  if (typeof value === 'string') {
    if (value.length < STRING_REMEMBER_MIN) return;
    rememberedStrings.delete(value);
    rememberedStrings.set(value, text);
    if (rememberedStrings.size > REMEMBERED_STRINGS) {
      const oldest = rememberedStrings.keys().next();
      if (!oldest.done) rememberedStrings.delete(oldest.value);
    }
    return;
  }
  const depth = nestingOf(value, 0);
  if (depth !== undefined) remembered.set(value, { text, depth });
}

/**
 * The JSON text of the last few long strings remembered (a tool result that is a string, as most are: it is
 * written again in the call's tool message and ledger record), by value. A string cannot be a WeakMap key; a
 * string looked up again is the same string, whose hash the engine keeps, so a hit costs no pass over it.
 */
const rememberedStrings = new Map<string, string>();
const REMEMBERED_STRINGS = 32;
/** Shorter strings are cheaper to write again than to look up. */
const STRING_REMEMBER_MIN = 256;

/** How deeply `value` nests (0 for a primitive); undefined past SHALLOW_DEPTH (not worth remembering). */
function nestingOf(value: unknown, depth: number): number | undefined {
  if (typeof value !== 'object' || value === null) return 0;
  if (depth >= SHALLOW_DEPTH) return undefined;
  let max = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) {
    const d = nestingOf(v, depth + 1);
    if (d === undefined) return undefined;
    if (d > max) max = d;
  }
  return max + 1;
}

/** The remembered canonical text of `value` when the recursion at `depth` would have written all of it. */
function rememberedText(value: object, depth: number): string | undefined {
  const known = remembered.get(value);
  return known !== undefined && depth + known.depth <= SHALLOW_DEPTH ? known.text : undefined;
}

/**
 * The canonical JSON remembered for `value` (rememberCanonical), or undefined: a deep-frozen value whose text is
 * known by identity — a stored tool result, which a tool message or a ledger record carrying it refers to whole.
 */
export function rememberedCanonical(value: object | string): string | undefined {
  if (typeof value === 'string') return value.length >= STRING_REMEMBER_MIN ? rememberedStrings.get(value) : undefined;
  return rememberedText(value, 0);
}

/**
 * The JSON text of each object key seen (`"key":`), by key: the same few keys (`role`, `content`, `type`, `text`…)
 * make up most of what is serialised. Bounded: past KEY_TEXTS keys, the rest are written as they come.
 */
const keyTexts = new Map<string, string>();
const KEY_TEXTS = 4096;

function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (keyTexts.size < KEY_TEXTS) keyTexts.set(key, text);
  }
  return text;
}

/**
 * `value` written as `expand` writes it, by recursion into one string (no array of parts to join); undefined when it
 * nests deeper than SHALLOW_DEPTH. An object's keys are sorted only when they are not in order already (a value
 * parsed from canonical JSON, most of what a store writes again, is).
 */
function writeShallow(value: unknown, depth: number): string | undefined {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return (value.length >= STRING_REMEMBER_MIN ? rememberedStrings.get(value) : undefined) ?? JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object': {
      const known = rememberedText(value, depth);
      if (known !== undefined) return known;
      const withToJson = value as { toJSON?: () => unknown };
      if (typeof withToJson.toJSON === 'function') return writeShallow(withToJson.toJSON(), depth);
      if (depth >= SHALLOW_DEPTH) return undefined;
      if (Array.isArray(value)) {
        let text = '[';
        for (let i = 0; i < value.length; i++) {
          const item = value[i] as unknown;
          const itemText = writeShallow(item === undefined || typeof item === 'function' ? null : item, depth + 1);
          if (itemText === undefined) return undefined;
          text += i > 0 ? `,${itemText}` : itemText;
        }
        return `${text}]`;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      // the order sort() gives (UTF-16 code units), checked first: sorting keys in order costs more than the check
      for (let i = 1; i < keys.length; i++) {
        if ((keys[i - 1] as string) > (keys[i] as string)) {
          keys.sort();
          break;
        }
      }
      let text = '{';
      let first = true;
      for (const key of keys) {
        const v = record[key];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        const memberText = writeShallow(v, depth + 1);
        if (memberText === undefined) return undefined;
        text += first ? keyText(key) + memberText : `,${keyText(key)}${memberText}`;
        first = false;
      }
      return `${text}}`;
    }
    default:
      return 'null';
  }
}

/**
 * JSON with object keys sorted at every level and no whitespace; `undefined`
 * members are dropped as JSON.stringify does. Iterative; a value nested
 * deeper than MAX_JSON_DEPTH throws a located InvalidInput (`tooDeep`).
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const known = rememberedText(value, 0);
    if (known !== undefined) return known;
  }
  // Most values nest a few levels: written by recursion, as `expand` writes them; a deeper one by the walk below.
  const shallow = writeShallow(value, 0);
  if (shallow !== undefined) return shallow;
  const out: string[] = [];
  const stack: Frame[] = [{ kind: 'value', value, depth: 0 }];
  // the path is only needed for the error: found again by a depth walk when it happens
  const path = () => deepestPath(value);
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if (frame.kind === 'text') out.push(frame.text);
    else expand(frame.value, frame.depth, stack, out, path);
  }
  return out.join('');
}

/**
 * The beginning of canonicalJson(value): at least `limit` characters of it (when it is that long), without
 * serialising the rest — a long string is cut, members after the limit are not visited. `complete` says whether
 * the text is the whole canonical JSON. For excerpts of values of any size.
 */
export function canonicalJsonPrefix(value: unknown, limit: number): { text: string; complete: boolean } {
  const out: string[] = [];
  let length = 0;
  const stack: Frame[] = [{ kind: 'value', value, depth: 0 }];
  const path = () => deepestPath(value);
  while (stack.length > 0 && length < limit) {
    const frame = stack.pop() as Frame;
    if (frame.kind === 'text') {
      out.push(frame.text);
      length += frame.text.length;
      continue;
    }
    const v = frame.value;
    if (typeof v === 'string' && v.length > limit - length) {
      const cut = JSON.stringify(v.slice(0, limit - length + 1)).slice(0, -1); // the closing quote is not reached
      out.push(cut);
      length += cut.length;
      return { text: out.join(''), complete: false };
    }
    const before = out.length;
    expand(v, frame.depth, stack, out, path);
    for (let i = before; i < out.length; i++) length += (out[i] as string).length;
  }
  return { text: out.join(''), complete: stack.length === 0 };
}

/** The path of the first place `value` reaches MAX_JSON_DEPTH (for the error message). */
function deepestPath(value: unknown): (string | number)[] {
  try {
    assertJsonDepth(value);
  } catch (e) {
    const depth = (e as OcdbError).details.depth;
    if (typeof depth === 'number') return firstPathOfDepth(value, depth);
  }
  return [];
}

function firstPathOfDepth(value: unknown, depth: number): (string | number)[] {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (path.length === depth) return path;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    else for (const [k, item] of Object.entries(v)) stack.push({ value: item, path: [...path, k] });
  }
  return [];
}

type OneShotHash = (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string;

/**
 * Hex SHA-256 of a string (UTF-8). By Node's one-shot `crypto.hash` (Node 20.12+, 21.7+) where there is one: without
 * the Hash object createHash makes, a short text hashes in half the time (1 KB: 0.9 µs against 2.2), and every
 * stored item is hashed; createHash on older runtimes.
 */
export function sha256Hex(text: string | Uint8Array): string {
  const oneShot = (crypto as { hash?: OneShotHash }).hash;
  if (oneShot) return oneShot('sha256', text, 'hex');
  const hash = crypto.createHash('sha256');
  return (typeof text === 'string' ? hash.update(text, 'utf8') : hash.update(text)).digest('hex');
}

/** The cassette key of a tool call: first 16 hex chars of SHA-256 of the canonical JSON of its args. */
export function argsHash(args: unknown): string {
  return sha256Hex(canonicalJson(args)).slice(0, 16);
}

/**
 * The key of a content-addressed blob: 32 hex chars (128 bits) of SHA-256 of its canonical JSON text (or of that
 * text's UTF-8, when the caller has encoded it already: the same key).
 */
export function contentHash(canonicalText: string | Uint8Array): string {
  return sha256Hex(canonicalText).slice(0, 32);
}

/**
 * Every answer of the MCP server is bounded: values are clipped (long strings, long lists, deep nesting) with a
 * visible marker, lists are paged with a `truncated` flag and the offset the next call takes, and the whole JSON
 * text stays under a size cap whatever the run holds. Secrets are removed (model/redact.ts) before anything is
 * measured or sent. Pure: no store, no SDK.
 */
import { redactValue } from '../model';

/**
 * The most characters of JSON text one answer carries by default: about 5,000–7,000 tokens, well under what MCP
 * clients accept from one tool call (Claude Code warns at 10,000 tokens and cuts at 25,000).
 */
export const DEFAULT_MAX_ANSWER_CHARS = 20_000;
/** The smallest cap `ocdb mcp --max-answer-chars` accepts: below it a single checkpoint's facts do not fit. */
export const MIN_MAX_ANSWER_CHARS = 4_000;

export interface ClipLimits {
  /** Characters of a string kept before "…[+N chars]". */
  maxString: number;
  /** Items of an array (or keys of an object) kept before "…[+N more]". */
  maxItems: number;
  /** Nesting kept; deeper parts become "[…]". */
  maxDepth: number;
}

/** How much of a value an answer shows by default (a whole checkpoint asks for more per string). */
export const DEFAULT_CLIP: ClipLimits = { maxString: 600, maxItems: 30, maxDepth: 6 };
/** Tighter limits, for items of a page and for answers that had to be clipped again to fit the cap. */
export const SMALL_CLIP: ClipLimits = { maxString: 160, maxItems: 8, maxDepth: 4 };

/** Whether a clip cut anything (set by `clip`, read by the answer's `truncated`). */
export interface ClipReport {
  clipped: boolean;
}

/**
 * `value` made small under `limits`: strings cut with "…[+N chars]", arrays and objects with a last entry saying
 * how many more there were, nesting past maxDepth replaced by "[…]". Reads only what it keeps (a lazy list of
 * 10,000 messages clipped to 30 reads 30). Never mutates its input.
 */
export function clip(value: unknown, limits: ClipLimits, report: ClipReport, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= limits.maxString) return value;
    report.clipped = true;
    return `${value.slice(0, limits.maxString)}…[+${value.length - limits.maxString} chars]`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= limits.maxDepth) {
    report.clipped = true;
    return '[…]';
  }
  if (Array.isArray(value)) {
    const n = Math.min(value.length, limits.maxItems);
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) out.push(clip(value[i], limits, report, depth + 1));
    if (value.length > n) {
      report.clipped = true;
      out.push(`…[+${value.length - n} more]`);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  const n = Math.min(keys.length, limits.maxItems);
  for (let i = 0; i < n; i++) {
    const key = keys[i] as string;
    // defineProperty: a `__proto__` key stays a plain field, never a prototype
    Object.defineProperty(out, key, {
      value: clip((value as Record<string, unknown>)[key], limits, report, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (keys.length > n) {
    report.clipped = true;
    out['…'] = `+${keys.length - n} more keys`;
  }
  return out;
}

/** A page of a list: which items, and where the next page starts. */
export interface Page {
  offset: number;
  /** Items in this answer. */
  count: number;
  /** Items in the whole list (when known). */
  total?: number;
  /** Set when there is more: the `offset` to pass for the next page. */
  nextOffset?: number;
}

/**
 * The first items of `items` whose JSON fits in `budget` characters (at least one, clipped small when it alone
 * is too large), and the page that says where the next call starts.
 */
export function fitItems<T>(
  items: readonly T[],
  offset: number,
  budget: number,
  report: ClipReport,
  total?: number,
): { items: unknown[]; page: Page } {
  const kept: unknown[] = [];
  let used = 2;
  for (const item of items) {
    let shown: unknown = item;
    let size = jsonLength(shown) + 1;
    if (size > budget && kept.length === 0) {
      shown = clip(item, SMALL_CLIP, report);
      size = jsonLength(shown) + 1;
    }
    if (used + size > budget && kept.length > 0) break;
    kept.push(shown);
    used += size;
  }
  const all = total ?? offset + items.length;
  const page: Page = { offset, count: kept.length, ...(total !== undefined ? { total } : {}) };
  if (offset + kept.length < all || kept.length < items.length) {
    page.nextOffset = offset + kept.length;
    report.clipped = true;
  }
  return { items: kept, page };
}

export function jsonLength(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/**
 * The text an answer sends: `body` with secrets removed, `truncated` set from the clip report, and `hint` (how to
 * get the rest) when something was cut. Over `maxChars` after all, the body's strings and lists are clipped
 * harder until it fits; a body that still does not fit is replaced by a note saying what to ask instead.
 */
export function answerText(body: Record<string, unknown>, report: ClipReport, maxChars: number, hint?: string): string {
  const safe = redactValue(body);
  const withFlag = (b: Record<string, unknown>, clipped: boolean): Record<string, unknown> => ({
    ...b,
    truncated: clipped,
    ...(clipped && hint ? { hint } : {}),
  });
  let text = JSON.stringify(withFlag(safe, report.clipped));
  if (text.length <= maxChars) return text;
  for (const limits of [DEFAULT_CLIP, SMALL_CLIP, { maxString: 60, maxItems: 4, maxDepth: 3 }]) {
    const again: ClipReport = { clipped: true };
    text = JSON.stringify(withFlag(clip(safe, limits, again) as Record<string, unknown>, true));
    if (text.length <= maxChars) return text;
  }
  return JSON.stringify({
    truncated: true,
    note: `The answer would be ${text.length} characters, over this server's cap of ${maxChars}.`,
    hint: hint ?? 'Ask for less: a smaller page (limit), a narrower range, or one item by its id.',
  });
}

/**
 * A line diff of two texts, for what a person reads in a hover or a terminal: unified hunks with a few lines of
 * context, `@@ -a,b +c,d @@` headers and a bound on the lines shown. The common prefix and suffix are trimmed first
 * and the middle is an LCS (bounded: a middle too large to compare line by line reads as all removed, all added).
 * Pure: text in, lines out.
 */
import { diffMiddle, MAX_DIFF_CELLS } from '../model';

export interface DiffLine {
  kind: ' ' | '-' | '+';
  text: string;
}

/** Every line of `after` against `before`, in order: kept (' '), removed ('-'), added ('+'). */
export function diffLines(before: string, after: string): DiffLine[] {
  const { a, s, e, x, y } = diffMiddle(before, after);
  const out: DiffLine[] = a.slice(0, s).map((text) => ({ kind: ' ', text }));
  if (x.length * y.length > MAX_DIFF_CELLS) {
    for (const text of x) out.push({ kind: '-', text });
    for (const text of y) out.push({ kind: '+', text });
  } else {
    // lcs[i][j]: the longest common subsequence of x[i..] and y[j..]
    const lcs: Uint32Array[] = [];
    for (let i = 0; i <= x.length; i++) lcs.push(new Uint32Array(y.length + 1));
    for (let i = x.length - 1; i >= 0; i--)
      for (let j = y.length - 1; j >= 0; j--)
        (lcs[i] as Uint32Array)[j] =
          x[i] === y[j]
            ? ((lcs[i + 1] as Uint32Array)[j + 1] as number) + 1
            : Math.max((lcs[i + 1] as Uint32Array)[j] as number, (lcs[i] as Uint32Array)[j + 1] as number);
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        out.push({ kind: ' ', text: x[i] as string });
        i++;
        j++;
      } else if (
        i < x.length &&
        (j >= y.length || ((lcs[i + 1] as Uint32Array)[j] as number) >= ((lcs[i] as Uint32Array)[j + 1] as number))
      ) {
        // removals before additions, as a unified diff reads
        out.push({ kind: '-', text: x[i] as string });
        i++;
      } else {
        out.push({ kind: '+', text: y[j] as string });
        j++;
      }
    }
  }
  for (const text of a.slice(a.length - e)) out.push({ kind: ' ', text });
  return out;
}

/**
 * Unified diff hunks of `before` → `after` with `context` lines around each change, at most `maxLines` lines in
 * all (then `… N more lines`). Empty when the texts have the same lines.
 */
export function unifiedDiff(before: string, after: string, options: { context?: number; maxLines?: number } = {}) {
  const context = options.context ?? 3;
  const max = options.maxLines ?? Infinity;
  const lines = diffLines(before, after);
  const changed = lines.map((l, i) => (l.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return [];
  // group the changes whose context windows touch
  const groups: [number, number][] = [];
  for (const i of changed) {
    const last = groups.at(-1);
    if (last && i - last[1] <= 2 * context + 1) last[1] = i;
    else groups.push([i, i]);
  }
  const out: string[] = [];
  let shown = 0;
  let total = 0;
  for (const [from, to] of groups) {
    const start = Math.max(0, from - context);
    const end = Math.min(lines.length, to + context + 1);
    let oldLine = 1;
    let newLine = 1;
    for (let k = 0; k < start; k++) {
      if (lines[k]?.kind !== '+') oldLine++;
      if (lines[k]?.kind !== '-') newLine++;
    }
    const body = lines.slice(start, end);
    const oldCount = body.filter((l) => l.kind !== '+').length;
    const newCount = body.filter((l) => l.kind !== '-').length;
    const hunk = [
      `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`,
      ...body.map((l) => `${l.kind}${l.text}`),
    ];
    total += hunk.length;
    for (const line of hunk) {
      if (shown >= max) break;
      out.push(line);
      shown++;
    }
  }
  if (total > shown) out.push(`… ${total - shown} more lines`);
  return out;
}

/** Text formatting for the CLI: tables, durations, timestamps. Pure. */
import { byteSize, runStatusText, type ArtifactRef } from '../model';
import type { RunSummary } from '../store';

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

export function timestamp(ms: number | undefined): string {
  return ms === undefined
    ? '-'
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z');
}

/** Status as users should read it: a `running` run whose process died is "crashed"; "diverged at step 5 · system prompt". */
export function displayStatus(run: Pick<RunSummary, 'status' | 'crashed' | 'error'>): string {
  return runStatusText(run);
}

/**
 * `text` as one line a terminal shows as it is: control characters (a newline or an ANSI escape in a file name or
 * a record a trace holds) are written as escapes (`\\n`, `\\x1b`), never sent to the terminal raw.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}

export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A run's artifacts as a table (`ocdb show`, `ocdb artifact <run>`): name, version, type, size, hash, when. */
export function artifactTable(
  refs: readonly ArtifactRef[],
  sizeOf: (contentHash: string) => number | undefined,
): string {
  return table(
    ['NAME', 'VERSION', 'TYPE', 'SIZE', 'HASH', 'CREATED'],
    refs.map((r) => {
      const size = sizeOf(r.contentHash);
      return [
        r.artifactId,
        `v${r.version}`,
        r.type,
        size === undefined ? 'not in store' : byteSize(size),
        r.contentHash.slice(0, 12),
        timestamp(r.createdAt),
      ];
    }),
  );
}

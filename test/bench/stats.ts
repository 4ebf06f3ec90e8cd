/** Small statistics helpers for the benchmarks. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

export function summarize(samplesUs: number[]): { mean: number; p50: number; p95: number; max: number } {
  const sorted = [...samplesUs].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return { mean, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) ?? NaN };
}

export function us(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1000;
}

export const fmt = (n: number, digits = 1): string => n.toFixed(digits);

export function kb(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** A positive integer from an environment variable, else `dflt`. */
export function envInt(value: string | undefined, dflt: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : dflt;
}

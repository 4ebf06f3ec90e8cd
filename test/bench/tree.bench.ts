/**
 * Runs tree benchmark: the page the Agent Runs view asks for —
 * `listRuns({ parentRunId: null, limit: 200 })`, newest top-level runs first, with their total — in stores of
 * OCDB_BENCH_TREE_SIZES runs (default 2,000 / 20,000 / 100,000; one in ten a fork). Target: flat in the number of
 * runs (printed as the ratio of the largest store to the smallest). p50 of 30 reads each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunStore } from '../../src/store';
import { sizesFrom } from './record.bench';
import { fmt, summarize, us } from './stats';

export async function run(): Promise<void> {
  const sizes = sizesFrom(process.env.OCDB_BENCH_TREE_SIZES, [2000, 20000, 100000]);
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-tree-'));
  const rows: { size: number; p50: number; p95: number; total: number }[] = [];
  try {
    for (const size of sizes) {
      const store = openRunStore(join(dir, `runs-${size}.db`));
      const t0 = Date.parse('2026-01-01T00:00:00Z');
      store.transaction(() => {
        for (let i = 0; i < size; i++) {
          const fork = i % 10 === 9;
          store.createRun({
            runId: `run-${i}`,
            sessionId: `s-${i % 97}`,
            agentId: `agent-${i % 5}`,
            startedAt: t0 + i * 1000,
            ...(fork ? { parentRunId: `run-${i - 1}`, mode: 'fork' as const } : {}),
          });
        }
      });
      store.checkpointWal();
      const samples: number[] = [];
      let total = 0;
      for (let k = 0; k < 30; k++) {
        const t = process.hrtime.bigint();
        const page = store.listRuns({ parentRunId: null, limit: 200 });
        samples.push(us(t));
        total = page.total;
        if (page.runs.length !== 200) throw new Error('short page');
      }
      store.close();
      const s = summarize(samples);
      rows.push({ size, p50: s.p50, p95: s.p95, total });
      await Promise.resolve();
    }
    console.log('| runs in the store | ' + rows.map((r) => String(r.size)).join(' | ') + ' |');
    console.log('| --- | ' + rows.map(() => '---').join(' | ') + ' |');
    console.log('| tree page p50 (ms) | ' + rows.map((r) => fmt(r.p50 / 1000, 2)).join(' | ') + ' |');
    console.log('| tree page p95 (ms) | ' + rows.map((r) => fmt(r.p95 / 1000, 2)).join(' | ') + ' |');
    console.log('| top-level runs (total) | ' + rows.map((r) => String(r.total)).join(' | ') + ' |');
    const first = rows[0];
    const last = rows.at(-1);
    if (first && last)
      console.log(`ratio largest/smallest store (target: flat, ≤ 1.5): ${fmt(last.p50 / first.p50, 2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

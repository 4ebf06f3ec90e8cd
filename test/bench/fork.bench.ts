/**
 * Fork benchmark (forks at O(new data)): a run recorded through the SDK (the record bench's ReAct workload) of
 * OCDB_BENCH_FORK_SIZES checkpoints (default 2,000 and 10,000), replayed in captured mode from an early
 * (index 100) and a late (100 before the end) checkpoint through the documented front door (`ForkService`,
 * `runFork`). Prints the creation time and the list rows it added, the runner's start (to its first checkpoint:
 * the plan, and the cassette's count of the calls finished before the fork point) and its time per walked
 * checkpoint after the first (the walk is cancelled after OCDB_BENCH_FORK_WALK checkpoints, default 200); medians
 * of OCDB_BENCH_REPEAT (default 3). Target: creation and walk flat between the early and the late checkpoint
 * (printed as late/early); the start reads the source's ledger once (it grows with the calls before the point).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForkService } from '../../src/fork/forkService';
import { runFork } from '../../src/fork/runner';
import { openRunStore } from '../../src/store';
import { recordRun, sizesFrom } from './record.bench';
import { fmt, percentile, us } from './stats';

const RUN = 'bench-record';

const median = (xs: readonly number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

interface ForkFigures {
  createMs: number;
  listRows: number;
  /** From runFork's call to its first checkpoint written (the plan, the cassette's count of the calls before). */
  startMs: number;
  /** Per checkpoint walked after the first. */
  walkedPerCpMs: number;
  walked: number;
}

function listRows(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return Number((db.prepare('SELECT COUNT(*) AS n FROM list_nodes').get() as { n: number }).n);
  } finally {
    db.close();
  }
}

async function forkOnce(file: string, index: number, walkLimit: number): Promise<ForkFigures> {
  const before = listRows(file);
  const store = openRunStore(file, { create: false });
  try {
    const from = store.listCheckpoints(RUN, { offset: index, limit: 1 })[0]?.checkpointId as string;
    let t = process.hrtime.bigint();
    const created = new ForkService(store).createReplay(RUN, { fromCheckpointId: from, captured: true });
    const createMs = us(t) / 1000;
    store.checkpointWal();
    const rows = listRows(file) - before;
    const abort = new AbortController();
    let walked = 0;
    let firstMs = 0;
    t = process.hrtime.bigint();
    await runFork(store, created.forkRequestId, {
      signal: abort.signal,
      onCheckpoint: () => {
        if (walked === 0) firstMs = us(t) / 1000;
        if (++walked >= walkLimit) abort.abort();
      },
    });
    const walkMs = us(t) / 1000 - firstMs;
    return {
      createMs,
      listRows: rows,
      startMs: firstMs,
      walkedPerCpMs: walkMs / Math.max(1, walked - 1),
      walked,
    };
  } finally {
    store.close();
  }
}

export async function run(): Promise<void> {
  const sizes = sizesFrom(process.env.OCDB_BENCH_FORK_SIZES, [2000, 10000]);
  const repeat = Math.max(1, Number(process.env.OCDB_BENCH_REPEAT ?? 3));
  const walkLimit = Math.max(1, Number(process.env.OCDB_BENCH_FORK_WALK ?? 200));
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-fork-'));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  try {
    console.log(
      `\nCaptured replay of an SDK-recorded run (medians of ${repeat}; walk cancelled after ${walkLimit} checkpoints)`,
    );
    console.log(
      line([
        'run',
        'fork point',
        'messages there',
        'create ms',
        'list rows added',
        'start ms (to the first checkpoint)',
        'walk ms / checkpoint (after the first)',
        'walked',
      ]),
    );
    console.log(line(Array.from({ length: 8 }, () => '---')));
    for (const size of sizes) {
      const file = join(dir, `runs-${size}.db`);
      await recordRun(file, size);
      const figures: { index: number; messages: number; f: ForkFigures }[] = [];
      for (const index of [100, size - 100]) {
        const runs: ForkFigures[] = [];
        for (let r = 0; r < repeat; r++) runs.push(await forkOnce(file, index, walkLimit));
        const f: ForkFigures = {
          createMs: median(runs.map((x) => x.createMs)),
          listRows: median(runs.map((x) => x.listRows)),
          startMs: median(runs.map((x) => x.startMs)),
          walkedPerCpMs: median(runs.map((x) => x.walkedPerCpMs)),
          walked: median(runs.map((x) => x.walked)),
        };
        const store = openRunStore(file, { create: false });
        const messages = store.listCheckpoints(RUN, { offset: index, limit: 1 })[0]?.messageCount ?? 0;
        store.close();
        figures.push({ index, messages, f });
        console.log(
          line([
            `${size} cp`,
            `#${index}`,
            String(messages),
            fmt(f.createMs, 2),
            String(f.listRows),
            fmt(f.startMs, 1),
            fmt(f.walkedPerCpMs, 3),
            String(f.walked),
          ]),
        );
      }
      const [early, late] = figures as [(typeof figures)[0], (typeof figures)[0]];
      console.log(
        line([
          `${size} cp`,
          'late/early',
          '',
          fmt(late.f.createMs / early.f.createMs, 2),
          '',
          fmt(late.f.startMs / early.f.startMs, 2),
          fmt(late.f.walkedPerCpMs / early.f.walkedPerCpMs, 2),
          '',
        ]),
      );
      rmSync(file, { force: true });
      rmSync(file + '.floor', { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

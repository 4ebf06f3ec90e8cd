/**
 * The bulk path of scale.bench.ts: copies of the template families (scaleTemplates.ts) loaded through the store
 * contract — `RunStore.loadRun` of each copy's DebugRun (validated as `ocdb load` validates it), many runs to one
 * `transaction` — so the store writes its own rows in whatever table layout it has. Copy `c` of family `f` is
 * the family's exports with every template run id replaced by `s<c>f<f>` (forks `s<c>f<f>k<j>`), every checkpoint
 * id by `<its run>.<n>` and every timestamp moved by `c` minutes: a store of distinct runs, newest copy last.
 *   node --import tsx test/bench/scaleSeed.ts <store> <templates.json> <fromCopy> <toCopy>
 * loads copies [fromCopy, toCopy) and prints one line per transaction (`{"runs":n,"checkpoints":n}`).
 */
import { readFileSync } from 'node:fs';
import { openRunStore, type RunStore } from '../../src/store';
import type { TemplateFamily } from './scaleTemplates';

/** Runs per transaction. */
const BATCH_RUNS = 400;
const TIMESTAMP = /"(startedAt|endedAt|createdAt|heartbeatAt|appliedAt|answeredAt|askedAt)":(\d+)/g;

/** The run id copy `copy` gives the run at `index` of family `family` (0: its root). */
export function copyRunId(copy: number, family: number, index = 0): string {
  const root = `s${String(copy).padStart(6, '0')}f${family}`;
  return index === 0 ? root : `${root}k${index}`;
}

/** A family's template ids (run ids, then checkpoint ids) and the pattern that finds any of them in its texts. */
export interface FamilyTokens {
  pattern: RegExp;
  /** token -> what it becomes in copy `copy`. */
  rename: Map<string, (copy: number) => string>;
}

export function tokensOf(family: TemplateFamily, f: number): FamilyTokens {
  const rename = new Map<string, (copy: number) => string>();
  family.runIds.forEach((id, i) => rename.set(id, (copy) => copyRunId(copy, f, i)));
  family.texts.forEach((text, i) => {
    const run = JSON.parse(text) as { checkpoints: { checkpointId: string }[] };
    run.checkpoints.forEach((cp, n) => rename.set(cp.checkpointId, (copy) => `${copyRunId(copy, f, i)}.${n}`));
  });
  const escaped = [...rename.keys()]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return { pattern: new RegExp(escaped.join('|'), 'g'), rename };
}

export function copyText(text: string, tokens: FamilyTokens, copy: number): string {
  const shift = copy * 60_000;
  return text
    .replace(tokens.pattern, (token) => (tokens.rename.get(token) as (copy: number) => string)(copy))
    .replace(TIMESTAMP, (_, key: string, value: string) => `"${key}":${Number(value) + shift}`);
}

/** Loads copies [from, to) of every family into `store`; `progress` after each transaction. */
export function loadCopies(
  store: RunStore,
  families: readonly TemplateFamily[],
  from: number,
  to: number,
  progress: (runs: number, checkpoints: number) => void = () => undefined,
): void {
  const perCopy = families.reduce((n, f) => n + f.runIds.length, 0);
  const tokens = families.map((family, f) => tokensOf(family, f));
  const copiesPerBatch = Math.max(1, Math.floor(BATCH_RUNS / perCopy));
  for (let start = from; start < to; start += copiesPerBatch) {
    const end = Math.min(to, start + copiesPerBatch);
    let runs = 0;
    let checkpoints = 0;
    store.transaction(() => {
      for (let copy = start; copy < end; copy++) {
        families.forEach((family, f) => {
          for (const text of family.texts) {
            const summary = store.loadRun(JSON.parse(copyText(text, tokens[f] as FamilyTokens, copy)), {
              where: `copy ${copy} of template family ${f}`,
            });
            runs++;
            checkpoints += summary.checkpointCount;
          }
        });
      }
    });
    progress(runs, checkpoints);
  }
}

/** Runs per copy of the families. */
export function runsPerCopy(families: readonly TemplateFamily[]): number {
  return families.reduce((n, f) => n + f.runIds.length, 0);
}

/**
 * The first copy not yet in `store` (copies are loaded in order, whole copies per transaction): a store kept
 * from an earlier bench run (OCDB_BENCH_SCALE_KEEP) continues where it stopped.
 */
export function firstMissingCopy(store: RunStore, copies: number): number {
  let lo = 0;
  let hi = copies;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (store.hasRun(copyRunId(mid, 0))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

if (require.main === module) {
  const [location, templates, fromText, toText] = process.argv.slice(2);
  if (!location || !templates || !fromText || !toText)
    throw new Error('usage: scaleSeed.ts <store> <templates.json> <fromCopy> <toCopy>');
  const families = JSON.parse(readFileSync(templates, 'utf8')) as TemplateFamily[];
  const store = openRunStore(location, { create: false });
  try {
    loadCopies(store, families, Number(fromText), Number(toText), (runs, checkpoints) =>
      process.stdout.write(`${JSON.stringify({ runs, checkpoints })}\n`),
    );
  } finally {
    store.close();
  }
}

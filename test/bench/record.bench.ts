/**
 * Recording benchmark: a ReAct run recorded **through the SDK as the README documents it** —
 * `run.modelCall({}, ...)` answering with an assistant message of a text part and a tool call, then a
 * `run.tool()` call returning a ~1 KB result — so the conversation grows by two ~1 KB messages every four
 * checkpoints. For each size (OCDB_BENCH_SIZES, default 500,2000,10000,20000 checkpoints) it prints the SDK's
 * time per checkpoint (p50 of the whole run, of its first and last tenth), the floor (a bare better-sqlite3
 * INSERT of the same new bytes, one transaction each), total time, the store's bytes against the unique
 * content; medians of OCDB_BENCH_REPEAT runs (default 5: this shared machine has slow spells of some seconds, which
 * a median of 3 runs at one size can land on twice). Then the same conversation through LangGraph JS's
 * SQLite checkpointer (a StateGraph with a messages channel), at the sizes in OCDB_BENCH_LANGGRAPH_SIZES
 * (default 500,2000: it re-serialises the whole conversation at every checkpoint).
 *
 * The recorder commits as the SDK does by default (group commit: a ReAct step here is one commit, at its tool
 * call's begin); OCDB_BENCH_GROUP_COMMIT=0 measures `groupCommit: false` (a commit per call). Each sample is a whole
 * SDK call (halved: two checkpoints), its commit included, so the p50 hides no commit; the mean is printed beside it.
 * Half the samples are model calls, which commit nothing (the bench's model answers at once, so the turn never ends
 * inside a step), half tool calls, whose begin commits before the tool runs: the whole run's p50 falls where the
 * slowest model calls meet the fastest tool calls, so the two halves' p50s are printed too.
 *
 * Targets are printed as ratios: last/first tenth ≤ 1.5, SDK/floor ≤ 15, store/unique ≤ 1.3.
 *
 * Then, for each size, where the SDK's time goes: one more recording with every statement the store runs captured
 * (its SQL and parameters: the hook on better-sqlite3's `prepare` slows that recording, which is not timed), replayed
 * into a new store through the store's own driver (openBetterSqlite: its WAL checkpoints in a thread, as the SDK's
 * are), three times (medians). What that takes is what SQLite costs for our schema's writes; the rest of an append is
 * JavaScript. And what a commit of the last tenth writes (commitAnatomy): the pages it appends to the WAL, by b-tree,
 * and the COMMIT statement's time — a commit costs by the page (some 3 µs each here), and the content-addressed
 * blobs' hash index puts each new blob's entry on a page of its own.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../src/model';
import { openRecorder } from '../../src/recorder';
import { openRunStore } from '../../src/store';
import { openBetterSqlite } from '../../src/store/betterSqliteDriver';
import type { SqlStatement, SqlValue } from '../../src/store/sqlDriver';
import { testContext } from '../helpers/context';
import { fmt, kb, percentile, us } from './stats';

const RUN = 'bench-record';

export const sizesFrom = (env: string | undefined, dflt: number[]): number[] =>
  env !== undefined
    ? env
        .split(',')
        .map((s) => Number(s.trim()))
        .filter((n) => Number.isFinite(n) && n > 0)
    : dflt;

/** ~1 KB of deterministic text. */
export function words(seed: number, n: number): string {
  return Array.from({ length: n }, (_, k) => `w${(seed * 7919 + k * 104729) % 100000}`).join(' ');
}

/** The step's assistant message: a text part and a tool call (as a model API answers). */
export function assistantMessage(step: number): { role: 'assistant'; content: unknown[] } {
  return {
    role: 'assistant',
    content: [
      { type: 'text', text: `Step ${step}: ${words(step, 120)}` },
      { type: 'tool_call', toolCallId: `call-${step}`, toolName: 'search', args: { q: `query ${step}`, step } },
    ],
  };
}

/** The tool's ~1 KB result. */
export function toolResult(step: number): { hits: { id: string; snippet: string }[]; took: number } {
  return {
    hits: Array.from({ length: 4 }, (_, k) => ({ id: `doc-${step}-${k}`, snippet: words(step * 4 + k, 30) })),
    took: 12,
  };
}

interface RecordFigures {
  checkpoints: number;
  perCp: number[];
  floor: number[];
  totalS: number;
  storeBytes: number;
  uniqueBytes: number;
}

/** Records `checkpoints` (a multiple of 4, plus start and end) through the SDK into `file`; per-checkpoint µs. */
export async function recordRun(file: string, checkpoints: number): Promise<RecordFigures> {
  let clock = Date.parse('2026-11-01T00:00:00Z');
  // group commit as the SDK does by default; OCDB_BENCH_GROUP_COMMIT=0 measures every call committed on its own
  const recorder = openRecorder({
    store: file,
    now: () => (clock += 7),
    heartbeatMs: 0,
    groupCommit: process.env.OCDB_BENCH_GROUP_COMMIT !== '0',
  });
  const ctx = testContext();
  const systemPrompt = 'You are a research agent. Use the search tool, then answer.';
  const first = { role: 'user' as const, content: 'Survey the literature on replay debugging for LLM agents.' };
  const run = recorder.startRun({
    runId: RUN,
    agentId: 'bench-agent',
    runtimeContext: ctx,
    systemPrompt,
    messages: [first],
  });
  // The tool answers what was made before the clock started, as the model call does: the tool's own work is not
  // the SDK's (building the ~1 KB result took some 10 µs, a twentieth of a tool call's recording).
  let answer = toolResult(0);
  const search = run.tool('search', { sideEffectLevel: 'read_only' }, (_args: { q: string; step: number }) => answer);
  const perCp: number[] = [];
  const newBytes: string[] = [];
  const unique: string[] = [canonicalJson(ctx), canonicalJson(systemPrompt), canonicalJson(first)];
  const steps = Math.max(1, Math.floor(checkpoints / 4));
  const t0 = process.hrtime.bigint();
  for (let step = 0; step < steps; step++) {
    const message = assistantMessage(step);
    let t = process.hrtime.bigint();
    await run.modelCall({}, () =>
      Promise.resolve({ message, finishReason: 'tool_calls', usage: { inputTokens: 500 + step, outputTokens: 40 } }),
    );
    const model = us(t) / 2;
    perCp.push(model, model);
    const id = `call-${step}`;
    answer = toolResult(step);
    t = process.hrtime.bigint();
    await search({ q: `query ${step}`, step }, { toolCallId: id });
    const tool = us(t) / 2;
    perCp.push(tool, tool);
    const m = canonicalJson(message);
    const r = canonicalJson({ role: 'tool', toolCallId: id, toolName: 'search', content: answer });
    newBytes.push('', m, '', r);
    unique.push(m, r);
  }
  run.end();
  const totalS = us(t0) / 1e6;
  recorder.close();
  const store = openRunStore(file, { create: false });
  // The ledger records hold facts the messages do not (ids, args, policy, times): unique content too.
  for (const rec of store.listToolCalls(RUN)) unique.push(canonicalJson({ ...rec, result: undefined }));
  store.checkpointWal();
  store.close();
  const storeBytes = statSync(file).size;
  const uniqueBytes = unique.reduce((n, s) => n + Buffer.byteLength(s), 0);
  return {
    checkpoints: perCp.length,
    perCp,
    floor: floorOf(file + '.floor', newBytes),
    totalS,
    storeBytes,
    uniqueBytes,
  };
}

/** The same new bytes (plus a small row per checkpoint) through a bare INSERT loop, one transaction each. */
function floorOf(file: string, newBytes: readonly string[]): number[] {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, run TEXT, seq INTEGER, data TEXT)');
  const insert = db.prepare('INSERT INTO t (run, seq, data) VALUES (?, ?, ?)');
  const tx = db.transaction((seq: number, data: string) => insert.run('bench', seq, data));
  const samples: number[] = [];
  newBytes.forEach((data, seq) => {
    const t = process.hrtime.bigint();
    tx(seq, data);
    samples.push(us(t));
  });
  db.close();
  return samples;
}

interface Captured {
  sql: string;
  params: SqlValue[];
}

/**
 * Captures every statement the store runs while `record` runs (its SQL and parameters), by wrapping the
 * statements better-sqlite3's `prepare` makes from then on; the wrapper is gone when it returns.
 */
async function captureStatements(record: () => Promise<unknown>): Promise<Captured[]> {
  const proto = Database.prototype as unknown as { prepare(this: unknown, sql: string): Record<string, unknown> };
  const prepare = proto.prepare;
  const log: Captured[] = [];
  proto.prepare = function (this: unknown, sql: string) {
    const stmt = prepare.call(this, sql);
    for (const method of ['run', 'get', 'all'] as const) {
      const call = (stmt[method] as (...p: unknown[]) => unknown).bind(stmt);
      stmt[method] = (...params: SqlValue[]) => {
        log.push({ sql, params: params.map((p) => (Buffer.isBuffer(p) ? Buffer.from(p) : p)) });
        return call(...params);
      };
    }
    return stmt;
  };
  try {
    await record();
  } finally {
    proto.prepare = prepare;
  }
  return log;
}

/** A transaction's control statements, run by `exec` in a replay (the others are prepared). */
const TRANSACTION_CONTROL = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/;

/** The captured statements of the recording: from the first transaction that writes its run on, the floor's left out. */
function runStatements(log: readonly Captured[]): Captured[] {
  let from = log.findIndex((e) => e.sql.startsWith('INSERT INTO runs'));
  while (from > 0 && !(log[from] as Captured).sql.startsWith('BEGIN')) from--;
  return log.slice(Math.max(0, from)).filter(({ sql }) => !sql.startsWith('INSERT INTO t ')); // floorOf's, after the run
}

/**
 * Replays the captured statements of a recording (from the first transaction that writes its run on; the floor's
 * left out) into a new store at `file` through the store's driver, timing each transaction: µs per checkpoint over
 * the whole run and its last tenth. Each statement is prepared and sorted (transaction control, read, write) before
 * the clock starts, so the time is SQLite's and the driver's alone.
 */
function replaySql(file: string, log: readonly Captured[], checkpoints: number): { all: number; last: number } {
  openRunStore(file).close(); // the schema
  const db = openBetterSqlite(file, false);
  db.checkpointInBackground?.();
  db.exec('PRAGMA synchronous = NORMAL');
  const statements = new Map<string, SqlStatement>();
  const steps = runStatements(log).map(({ sql, params }) => {
    if (TRANSACTION_CONTROL.test(sql)) return { kind: 'control' as const, sql };
    let stmt = statements.get(sql);
    if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
    return { kind: /^\s*SELECT/i.test(sql) ? ('read' as const) : ('write' as const), stmt, params };
  });
  const perTransaction: number[] = [];
  let t = process.hrtime.bigint();
  for (const step of steps) {
    if (step.kind === 'control') {
      db.exec(step.sql);
      if (step.sql === 'COMMIT') {
        perTransaction.push(us(t));
        t = process.hrtime.bigint();
      }
    } else if (step.kind === 'read') step.stmt.all(...step.params);
    else step.stmt.run(...step.params);
  }
  db.close();
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const tenth = Math.max(1, Math.floor(perTransaction.length / 10));
  return { all: sum(perTransaction) / checkpoints, last: sum(perTransaction.slice(-tenth)) / (checkpoints / 10) };
}

/** What a commit writes in the last tenth of a recording (commitAnatomy). */
interface CommitAnatomy {
  /** WAL frames (pages) a commit appends. */
  pages: number;
  /** A COMMIT statement alone, µs: p50 and mean (the mean holds the slow ones, the machine's stalls among them). */
  commitUs: { p50: number; mean: number };
  /** Pages a commit writes in each b-tree (table or index; interior pages counted with it), most first. */
  byTree: [string, number][];
}

/**
 * What a commit of the recording costs SQLite and why: the captured statements replayed (as replaySql) into a new
 * store whose WAL is never checkpointed, emptied before the last tenth's first transaction; then the WAL's frames
 * are read back and each page is named by the b-tree that holds it (SQLite's dbstat). A commit appends one frame per
 * page the transaction changed, each a write of the page: what a commit costs grows with the pages, not the bytes.
 */
function commitAnatomy(file: string, log: readonly Captured[]): CommitAnatomy {
  openRunStore(file).close(); // the schema
  const db = new Database(file);
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  const steps = runStatements(log);
  const commits = steps.filter((s) => s.sql === 'COMMIT').length;
  const lastTenthFrom = commits - Math.max(1, Math.floor(commits / 10));
  const statements = new Map<string, Database.Statement>();
  let committed = 0;
  const commitUs: number[] = [];
  for (const { sql, params } of steps) {
    if (TRANSACTION_CONTROL.test(sql)) {
      if (sql.startsWith('BEGIN') && committed === lastTenthFrom) db.pragma('wal_checkpoint(TRUNCATE)');
      const t = process.hrtime.bigint();
      db.exec(sql);
      if (sql === 'COMMIT' && committed++ >= lastTenthFrom) commitUs.push(us(t));
      continue;
    }
    let stmt = statements.get(sql);
    if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
    if (stmt.reader) stmt.all(...params);
    else stmt.run(...params);
  }
  const wal = readFileSync(`${file}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const salt = wal.readBigUInt64BE(16);
  const tree = new Map<number, string>();
  for (const r of db.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[]) {
    tree.set(r.pageno, r.name);
  }
  const pages = new Map<string, number>();
  let frames = 0;
  let commitFrames = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length && wal.readBigUInt64BE(at + 8) === salt; at += 24 + pageSize) {
    const page = wal.readUInt32BE(at);
    const btree = tree.get(page) ?? (page === 1 ? 'sqlite_schema' : 'free pages');
    // SQLite's name for the index of a PRIMARY KEY or UNIQUE constraint: sqlite_autoindex_<table>_<n>
    const name = btree.replace(/^sqlite_autoindex_(\w+)_\d+$/, '$1 (unique index)');
    pages.set(name, (pages.get(name) ?? 0) + 1);
    frames++;
    if (wal.readUInt32BE(at + 4) !== 0) commitFrames++;
  }
  db.close();
  const n = Math.max(1, commitFrames);
  return {
    pages: frames / n,
    commitUs: { p50: p50(commitUs), mean: commitUs.reduce((a, b) => a + b, 0) / Math.max(1, commitUs.length) },
    byTree: [...pages].map(([k, v]): [string, number] => [k, v / n]).sort((a, b) => b[1] - a[1]),
  };
}

/** The bytes of a store with no run: its schema's tables and indexes, a page each (the same for every store). */
function emptyStoreBytes(file: string): number {
  const store = openRunStore(file);
  store.checkpointWal();
  store.close();
  return statSync(file).size;
}

const p50 = (xs: readonly number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const median = (xs: readonly number[]): number => p50(xs);
const tenth = (xs: readonly number[], last: boolean): number[] => {
  const n = Math.max(1, Math.floor(xs.length / 10));
  return last ? xs.slice(xs.length - n) : xs.slice(0, n);
};

/**
 * The samples of one kind of SDK call in the last tenth of a run, by the call's position in its ReAct step: each step
 * pushes a model call's two samples, then a tool call's two (recordRun). `tool` picks the tool calls'.
 */
const lastTenthOf = (xs: readonly number[], tool: boolean): number[] => {
  const steps = Math.floor(xs.length / 4);
  const from = steps - Math.max(1, Math.floor(steps / 10));
  return xs.slice(from * 4, steps * 4).filter((_, i) => i % 4 >= 2 === tool);
};

interface Row {
  all: number;
  mean: number;
  first: number;
  last: number;
  /** p50 of the last tenth's model-call samples and of its tool-call samples (a tool call commits: see recordRun). */
  lastModel: number;
  lastTool: number;
  floor: number;
  totalS: number;
  storeBytes: number;
  uniqueBytes: number;
  /** The recording's statements replayed alone (replaySql), µs per checkpoint: whole run, last tenth. */
  sql?: { all: number; last: number };
  /** What a commit of the last tenth writes (commitAnatomy). */
  commit?: CommitAnatomy;
}

/** LangGraph JS: a StateGraph with a messages channel, an agent node and a tools node, SqliteSaver. */
async function langGraph(dir: string, checkpoints: number): Promise<{ perCp: number; bytes: number; written: number }> {
  const { StateGraph, MessagesAnnotation, START, END } = await import('@langchain/langgraph');
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
  const { AIMessage, ToolMessage, HumanMessage } = await import('@langchain/core/messages');
  const file = join(dir, `langgraph-${checkpoints}.db`);
  const saver = SqliteSaver.fromConnString(file);
  let step = 0;
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', () => {
      const m = assistantMessage(step);
      const text = (m.content[0] as { text: string }).text;
      return {
        messages: [
          new AIMessage({
            content: text,
            tool_calls: [{ id: `call-${step}`, name: 'search', args: { q: `query ${step}`, step } }],
          }),
        ],
      };
    })
    .addNode('tools', () => ({
      messages: [
        new ToolMessage({ content: JSON.stringify(toolResult(step)), tool_call_id: `call-${step}`, name: 'search' }),
      ],
    }))
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addEdge('tools', END)
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: 'bench' } };
  const steps = Math.max(1, Math.floor(checkpoints / 4));
  const t0 = process.hrtime.bigint();
  for (step = 0; step < steps; step++) {
    const input =
      step === 0
        ? { messages: [new HumanMessage('Survey the literature on replay debugging for LLM agents.')] }
        : { messages: [] };
    await graph.invoke(input, config);
  }
  const total = us(t0);
  const db = new Database(file);
  const written = Number((db.prepare('SELECT COUNT(*) AS n FROM checkpoints').get() as { n: number }).n);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  (saver as unknown as { db?: { close(): void } }).db?.close();
  return { perCp: total / Math.max(1, written), bytes: statSync(file).size, written };
}

export async function run(): Promise<void> {
  const sizes = sizesFrom(process.env.OCDB_BENCH_SIZES, [500, 2000, 10000, 20000]);
  const repeat = Math.max(1, Number(process.env.OCDB_BENCH_REPEAT ?? 5));
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-record-'));
  const rows = new Map<number, Row>();
  try {
    for (const size of sizes) {
      const runs: Row[] = [];
      for (let r = 0; r < repeat; r++) {
        const file = join(dir, `runs-${size}-${r}.db`);
        const f = await recordRun(file, size);
        runs.push({
          all: p50(f.perCp),
          mean: f.perCp.reduce((a, b) => a + b, 0) / f.perCp.length,
          first: p50(tenth(f.perCp, false)),
          last: p50(tenth(f.perCp, true)),
          lastModel: p50(lastTenthOf(f.perCp, false)),
          lastTool: p50(lastTenthOf(f.perCp, true)),
          floor: p50(f.floor),
          totalS: f.totalS,
          storeBytes: f.storeBytes,
          uniqueBytes: f.uniqueBytes,
        });
        rmSync(file, { force: true });
        rmSync(file + '.floor', { force: true });
      }
      // where the time goes: the same recording with its statements captured, then replayed alone
      const captured = join(dir, `captured-${size}.db`);
      const log = await captureStatements(() => recordRun(captured, size));
      // replayed three times (a replay is a few hundred ms): one run's last tenth can hold the writer's WAL restart
      const replays = [0, 1, 2].map((k) => {
        const file = join(dir, `replayed-${size}-${k}.db`);
        const figures = replaySql(file, log, Math.max(1, Math.floor(size / 4)) * 4);
        rmSync(file, { force: true });
        return figures;
      });
      const sql = { all: median(replays.map((x) => x.all)), last: median(replays.map((x) => x.last)) };
      const anatomy = join(dir, `anatomy-${size}.db`);
      const commit = commitAnatomy(anatomy, log);
      for (const f of ['', '-wal', '-shm']) rmSync(anatomy + f, { force: true });
      for (const f of [captured, `${captured}.floor`]) rmSync(f, { force: true });
      const pick = (k: keyof Omit<Row, 'sql' | 'commit'>) => median(runs.map((x) => x[k]));
      rows.set(size, {
        all: pick('all'),
        mean: pick('mean'),
        first: pick('first'),
        last: pick('last'),
        lastModel: pick('lastModel'),
        lastTool: pick('lastTool'),
        floor: pick('floor'),
        totalS: pick('totalS'),
        storeBytes: pick('storeBytes'),
        uniqueBytes: pick('uniqueBytes'),
        sql,
        commit,
      });
      process.stdout.write(`  recorded ${size} checkpoints x${repeat}\n`);
    }
    const head = ['what', ...sizes.map((s) => `${s} cp`)];
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    const get = (f: (r: Row) => string) => sizes.map((s) => f(rows.get(s) as Row));
    const grouped = process.env.OCDB_BENCH_GROUP_COMMIT !== '0' ? 'group commit' : 'groupCommit: false';
    console.log(`\nSDK recording (modelCall + tool(), ${grouped}, medians of ${repeat}; µs per checkpoint)`);
    console.log(line(head));
    console.log(line(head.map(() => '---')));
    console.log(line(['SDK append p50', ...get((r) => fmt(r.all, 0))]));
    console.log(line(['SDK append mean (every commit counted)', ...get((r) => fmt(r.mean, 0))]));
    console.log(line(['SDK append p50, first tenth', ...get((r) => fmt(r.first, 0))]));
    console.log(line(['SDK append p50, last tenth', ...get((r) => fmt(r.last, 0))]));
    console.log(line(['  of which model calls (no commit) p50, last tenth', ...get((r) => fmt(r.lastModel, 0))]));
    console.log(line(['  of which tool calls (a commit each) p50, last tenth', ...get((r) => fmt(r.lastTool, 0))]));
    console.log(line(['bare INSERT of the new bytes (floor) p50', ...get((r) => fmt(r.floor, 0))]));
    console.log(line(['total time to record the run', ...get((r) => `${fmt(r.totalS, 1)} s`)]));
    console.log(line(['store bytes on disk', ...get((r) => kb(r.storeBytes))]));
    console.log(line(['unique content', ...get((r) => kb(r.uniqueBytes))]));
    console.log(line(['ratio last/first tenth (target ≤ 1.5)', ...get((r) => fmt(r.last / r.first, 2))]));
    console.log(line(['ratio last tenth/floor (target ≤ 15)', ...get((r) => fmt(r.last / r.floor, 1))]));
    console.log(line(['ratio store/unique (target ≤ 1.3)', ...get((r) => fmt(r.storeBytes / r.uniqueBytes, 2))]));
    const sqlOf = (r: Row) => r.sql ?? { all: NaN, last: NaN };
    console.log(line(["the store's SQL alone, replayed, last tenth", ...get((r) => fmt(sqlOf(r).last, 0))]));
    console.log(line(['ratio SQL alone (last tenth)/floor', ...get((r) => fmt(sqlOf(r).last / r.floor, 1))]));
    console.log(
      line(['SQL alone, share of the SDK mean', ...get((r) => `${fmt((100 * sqlOf(r).all) / r.mean, 0)} %`)]),
    );
    const commitOf = (r: Row) => r.commit ?? { pages: NaN, commitUs: { p50: NaN, mean: NaN }, byTree: [] };
    console.log(line(['a commit, last tenth: pages it writes (WAL frames)', ...get((r) => fmt(commitOf(r).pages, 1))]));
    console.log(
      line([
        'a commit, last tenth: COMMIT alone, µs p50 / mean',
        ...get((r) => `${fmt(commitOf(r).commitUs.p50, 0)} / ${fmt(commitOf(r).commitUs.mean, 0)}`),
      ]),
    );
    const largest = rows.get(sizes[sizes.length - 1] as number);
    if (largest?.commit) {
      const top = largest.commit.byTree.slice(0, 8).map(([name, n]) => `${name} ${fmt(n, 1)}`);
      console.log(`  pages a commit writes by b-tree at ${sizes[sizes.length - 1]} cp: ${top.join(', ')}`);
    }
    const empty = emptyStoreBytes(join(dir, 'empty.db'));
    console.log(
      line([
        `ratio (store − empty store's ${kb(empty)})/unique`,
        ...get((r) => fmt((r.storeBytes - empty) / r.uniqueBytes, 2)),
      ]),
    );

    const lgSizes = sizesFrom(process.env.OCDB_BENCH_LANGGRAPH_SIZES, [500, 2000]);
    if (lgSizes.length > 0) {
      console.log('\nLangGraph JS SqliteSaver, same conversation (StateGraph, messages channel, agent + tools nodes)');
      console.log(line(['what', ...lgSizes.map((s) => `${s} cp of ours`)]));
      console.log(line(['---', ...lgSizes.map(() => '---')]));
      const lg = [];
      for (const s of lgSizes) lg.push(await langGraph(dir, s));
      const ours = lgSizes.map((s) => rows.get(s));
      console.log(line(['LangGraph checkpoints written', ...lg.map((x) => String(x.written))]));
      console.log(line(['LangGraph µs per checkpoint (mean)', ...lg.map((x) => fmt(x.perCp, 0))]));
      console.log(line(['ours µs per checkpoint (p50)', ...ours.map((r) => (r ? fmt(r.all, 0) : 'n/a'))]));
      console.log(line(['LangGraph bytes on disk', ...lg.map((x) => kb(x.bytes))]));
      console.log(line(['ours bytes on disk', ...ours.map((r) => (r ? kb(r.storeBytes) : 'n/a'))]));
      console.log(
        line([
          'LangGraph bytes / ours',
          ...lg.map((x, i) => (ours[i] ? `${fmt(x.bytes / (ours[i] as Row).storeBytes, 0)}x` : 'n/a')),
        ]),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Store benchmark: record a run of 2,000 checkpoints whose
 * conversation grows to 1,000 messages of about 1 KB. Prints bytes on disk,
 * unique content bytes, the bytes a full-snapshot-per-checkpoint layout would
 * hold, mean/p95 microseconds per append, and the floor: the same new bytes
 * written by a bare better-sqlite3 INSERT loop.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, type Checkpoint, type Message } from '../../src/model';
import { openRunStore } from '../../src/store';
import { testContext } from '../helpers/context';
import { fmt, kb, summarize, us } from './stats';

const CHECKPOINTS = 2000;

function message(i: number): Message {
  const words = Array.from({ length: 140 }, (_, k) => `w${(i * 7919 + k * 104729) % 100000}`).join(' ');
  return { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}: ${words}` };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocdb-bench-store-'));
  try {
    const file = join(dir, 'runs.db');
    const store = openRunStore(file);
    const ctx = testContext();
    store.createRun({ runId: 'bench', sessionId: 's', agentId: 'bench', startedAt: Date.now() });
    const messages: Message[] = [];
    const samples: number[] = [];
    const newBytes: string[] = [];
    let naive = 0;
    for (let i = 0; i < CHECKPOINTS; i++) {
      let added = '';
      if (i % 2 === 0) {
        const m = message(i / 2);
        messages.push(m);
        added = canonicalJson(m);
      }
      const cp: Checkpoint = {
        checkpointId: `cp-${i}`,
        runId: 'bench',
        boundary: i % 2 === 0 ? 'before_model_call' : 'after_model_call',
        stepIndex: Math.floor(i / 2),
        messages: [...messages],
        runtimeContext: ctx,
        toolLedgerSnapshot: [],
        createdAt: Date.now(),
      };
      naive += Buffer.byteLength(canonicalJson(cp));
      newBytes.push(added);
      const t = process.hrtime.bigint();
      store.appendCheckpoint(cp);
      samples.push(us(t));
    }
    store.checkpointWal();
    const onDisk = statSync(file).size;
    const content = store.contentBytes();
    store.close();
    const unique =
      messages.reduce((n, m) => n + Buffer.byteLength(canonicalJson(m)), 0) + Buffer.byteLength(canonicalJson(ctx));

    // The floor: the same new bytes (plus a small row per checkpoint) through a bare INSERT loop, one transaction each.
    const floorFile = join(dir, 'floor.db');
    const db = new Database(floorFile);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, run TEXT, seq INTEGER, data TEXT)');
    const insert = db.prepare('INSERT INTO t (run, seq, data) VALUES (?, ?, ?)');
    const floorSamples: number[] = [];
    const tx = db.transaction((seq: number, data: string) => insert.run('bench', seq, data));
    newBytes.forEach((data, seq) => {
      const t = process.hrtime.bigint();
      tx(seq, data);
      floorSamples.push(us(t));
    });
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const floorDisk = statSync(floorFile).size;

    const a = summarize(samples);
    const f = summarize(floorSamples);
    console.log(
      `checkpoints appended           ${CHECKPOINTS} (conversation grows to ${messages.length} messages of ~1 KB)`,
    );
    console.log(
      `store bytes on disk            ${kb(onDisk)} (${onDisk} B; blobs ${kb(content.blobBytes)}, ${content.listNodes} list nodes)`,
    );
    console.log(
      `unique content bytes           ${kb(unique)} (${unique} B) -> store/unique = ${fmt(onDisk / unique, 2)}x`,
    );
    console.log(`full-snapshot layout would be  ${kb(naive)} (${naive} B) -> ${fmt(naive / onDisk, 0)}x the store`);
    console.log(
      `append µs/checkpoint           mean ${fmt(a.mean)}  p50 ${fmt(a.p50)}  p95 ${fmt(a.p95)}  max ${fmt(a.max)}`,
    );
    console.log(
      `floor (bare INSERT of the new bytes, 1 txn each)  mean ${fmt(f.mean)}  p50 ${fmt(f.p50)}  p95 ${fmt(f.p95)} µs; file ${kb(floorDisk)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

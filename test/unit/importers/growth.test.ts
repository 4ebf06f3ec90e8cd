/**
 * A transcript that grew (a session still in use): importing the first part and then the whole file gives one run
 * that grew — the same export as importing the whole at once — and importing it again changes nothing. A file
 * whose start changed, or a run a fork starts from the end of, is imported as a new run with a warning saying why.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { FORMAT_SPECS, importPath } from '../../../src/importers';
import { planDigest } from '../../../src/importers/growth';
import { ForkService } from '../../../src/fork/forkService';
import { runFork } from '../../../src/fork/runner';
import type { SqlRunStore } from '../../../src/store';
import { FIXTURES, REAL_FILE, SESSION_FILE, tempStores } from './helpers';

const SIDECHAINS = path.join(
  FIXTURES,
  'claude-code-real',
  'sidechain-2.0',
  '88a8d761-7b9a-4bf1-a8ca-c1febe6bf358.jsonl',
);
const SUBAGENT = path.join(FIXTURES, 'claude-code-real', 'spotter-subagent', 'agent-a2898e3.jsonl');
const COMPACTION = path.join(FIXTURES, 'claude-code-real', 'compaction', 'dag_compact_after_rewind.jsonl');
const CODEX = path.join(FIXTURES, 'codex', 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
const REAL_CODEX = path.join(
  FIXTURES,
  'codex',
  'rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl',
);
const GEMINI = path.join(FIXTURES, 'gemini', 'session-2025-10-05T07-11-eefc44a3.jsonl');
/** Fixtures of a format read from where its last import stopped whenever that import kept where (fileTail.ts). */
const FROM_TAIL = new Set([CODEX, REAL_CODEX, GEMINI]);

/** The line of SESSION_FILE where the user rewinds (re-asks from an earlier line). */
const REWIND_LINE = 28;

/** The lines of `file` with their newlines, so a cut is a byte prefix of the file. */
function linesOf(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split(/(?<=\n)/)
    .filter((l) => l.length > 0);
}

/** Every run of the store as exported, by run id (what a user compares). */
function exports(store: SqlRunStore): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const run of store.listRuns({ limit: 1000 }).runs) out[run.runId] = store.exportRun(run.runId);
  return out;
}

describe('re-importing a transcript that grew', () => {
  const store = tempStores();

  for (const fixture of [REAL_FILE, SIDECHAINS, SUBAGENT, COMPACTION, CODEX, REAL_CODEX, GEMINI, SESSION_FILE]) {
    const lines = linesOf(fixture);
    it(`${path.basename(path.dirname(fixture))}/${path.basename(fixture)}: every cut, then the whole, is the whole`, async () => {
      const whole = store();
      const file = path.join(whole.dir, path.basename(fixture));
      fs.writeFileSync(file, lines.join(''));
      const once = await importPath(whole.store, file);
      assert.equal(once.imported, 1);
      let fromTail = 0;
      const expected = exports(whole.store);
      const toolCalls = Object.keys(expected).reduce((n, id) => n + whole.store.getRun(id).toolCallCount, 0);
      assert.ok(fixture === COMPACTION || toolCalls > 0, 'the fixture has tool calls');
      for (let cut = 1; cut < lines.length; cut++) {
        const t = store();
        const grown = path.join(t.dir, path.basename(fixture));
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(grown, lines.slice(0, cut).join(''));
        const first = await importPath(t.store, grown);
        if (first.imported === 0) continue; // nothing of a conversation yet
        const kept = t.store.listRuns({ limit: 10 }).runs.some((r) => {
          const source = t.store.getRun(r.runId).metadata.source as { tail?: unknown } | undefined;
          return source?.tail !== undefined;
        });
        fs.writeFileSync(grown, lines.join(''));
        const second = await importPath(t.store, grown);
        assert.equal(second.failed, 0, `cut ${cut}: ${JSON.stringify(second.files[0]?.reason)}`);
        if (second.files[0]?.readFrom !== undefined) fromTail++;
        if (FROM_TAIL.has(fixture) && kept) {
          // the new path: only the bytes after the cut were read
          assert.equal(second.files[0]?.readFrom, Buffer.byteLength(lines.slice(0, cut).join('')), `cut ${cut}`);
        }
        const refused = second.files[0]?.warnings.filter((w) => /cannot continue/.test(w.message)) ?? [];
        if (fixture === SESSION_FILE && cut < REWIND_LINE && refused.length > 0) {
          // The user rewound after the cut (line 28 re-asks from an earlier line): the newest branch, which is the
          // run, is another one now, and what was the run is a fork of it. Not continued: new runs, and why.
          assert.match(refused[0]?.message ?? '', /reads differently from the file's first \d+ bytes now/);
          assert.equal(second.appended, 0);
          continue;
        }
        assert.deepEqual(refused, [], `cut ${cut}: continued, not a new run`);
        assert.equal(second.appended, 1, `cut ${cut}: continued the runs imported from the cut`);
        const got = JSON.parse(JSON.stringify(exports(t.store))) as Record<string, unknown>;
        const want = JSON.parse(JSON.stringify(expected).split(file).join(grown)) as Record<string, unknown>;
        assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `cut ${cut}: the same runs`);
        for (const id of Object.keys(want)) assert.deepEqual(got[id], want[id], `cut ${cut}: ${id} as imported whole`);
        for (const id of Object.keys(want)) {
          const a = t.store.getRun(id);
          const b = whole.store.getRun(id);
          assert.deepEqual(
            [
              a.checkpointCount,
              a.toolCallCount,
              a.toolErrorCount,
              a.inputTokens,
              a.outputTokens,
              a.stepCount,
              a.status,
            ],
            [
              b.checkpointCount,
              b.toolCallCount,
              b.toolErrorCount,
              b.inputTokens,
              b.outputTokens,
              b.stepCount,
              b.status,
            ],
            `cut ${cut}: ${id} counters`,
          );
        }
        const third = await importPath(t.store, grown);
        assert.equal(third.skipped, 1, `cut ${cut}: a second import of the grown file changes nothing`);
        assert.match(third.files[0]?.reason ?? '', /already imported/);
      }
      if (FROM_TAIL.has(fixture)) assert.ok(fromTail > 0, 'some cuts were continued from their kept tail');
    });
  }

  it('a grown run replays --captured without divergence', async () => {
    const t = store();
    const lines = linesOf(REAL_FILE);
    const file = path.join(t.dir, path.basename(REAL_FILE));
    fs.writeFileSync(file, lines.slice(0, Math.floor(lines.length / 2)).join(''));
    await importPath(t.store, file);
    fs.writeFileSync(file, lines.join(''));
    const summary = await importPath(t.store, file);
    assert.equal(summary.appended, 1);
    const runId = summary.runIds[0] as string;
    const created = new ForkService(t.store).createReplay(runId, { captured: true });
    const outcome = await runFork(t.store, created.forkRequestId);
    assert.equal(outcome.divergence, undefined, JSON.stringify(outcome.divergence));
    assert.equal(outcome.status, t.store.getRun(runId).status);
    assert.equal(t.store.getRun(outcome.runId).toolCallCount, t.store.getRun(runId).toolCallCount);
  });

  it("a run imported by an earlier release (its digest of the ops' JSON text) still continues when the file grows", async () => {
    const lines = linesOf(REAL_FILE);
    const t = store();
    const file = path.join(t.dir, path.basename(REAL_FILE));
    fs.writeFileSync(file, lines.slice(0, Math.floor(lines.length / 2)).join(''));
    assert.equal((await importPath(t.store, file)).imported, 1);
    // What an earlier release kept of each run: the same facts, its digest of the ops hex alone.
    const spec = FORMAT_SPECS.find((f) => f.format === 'claude-code');
    assert.ok(spec);
    const read = await spec.read(file, {
      warnings: [],
      unknownTypes: {},
      sideEffectOf: () => 'read_only',
      skip: () => undefined,
    });
    const db = new Database(path.join(t.dir, 'runs.db'));
    try {
      for (const plan of read.plans) {
        const source = t.store.getRun(plan.runId).metadata.source as {
          resume: { checkpoints: number; digest: string };
        };
        assert.match(source.resume.digest, /^v3:/, 'this release writes its own digest');
        const older = planDigest(plan, source.resume.checkpoints, '0'.repeat(64));
        assert.match(older ?? '', /^[0-9a-f]{64}$/);
        const metadata = {
          ...t.store.getRun(plan.runId).metadata,
          source: { ...source, resume: { ...source.resume, digest: older } },
        };
        db.prepare('UPDATE runs SET metadata_json = ? WHERE run_id = ?').run(JSON.stringify(metadata), plan.runId);
      }
    } finally {
      db.close();
    }
    fs.writeFileSync(file, lines.join(''));
    const second = await importPath(t.store, file);
    assert.deepEqual(
      second.files[0]?.warnings.filter((w) => /cannot continue/.test(w.message)),
      [],
      'continued, not a new run',
    );
    assert.equal(second.appended, 1);
    const runId = read.primaryRunId;
    const resume = (t.store.getRun(runId).metadata.source as { resume: { digest: string } }).resume;
    assert.match(resume.digest, /^v3:/, 'the grown run carries the digest of this release');
  });

  it('a file whose start changed is imported as a new run, and the warning says why', async () => {
    const t = store();
    const lines = linesOf(REAL_FILE);
    const file = path.join(t.dir, path.basename(REAL_FILE));
    fs.writeFileSync(file, lines.slice(0, 20).join(''));
    const first = await importPath(t.store, file);
    const edited = [...lines];
    edited[2] = (edited[2] as string).replace('"type"', '"type" ');
    fs.writeFileSync(file, edited.join(''));
    const second = await importPath(t.store, file);
    assert.equal(second.imported, 1);
    assert.equal(second.appended, 0);
    assert.notEqual(second.runIds[0], first.runIds[0]);
    const warning = second.files[0]?.warnings.find((w) => /cannot continue/.test(w.message));
    assert.match(warning?.message ?? '', /bytes that are not the start of this file/);
    assert.equal(t.store.getRun(first.runIds[0] as string).checkpointCount, first.files[0]?.runs[0]?.checkpointCount);
  });

  it('a run a fork starts from the end of is not replaced: the grown file is a new run', async () => {
    const t = store();
    const lines = linesOf(REAL_FILE);
    const file = path.join(t.dir, path.basename(REAL_FILE));
    fs.writeFileSync(file, lines.slice(0, 20).join(''));
    const first = await importPath(t.store, file);
    const runId = first.runIds[0] as string;
    const end = t.store.listCheckpoints(runId).at(-1);
    assert.equal(end?.boundary, 'agent_end');
    const fork = new ForkService(t.store).createReplay(runId, { captured: true, fromCheckpointId: end.checkpointId });
    fs.writeFileSync(file, lines.join(''));
    const second = await importPath(t.store, file);
    assert.equal(second.imported, 1);
    assert.equal(second.appended, 0);
    assert.notEqual(second.runIds[0], runId);
    const warning = second.files[0]?.warnings.find((w) => /fork/.test(w.message));
    assert.ok(warning, JSON.stringify(second.files[0]?.warnings));
    assert.match(warning.message, new RegExp(fork.forkRequestId));
    assert.equal(
      t.store.getRun(runId).checkpointCount,
      first.files[0]?.runs[0]?.checkpointCount,
      'the old run is whole',
    );
    const again = await importPath(t.store, file);
    assert.equal(again.skipped, 1, 'and importing it again changes nothing');
  });

  it('importing a folder twice imports nothing the second time', async () => {
    const t = store();
    const dir = path.join(t.dir, 'projects');
    fs.mkdirSync(path.join(dir, 'a'), { recursive: true });
    fs.copyFileSync(REAL_FILE, path.join(dir, 'a', path.basename(REAL_FILE)));
    fs.copyFileSync(SIDECHAINS, path.join(dir, 'a', path.basename(SIDECHAINS)));
    const first = await importPath(t.store, dir);
    assert.equal(first.imported, 2);
    const second = await importPath(t.store, dir);
    assert.deepEqual([second.imported, second.skipped, second.failed], [0, 2, 0]);
  });
});

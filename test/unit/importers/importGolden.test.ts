/**
 * Every fixture imports to exactly the runs it imported to before the import streamed: the
 * export of each run — checkpoints, ledger, tool calls, metadata (the source facts a grown file is recognised
 * by included) — hashes as `importGolden.json` says, which was recorded by the import before it streamed. Paths and
 * the store's volatile fields (owner, heartbeat) are normalised. A failure names the run and its first checkpoint
 * that differs. Re-record with UPDATE_GOLDEN=1 only when a change of the imported runs is intended.
 * The fixtures are imported from a copy whose files all carry one fixed mtime: formats without timestamps (OpenAI
 * chat logs, replay turns) date their runs by the file's mtime, which a checkout sets to the time of the clone.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { FIXTURES, tempStore } from './helpers';

const GOLDEN = path.join(__dirname, 'importGolden.json');

interface RunDigest {
  checkpoints: number;
  toolCalls: number;
  head: string;
  checkpointHashes: string[];
  ledger: string;
}

const sha = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);

/** The export with what differs between two stores of the same runs taken out. */
function normalised(value: unknown, root: string): unknown {
  const text = JSON.stringify(value).split(root).join('<fixtures>');
  return JSON.parse(text, (key, v: unknown) =>
    key === 'ownerPid' || key === 'ownerHost' || key === 'heartbeatAt' ? undefined : v,
  );
}

describe('imports match the runs recorded before the import streamed', () => {
  it('exports every run of every fixture as before', async () => {
    const t = tempStore();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-golden-'));
    try {
      fs.cpSync(FIXTURES, root, { recursive: true });
      const fixed = new Date('2025-01-01T00:00:00Z');
      for (const f of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
        if (f.isFile()) fs.utimesSync(path.join(f.parentPath, f.name), fixed, fixed);
      }
      const summary = await importPath(t.store, root);
      assert.equal(summary.failed, 0, JSON.stringify(summary.files.filter((f) => f.outcome === 'failed')));
      const now: Record<string, RunDigest> = {};
      for (const runId of [...summary.runIds].sort()) {
        const exported = normalised(t.store.exportRun(runId), root) as {
          checkpoints: unknown[];
          toolLedger: unknown[];
          [k: string]: unknown;
        };
        const { checkpoints, toolLedger, ...head } = exported;
        now[runId] = {
          checkpoints: checkpoints.length,
          toolCalls: toolLedger.length,
          head: sha(head),
          checkpointHashes: checkpoints.map(sha),
          ledger: sha(toolLedger),
        };
      }
      if (process.env.UPDATE_GOLDEN === '1' || !fs.existsSync(GOLDEN)) {
        fs.writeFileSync(GOLDEN, JSON.stringify(now, null, 1) + '\n');
        if (process.env.UPDATE_GOLDEN !== '1') assert.fail(`recorded a new golden file ${GOLDEN}; check it and re-run`);
        return;
      }
      const golden = JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as Record<string, RunDigest>;
      assert.deepEqual(Object.keys(now), Object.keys(golden), 'the runs imported');
      for (const [runId, want] of Object.entries(golden)) {
        const got = now[runId] as RunDigest;
        assert.equal(got.checkpoints, want.checkpoints, `${runId}: checkpoints`);
        const first = want.checkpointHashes.findIndex((h, i) => got.checkpointHashes[i] !== h);
        assert.equal(first, -1, `${runId}: checkpoint ${first} differs`);
        assert.equal(got.toolCalls, want.toolCalls, `${runId}: tool calls`);
        assert.equal(got.ledger, want.ledger, `${runId}: tool ledger`);
        assert.equal(got.head, want.head, `${runId}: run (metadata, status, counts)`);
      }
    } finally {
      t.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

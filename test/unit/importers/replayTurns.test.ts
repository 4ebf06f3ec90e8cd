/**
 * outpost's ReplayTurn (seed 003) from the command line: `ocdb export <run> --format replay-turns` prints the turns
 * of a run (prompt, events in order, text, usage, conversation, failure), `ocdb import --format replay-turns` (or
 * sniffed) loads such a file back as a run, and `ocdb replay --captured` of that run behaves as a replayed turn:
 * the prompt is compared, the events come back in order, the usage is re-reported without spending tokens, and a
 * recorded failure is raised again after the events.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../../../src/cli/main';
import type { CliIo } from '../../../src/cli/cliCommand';
import { ReplayTurnsSchema, toolOutcomeOf, type ReplayTurn } from '../../../src/model';
import { replayTurnsOf } from '../../../src/recorder';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'seeds', 'replay-turns-deploy.json');

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), isTty: false, env: {}, cwd: process.cwd() };
  const code = await runCli(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function importedRunId(out: string): string {
  const m = /imported (\S+) \(\d+ checkpoints/.exec(out);
  assert.ok(m, `no imported run in: ${out}`);
  return m[1] as string;
}

describe('ReplayTurn export and import', () => {
  it('exports demo-support-refund as ReplayTurn JSON that imports back and replays captured', async () => {
    const dir = tmpDir();
    const db = path.join(dir, 'runs.db');
    assert.equal((await cli(['demo', '--store', db])).code, 0);
    const exported = await cli(['export', 'demo-support-refund', '--format', 'replay-turns', '--store', db]);
    assert.equal(exported.code, 0, exported.err);
    const turns = ReplayTurnsSchema.parse(JSON.parse(exported.out));
    assert.ok(turns.length >= 1);
    const first = turns[0] as ReplayTurn;
    assert.match(first.prompt, /refund/i);
    const peek = openRunStore(db);
    assert.equal(first.conversation, peek.getRun('demo-support-refund').sessionId);
    peek.close();
    const types = first.events.map((e) => e.type);
    assert.ok(types.includes('tool_use') && types.includes('tool_result') && types.includes('text'), types.join());
    assert.ok(!types.some((t) => /phase|prompt|summary/.test(t)), 'no phases, prompts or summaries');
    // every tool_result follows its tool_use
    first.events.forEach((e, i) => {
      if (e.type !== 'tool_result') return;
      assert.ok(
        first.events.slice(0, i).some((u) => u.type === 'tool_use' && u.id === e.id),
        `${String(e.id)} answered before asked`,
      );
    });
    const usageEvents = turns.flatMap((t) => t.events.filter((e) => e.type === 'usage'));
    assert.ok(usageEvents.length > 0);
    const total = turns.reduce((a, t) => a + t.usage.inputTokens, 0);
    assert.equal(
      total,
      usageEvents.reduce((a, e) => a + Number(e.inputTokens), 0),
      'turn usage sums its model calls',
    );
    const lastText = turns
      .at(-1)
      ?.events.filter((e) => e.type === 'text')
      .at(-1);
    assert.ok(turns.at(-1)?.text.endsWith(String(lastText?.text)), 'the text returned is the text events');

    const file = path.join(dir, 'refund.turns.json');
    fs.writeFileSync(file, exported.out);
    const imported = await cli(['import', file, '--format', 'replay-turns', '--store', db]);
    assert.equal(imported.code, 0, imported.err + imported.out);
    const runId = importedRunId(imported.out);
    // the imported run exports to the same turns
    const again = await cli(['export', runId, '--format', 'replay-turns', '--store', db]);
    const back = ReplayTurnsSchema.parse(JSON.parse(again.out));
    assert.deepEqual(
      back.map((t) => ({ ...t, events: t.events.map((e) => ({ ...e, sideEffectLevel: undefined })) })),
      turns.map((t) => ({ ...t, events: t.events.map((e) => ({ ...e, sideEffectLevel: undefined })) })),
    );

    const replay = await cli(['replay', runId, '--captured', '--json', '--store', db]);
    assert.equal(replay.code, 0, replay.out + replay.err);
    const outcome = JSON.parse(replay.out) as { status: string; runId: string };
    assert.equal(outcome.status, 'completed');
    const store = openRunStore(db);
    try {
      const replayed = replayTurnsOf(store.exportRun(outcome.runId));
      assert.deepEqual(
        replayed.map((t) => t.events.filter((e) => e.type !== 'usage')),
        back.map((t) => t.events.filter((e) => e.type !== 'usage')),
        'the events come back in order',
      );
      const usages = store
        .exportRun(outcome.runId)
        .checkpoints.filter((c) => c.usage)
        .map((c) => c.usage);
      assert.ok(usages.length > 0 && usages.every((u) => u?.captured === true), 'usage re-reported, no tokens spent');
    } finally {
      store.close();
    }
  });

  it('a sniffed turns file: tool outcomes kept apart, the recorded failure raised again after the events', async () => {
    const dir = tmpDir();
    const db = path.join(dir, 'runs.db');
    const imported = await cli(['import', FIXTURE, '--store', db]);
    assert.equal(imported.code, 0, imported.out + imported.err);
    const runId = importedRunId(imported.out);
    const store = openRunStore(db);
    try {
      const run = store.getRun(runId);
      assert.equal(run.status, 'failed');
      assert.equal(run.sessionId, 'conv-checkout-502');
      assert.deepEqual(
        store.listToolCalls(runId).map((r) => [r.toolName, toolOutcomeOf(r)]),
        [
          ['list_deploys', 'success'],
          ['grep_logs', 'error'],
          ['rollback', 'cancelled'],
        ],
      );
      const exported = store.exportRun(runId);
      assert.deepEqual(exported.error, {
        name: 'ProviderError',
        message: 'model overloaded (529) after the rollback was stopped',
      });
      const usages = exported.checkpoints.filter((c) => c.usage).map((c) => c.usage?.inputTokens);
      assert.deepEqual(usages, [1840, 2210, 2380], 'each usage event closes its model call');
      const original = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as unknown;
      assert.deepEqual(
        replayTurnsOf(exported).map((t) => ({
          ...t,
          events: t.events.map((e) => ({ ...e, sideEffectLevel: undefined })),
        })),
        ReplayTurnsSchema.parse(original).map((t) => ({
          ...t,
          events: t.events.map((e) => ({ ...e, sideEffectLevel: undefined })),
        })),
        'the export gives back the file',
      );
    } finally {
      store.close();
    }

    const replay = await cli(['replay', runId, '--captured', '--json', '--store', db]);
    const outcome = JSON.parse(replay.out) as { status: string; runId: string; error?: { message?: string } };
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.error?.message, 'model overloaded (529) after the rollback was stopped');
    const after = openRunStore(db);
    try {
      const replayed = after.exportRun(outcome.runId);
      assert.equal(replayed.status, 'failed');
      assert.deepEqual(
        after.listToolCalls(outcome.runId).map((r) => toolOutcomeOf(r)),
        ['success', 'error', 'cancelled'],
        'every event re-emitted before the failure',
      );
      assert.equal(replayed.checkpoints.at(-1)?.boundary, 'agent_end');
    } finally {
      after.close();
    }
  });

  it('names the turn and field of a malformed file and imports nothing', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(
      file,
      JSON.stringify([
        { prompt: 'hi', events: [], text: '', usage: { inputTokens: 1, outputTokens: 1 } },
        { prompt: 'again', events: [{ type: 'tool_result', id: 'x', status: 'maybe' }], text: '', usage: {} },
      ]),
    );
    const r = await cli(['import', file, '--format', 'replay-turns', '--store', path.join(dir, 'runs.db')]);
    assert.notEqual(r.code, 0);
    assert.match(r.out, /\[1\]/);
    assert.match(r.out, /usage\.inputTokens|events\[0\]/);
  });
});

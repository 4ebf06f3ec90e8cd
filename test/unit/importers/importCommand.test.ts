/** `ocdb import` from the command line: summary lines, exit codes, --format and --side-effects. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../../src/cli/main';
import type { CliIo } from '../../../src/cli/cliCommand';
import { openRunStore } from '../../../src/store';
import { listTraceFiles } from '../../../src/importers';
import { FIXTURES, REAL_FILE, SESSION_FILE, tempStore, type TempStore } from './helpers';

async function cli(args: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), isTty: false, env: {}, cwd };
  const code = await runCli(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('ocdb import', () => {
  let t: TempStore;
  let db: string;
  before(() => {
    t = tempStore();
    t.store.close();
    db = path.join(t.dir, 'cli.db');
  });
  after(() => fs.rmSync(t.dir, { recursive: true, force: true }));

  it('imports a directory of traces and prints what it did', async () => {
    const r = await cli(['import', FIXTURES, '--store', db], t.dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /imported cc-7f3c2a10-\S* \(\d+ checkpoints, 11 tool calls\)/);
    assert.match(r.out, /\(fork of cc-7f3c2a10-/);
    assert.match(r.out, /imported otel-5b8efff7/);
    const files = listTraceFiles(FIXTURES).length;
    assert.match(r.out, new RegExp(`\\n${files} imported, 0 skipped, 0 failed$`));
    const again = await cli(['import', FIXTURES, '--store', db], t.dir);
    assert.match(again.out, new RegExp(`\\n0 imported, ${files} skipped, 0 failed$`));
  });

  it('a session that grew appends to its run; a folder off a terminal shows a progress line every 50 files', async () => {
    const dir = path.join(t.dir, 'projects');
    fs.mkdirSync(dir, { recursive: true });
    const lines = fs.readFileSync(REAL_FILE, 'utf8').split(/(?<=\n)/);
    const session = path.join(dir, path.basename(REAL_FILE));
    fs.writeFileSync(session, lines.slice(0, 12).join(''));
    for (let i = 0; i < 60; i++) {
      const chat = [
        { role: 'user', content: `question ${i}` },
        { role: 'assistant', content: `answer ${i}` },
      ];
      fs.writeFileSync(path.join(dir, `chat-${String(i).padStart(2, '0')}.json`), JSON.stringify(chat));
    }
    const gdb = path.join(t.dir, 'grow.db');
    const first = await cli(['import', dir, '--store', gdb], t.dir);
    assert.equal(first.code, 0, first.err);
    const progress = first.err.split('\n').filter((l) => l.startsWith('importing:'));
    assert.equal(progress.length, 1, first.err);
    assert.match(progress[0] ?? '', /^importing: 50 of 61 files done \(/);
    fs.writeFileSync(session, lines.join(''));
    const grown = await cli(['import', session, '--store', gdb], t.dir);
    assert.equal(grown.code, 0, grown.err);
    assert.match(
      grown.out,
      /^appended \d+ checkpoints to cc-4d5611e5-241a-462a-8d15-5122611a9569 \(now \d+ checkpoints, 3 tool calls\)/m,
    );
    assert.match(grown.out, /\n1 imported \(1 grown since imported: appended\), 0 skipped, 0 failed$/);
    const again = await cli(['import', dir, '--store', gdb], t.dir);
    assert.match(again.out, /\n0 imported, 61 skipped, 0 failed$/);
  });

  it('skips a corrupt line with a warning naming it; --strict fails the file naming the line', async () => {
    const bad = path.join(t.dir, 'bad.jsonl');
    const lines = fs.readFileSync(SESSION_FILE, 'utf8').split('\n');
    lines[2] = '{"type":"user", broken';
    fs.writeFileSync(bad, lines.join('\n'));
    const strict = await cli(['import', bad, '--store', db, '--format', 'claude-code', '--strict'], t.dir);
    assert.equal(strict.code, 1);
    assert.match(strict.out, /failed .*bad\.jsonl: .*line 3: not valid JSON/);
    const r = await cli(['import', bad, '--store', db, '--format', 'claude-code'], t.dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /warning: .*bad\.jsonl: line 3: not valid JSON .*skipped the record/);
    assert.match(r.out, /1 imported, 0 skipped, 0 failed \(1 malformed record\(s\) skipped/);
  });

  it('rejects an unknown --format and a bad side-effect table', async () => {
    const r = await cli(['import', SESSION_FILE, '--store', db, '--format', 'langsmith'], t.dir);
    assert.equal(r.code, 2);
    assert.match(r.err, /--format: expected auto, claude-code, openai-chat, otel/);
    const table = path.join(t.dir, 'table.json');
    fs.writeFileSync(table, JSON.stringify({ Bash: 'dangerous' }));
    const r2 = await cli(['import', SESSION_FILE, '--store', db, '--side-effects', table], t.dir);
    assert.equal(r2.code, 2);
    assert.match(r2.err, /table\.json: Bash: /);
  });

  it('applies --side-effects to the imported ledger', async () => {
    const table = path.join(t.dir, 'ok-table.json');
    fs.writeFileSync(table, JSON.stringify({ 'send_*': 'external_irreversible' }));
    const fresh = path.join(t.dir, 'fresh.db');
    const r = await cli(
      ['import', path.join(FIXTURES, 'openai', 'umbrella-agent.jsonl'), '--store', fresh, '--side-effects', table],
      t.dir,
    );
    assert.equal(r.code, 0, r.err);
    const store = openRunStore(fresh, { create: false });
    try {
      const runId = store.listRuns().runs[0]?.runId as string;
      const email = store.listToolCalls(runId).find((c) => c.toolName === 'send_email');
      assert.equal(email?.replayPolicy, 'forbid_replay');
    } finally {
      store.close();
    }
  });
});

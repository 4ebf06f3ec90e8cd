/**
 * Saved cohorts of `ocdb what-if`: `--save-query NAME` keeps the cohort the flags select beside the store, and
 * `--query NAME` runs the same runs again (flags given with it narrow or replace its fields); an unknown name
 * says which are saved, a bad name or a hand-broken file says what is wrong and where.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { writeDemoStore } from '../../../src/demo';
import { openRunStore } from '../../../src/store';
import { tmpDir } from '../../helpers/tmp';

const dir = tmpDir('ocdb-saved-query-');
const storePath = path.join(dir, 'runs.db');
const queries = path.join(dir, 'what-if', 'queries.json');

before(() => {
  const store = openRunStore(storePath);
  writeDemoStore(store);
  store.close();
});

async function ocdb(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    isTty: false,
    env: { ...process.env, OCDB_MODEL_BASE_URL: '' },
    cwd: dir,
  };
  const code = await runCli([...args, '--store', storePath], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const sources = (json: string) =>
  (JSON.parse(json) as { results: { sourceRunId: string }[] }).results.map((r) => r.sourceRunId).sort();

describe('ocdb what-if --save-query / --query', () => {
  it('saves the cohort the flags select and runs the same runs again by its name', async () => {
    const first = await ocdb([
      'what-if',
      '--agent',
      'support-desk',
      '--status',
      'completed',
      '--policy',
      '*=reuse_result',
      '--save-query',
      'support-done',
      '--json',
      '--fresh',
    ]);
    assert.equal(first.code, EXIT.ok, first.err);
    assert.match(first.err, /saved this cohort as "support-done"/);
    const saved = JSON.parse(fs.readFileSync(queries, 'utf8')) as { queries: Record<string, unknown> };
    assert.deepEqual(saved.queries['support-done'], { agentId: 'support-desk', status: 'completed' });
    const again = await ocdb(['what-if', '--query', 'support-done', '--policy', '*=reuse_result', '--json', '--fresh']);
    assert.equal(again.code, EXIT.ok, again.err);
    assert.deepEqual(sources(again.out), sources(first.out));
    assert.ok(sources(again.out).includes('demo-support-refund'));
    // a flag given with the query replaces that field of it
    const narrowed = await ocdb([
      'what-if',
      '--query',
      'support-done',
      'demo-support-refund',
      '--policy',
      '*=reuse_result',
      '--json',
      '--fresh',
    ]);
    assert.deepEqual(sources(narrowed.out), ['demo-support-refund']);
  });

  it('says which queries are saved when the name is unknown, and refuses a name that is not one', async () => {
    const unknown = await ocdb(['what-if', '--query', 'nope', '--policy', '*=reuse_result']);
    assert.equal(unknown.code, EXIT.usage);
    assert.match(unknown.err, /No saved query "nope" \(saved: support-done\)/);
    const bad = await ocdb([
      'what-if',
      '--agent',
      'support-desk',
      '--save-query',
      '../x',
      '--policy',
      '*=reuse_result',
    ]);
    assert.equal(bad.code, EXIT.usage);
    assert.match(bad.err, /query name "\.\.\/x"/);
  });

  it('names the file and the field when the saved queries were broken by hand', async () => {
    fs.writeFileSync(queries, JSON.stringify({ version: 1, queries: { broken: { limit: 'ten' } } }));
    const r = await ocdb(['what-if', '--query', 'broken', '--policy', '*=reuse_result']);
    assert.equal(r.code, EXIT.usage);
    assert.match(r.err, /queries\.json/);
    assert.match(r.err, /limit/);
  });
});

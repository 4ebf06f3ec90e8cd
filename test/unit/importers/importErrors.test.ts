/**
 * A failed import names what went wrong first: a real trace cut off mid-way (whether or not its first bytes say
 * which format it is) is "invalid JSON at line L, column C", a text file is "format not recognised" in one line (not
 * the description of every format), and 10 MB of random bytes is "not a trace file".
 */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importPath } from '../../../src/importers';
import { FIXTURES, tempStore, type TempStore } from './helpers';

let t: TempStore;
before(() => (t = tempStore()));
after(() => t.close());

async function reasonOf(name: string, content: string | Buffer): Promise<string> {
  const file = path.join(t.dir, name);
  fs.writeFileSync(file, content);
  const summary = await importPath(t.store, file, {});
  assert.equal(summary.files[0]?.outcome, 'failed', JSON.stringify(summary.files[0]));
  assert.equal(t.store.listRuns().total, 0, 'nothing of the file was imported');
  return String(summary.files[0]?.reason);
}

/** Line and column (from 1) of the end of `text` without its trailing white space. */
function endOf(text: string): string {
  const lines = text.trimEnd().split('\n');
  return `line ${lines.length}, column ${(lines.at(-1) as string).length + 1}`;
}

describe('a failed import', () => {
  const vercel = fs.readFileSync(path.join(FIXTURES, 'openai', 'vercel-calculator.json'), 'utf8');
  const response = fs.readFileSync(path.join(FIXTURES, 'openai-responses', 'dinner.response.json'), 'utf8');

  it('of a JSON trace cut off before it says its format: invalid JSON at the line and column where it ends', async () => {
    const cut = vercel.slice(0, vercel.indexOf('"role"') + 3); // inside the first key: no format tells it yet
    const reason = await reasonOf('cut-early.json', cut);
    assert.equal(reason, `invalid JSON at ${endOf(cut)}: the file ends inside a string (cut off?)`);
  });

  it('of a JSON trace cut off later: the same words, with the file named', async () => {
    const cut = response.slice(0, response.indexOf('"output"') + 30);
    const reason = await reasonOf('cut-late.json', cut);
    assert.match(reason, /cut-late\.json: invalid JSON at line \d+, column \d+: /);
    assert.ok(reason.includes(`invalid JSON at ${endOf(cut)}`), reason);
  });

  it('of a JSON document with a stray comma: what is wrong, at its line and column', async () => {
    const broken = vercel.replace('"role": "system",', '"role": "system",,');
    const reason = await reasonOf('comma.json', broken);
    const line = broken.slice(0, broken.indexOf(',,')).split('\n').length;
    assert.match(reason, new RegExp(`invalid JSON at line ${line}, column \\d+: Expected double-quoted property name`));
  });

  it('of a text file: format not recognised, in one line naming the formats to force', async () => {
    const reason = await reasonOf('notes.txt', 'Dear diary,\nthe agent answered twice today.\n');
    assert.match(reason, /^format not recognised: no format recognises its content\. Pass --format to force one of /);
    assert.match(reason, /claude-code, codex, .*openai-chat\.$/);
    assert.ok(reason.length < 250, `short: ${reason}`);
  });

  it('of 10 MB of random bytes: not a trace file', async () => {
    const reason = await reasonOf('garbage.json', crypto.randomBytes(10 * 2 ** 20));
    assert.match(reason, /^not a trace file: a binary file/);
  });
});

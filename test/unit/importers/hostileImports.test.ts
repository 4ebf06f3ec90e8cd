/**
 * Hostile input a user can be handed: a FIFO or device named like a trace is refused (never opened, so the
 * import never blocks), a folder holding a link loop, a dangling link, a self-link or a link back to a folder
 * already walked imports the rest and names each link, a Claude Code session whose parentUuid chain is a ring is
 * read in file order with a warning, OTLP content the importer cannot use is kept and warned about, and a file
 * name holding a newline and an ANSI escape is printed escaped.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { importPath } from '../../../src/importers';
import { FIXTURES, REAL_FILE, checkpoints, jsonLines, tempStore, type TempStore } from './helpers';

function mkfifo(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

describe('hostile imports', () => {
  let t: TempStore;
  before(() => {
    t = tempStore();
  });
  after(() => t.close());

  it('refuses a FIFO given by name, saying what it is, without opening it', async () => {
    const fifo = path.join(t.dir, 'fifo', 'session.jsonl');
    mkfifo(fifo);
    // Opening a FIFO with no writer blocks: the import finishing at all is the test.
    const summary = await importPath(t.store, fifo);
    assert.equal(summary.failed, 1);
    assert.match(String(summary.files[0]?.reason), /not a regular file: a FIFO/);
    assert.equal(t.store.listRuns().total, 0);
  });

  it('imports a folder past a FIFO, a link loop, a self-link, a dangling link and a link to its parent', async () => {
    const dir = path.join(t.dir, 'links');
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    fs.copyFileSync(REAL_FILE, path.join(dir, 'sub', path.basename(REAL_FILE)));
    mkfifo(path.join(dir, 'pipe.jsonl'));
    fs.symlinkSync('b.jsonl', path.join(dir, 'a.jsonl'));
    fs.symlinkSync('a.jsonl', path.join(dir, 'b.jsonl'));
    fs.symlinkSync('self.json', path.join(dir, 'self.json'));
    fs.symlinkSync('missing.jsonl', path.join(dir, 'gone.jsonl'));
    fs.symlinkSync('..', path.join(dir, 'sub', 'up'));
    const summary = await importPath(t.store, dir);
    assert.equal(summary.imported, 1, JSON.stringify(summary.files, null, 1));
    const reasons = new Map(summary.files.map((f) => [path.relative(dir, f.file), f.reason ?? f.outcome]));
    assert.match(String(reasons.get('a.jsonl')), /symbolic link that loops/);
    assert.match(String(reasons.get('b.jsonl')), /symbolic link that loops/);
    assert.match(String(reasons.get('self.json')), /symbolic link that loops/);
    assert.match(String(reasons.get('gone.jsonl')), /symbolic link to nothing/);
    assert.match(String(reasons.get('pipe.jsonl')), /a FIFO/);
    assert.match(String(reasons.get(path.join('sub', 'up'))), /already walked \(a loop\)/);
    assert.equal(reasons.get(path.join('sub', path.basename(REAL_FILE))), 'imported');
    assert.equal(summary.failed, 6);
  });

  it('reads a Claude Code session whose parentUuid chain is a ring in file order, with a warning', async () => {
    const lines = jsonLines(REAL_FILE);
    const withUuid = lines.filter((l) => typeof l.uuid === 'string');
    // Every line's parent is the line before it, and the first line's parent is the last: one ring, no leaf.
    withUuid.forEach((l, i) => {
      l.parentUuid = (withUuid[(i - 1 + withUuid.length) % withUuid.length] as { uuid: string }).uuid;
    });
    const file = path.join(t.dir, 'ring', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const other = tempStore();
    try {
      const summary = await importPath(other.store, file);
      const f = summary.files[0];
      assert.equal(f?.outcome, 'imported', f?.reason);
      assert.ok(
        f.warnings.some((w) => /parentUuid links of lines .* form a cycle/.test(w.message)),
        JSON.stringify(f.warnings),
      );
      const plain = tempStore();
      try {
        const ref = await importPath(plain.store, REAL_FILE);
        const refRun = ref.files[0]?.runs[0];
        const run = f.runs[0];
        assert.equal(run?.toolCallCount, refRun?.toolCallCount);
        assert.equal(
          checkpoints(other.store, String(run?.runId)).filter((c) => c.boundary === 'after_model_call').length,
          checkpoints(plain.store, String(refRun?.runId)).filter((c) => c.boundary === 'after_model_call').length,
        );
      } finally {
        plain.close();
      }
    } finally {
      other.close();
    }
  });

  it('keeps OTLP message content it cannot read as it stands, and warns naming the span', async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'otel', 'travel-booker.otlp.json'), 'utf8')) as {
      resourceSpans: { scopeSpans: { spans: { name: string; attributes: { key: string; value: unknown }[] }[] }[] }[];
    };
    const chat = doc.resourceSpans
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
      .find((s) => s.attributes.some((a) => a.key === 'gen_ai.output.messages'));
    assert.ok(chat);
    const out = chat.attributes.find((a) => a.key === 'gen_ai.output.messages') as { value: unknown };
    out.value = { stringValue: 'Booked: flight UA 123, seat 14C' };
    const file = path.join(t.dir, 'otel', 'unreadable.otlp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(doc));
    const other = tempStore();
    try {
      const summary = await importPath(other.store, file);
      const f = summary.files[0];
      assert.equal(f?.outcome, 'imported', f?.reason);
      assert.ok(
        f.warnings.some((w) => /gen_ai\.output\.messages is not a JSON array of messages/.test(w.message)),
        JSON.stringify(f.warnings),
      );
      const texts = checkpoints(other.store, String(f.runs[0]?.runId)).flatMap((c) =>
        c.messages.map((m) => JSON.stringify(m.content)),
      );
      assert.ok(
        texts.some((x) => x.includes('Booked: flight UA 123, seat 14C')),
        'the unreadable output is kept as text',
      );
    } finally {
      other.close();
    }
  });

  it('prints a file name holding a newline and an ANSI escape escaped', async () => {
    const dir = path.join(t.dir, 'escapes');
    fs.mkdirSync(dir, { recursive: true });
    const name = 'evil\n\u001b[31mred\u001b[0m.jsonl';
    fs.writeFileSync(path.join(dir, name), 'not json at all\n');
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = { out: (x) => out.push(x), err: (x) => err.push(x), isTty: false, env: {}, cwd: t.dir };
    await runCli(['import', dir, '--store', path.join(t.dir, 'escapes.db')], io);
    const all = [...out, ...err].join('\n');
    assert.ok(!all.includes('\u001b'), all);
    assert.match(all, /evil\\n\\x1b\[31mred\\x1b\[0m\.jsonl/);
    for (const line of [...out, ...err]) assert.ok(!line.includes('\n'), `one line each: ${JSON.stringify(line)}`);
  });
});

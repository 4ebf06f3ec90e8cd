/**
 * Malformed store URLs: a PostgreSQL URL whose password holds an unencoded `/`, `#`, `?` or `@`, or that does not
 * parse at all, is refused by real `ocdb runs` and `ocdb serve` processes in one line — no stack trace, never the
 * password — with a usage exit code, before any connection is tried.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT } from '../../../src/cli/cliCommand';

const CLI = path.join(__dirname, '../../../dist/cli.js');
const SECRET = 's3cr3tPW';

/** Each URL with the password it carries (as written: the part that must never be printed). */
const URLS: readonly string[] = [
  `postgres://bob:pa/${SECRET}#w0rd@localhost:5432/runs`,
  `postgres://bob:${SECRET}#x@db.example/runs`,
  `postgresql://bob:12/${SECRET}@db.example/runs`,
  `postgres://bob:12#${SECRET}@db.example/runs`,
  `postgres://bob:p@${SECRET}@:99999/runs`,
  `postgres://bob:${SECRET}?@db.example/runs`,
  'postgres://[::1',
];

describe('hostile store URLs', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'att-urls-'));
  let count = 0;
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`# hostile store URLs: ${count} cases, 0 stacks, 0 passwords shown`);
  });

  function ocdb(args: string[]): Promise<{ status: number; out: string; err: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [CLI, ...args], { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        resolve({ status: typeof code === 'number' ? code : 0, out: stdout, err: stderr });
      });
    });
  }

  for (const command of ['runs', 'serve'] as const) {
    it(`ocdb ${command}: one clear line for each malformed URL`, async () => {
      for (const url of URLS) {
        const r = await ocdb([command, '--store', url]);
        const shown = `${r.out}${r.err}`;
        assert.equal(r.status, EXIT.usage, `${url}: ${shown}`);
        assert.doesNotMatch(shown, /\n\s+at /, `${url}: no stack trace:\n${shown}`);
        assert.ok(!shown.includes(SECRET), `${url}: the password is not shown:\n${shown}`);
        assert.equal(shown.trim().split('\n').length, 1, `${url}: one line:\n${shown}`);
        assert.match(shown, /is not a valid URL: percent-encode a password/);
        count++;
      }
    });
  }
});

/**
 * Code says why in the repository's own terms: an issue number or a work branch's name means nothing to whoever
 * reads the file later (the tracker and the branches are not in the repository), so no source or test file under
 * src/ or test/ cites one. Say what the code keeps instead — "live debugging", "schema 7", the bench that measured it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(__dirname, '../../..');
const CODE = /\.(?:ts|mjs|cjs|js)$/;

/** "issue 14", "issues 3 and 11", "issue #12", "branch i11bytes", "(i16ops)", "i11 item 3". */
const CITATIONS = [/\bissues? #?\d+/i, /\bbranch i\d+[a-z]\w*/i, /\(i\d+[a-z]*\)/, /\bi\d+ item \d+/];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : files(path);
    return CODE.test(name) ? [path] : [];
  });
}

test('no file under src/ or test/ cites an issue number or a branch name', () => {
  const found: string[] = [];
  for (const file of [...files(join(ROOT, 'src')), ...files(join(ROOT, 'test'))]) {
    if (file === __filename) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (CITATIONS.some((re) => re.test(line))) found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, [], "say why in the code's own terms instead");
});

test('the patterns find each form a citation took, and not the words the code uses', () => {
  for (const cited of ['(issue 14)', 'issues 3 and 11', 'Issue #12', 'branch i11bytes', '(i16ops)', '(i11 item 3)']) {
    assert.ok(
      CITATIONS.some((re) => re.test(cited)),
      cited,
    );
  }
  for (const fine of ['tool("issue_refund")', "parseForkPoint('#12')", 'schema 7', 'the issues of the schema']) {
    assert.ok(!CITATIONS.some((re) => re.test(fine)), fine);
  }
});

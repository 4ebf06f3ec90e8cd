/**
 * The docs hold together as a reader follows them: every relative link and image of README.md, media/docs/ and the
 * contributor pages (test/README.md, src/README.md and the READMEs inside src/) names a file of the repository, and a
 * `#anchor` names a heading of the page it points to (GitHub's slugs, as the Marketplace page and github.com make
 * them). The README stays a front page: under its size bound, its images in media/ (the folder the .vsix ships), and
 * every page of media/docs/ within two links of it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(__dirname, '../../..');
/** The front page's budget: what a reader of the Marketplace page reads before following a link. */
const README_MAX_BYTES = 16 * 1024;

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...markdownUnder(rel));
    else if (entry.name.endsWith('.md')) out.push(rel);
  }
  return out;
}

const PAGES = [
  'README.md',
  'test/README.md',
  ...markdownUnder('media/docs'),
  ...markdownUnder('src').filter((f) => f.endsWith('/README.md')),
];

/** The page's text outside fenced code blocks and inline code, where a link is a link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const unfenced = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of unfenced.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = (m[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

interface Link {
  target: string;
  image: boolean;
}

function linksOf(text: string): Link[] {
  const body = prose(text);
  const links: Link[] = [];
  for (const m of body.matchAll(/(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ target: m[2] ?? '', image: m[1] === '!' });
  }
  for (const m of body.matchAll(/<img\b[^>]*\bsrc="([^"]+)"/g)) links.push({ target: m[1] ?? '', image: true });
  return links;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** Where a relative link of `page` leads: the file (repository-relative) and the anchor, if any. */
function resolveLink(page: string, target: string): { file: string; anchor?: string } {
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), decodeURIComponent(path)));
  return anchor === undefined ? { file } : { file, anchor };
}

for (const page of PAGES) {
  test(`${page}: every relative link and image resolves`, () => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const { target } of linksOf(text)) {
      if (isExternal(target)) continue;
      const { file, anchor } = resolveLink(page, target);
      if (file.startsWith('..') || !existsSync(join(ROOT, file))) {
        broken.push(`${target} (no file ${file})`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(join(ROOT, file), 'utf8')).has(anchor)) {
        broken.push(`${target} (no heading #${anchor} in ${file})`);
      }
    }
    assert.deepEqual(broken, [], `${page} links to what is not there`);
  });
}

test('README.md is a front page: under its size bound, its images shipped in media/', () => {
  const size = statSync(join(ROOT, 'README.md')).size;
  assert.ok(
    size <= README_MAX_BYTES,
    `README.md is ${size} bytes, over ${README_MAX_BYTES}: move details to media/docs/`,
  );
  const images = linksOf(readFileSync(join(ROOT, 'README.md'), 'utf8')).filter((l) => l.image);
  assert.ok(images.length >= 2, 'the README shows the icon and a screenshot');
  for (const { target } of images) {
    assert.ok(!isExternal(target), `${target}: the packaged README's images come from the repository`);
    assert.match(resolveLink('README.md', target).file, /^media\//, `${target} is in media/, which the .vsix ships`);
  }
});

test('every page of media/docs/ is within two links of README.md', () => {
  const linked = (page: string) =>
    linksOf(readFileSync(join(ROOT, page), 'utf8'))
      .filter((l) => !l.image && !isExternal(l.target))
      .map((l) => resolveLink(page, l.target).file)
      .filter((f) => f.endsWith('.md') && existsSync(join(ROOT, f)));
  const first = new Set(linked('README.md'));
  const reached = new Set([...first, ...[...first].flatMap(linked)]);
  const unreached = markdownUnder('media/docs').filter((f) => !reached.has(f));
  assert.deepEqual(unreached, [], 'pages a reader of the README cannot find within two links');
});

test('the link checker sees a broken link, a missing anchor and a link inside code as what they are', () => {
  const text =
    'See [a](media/docs/none.md), [b](README.md#no-such-heading), `[c](nowhere.md)` and\n```\n[d](x.md)\n```\n';
  assert.deepEqual(
    linksOf(text).map((l) => l.target),
    ['media/docs/none.md', 'README.md#no-such-heading'],
  );
  assert.equal(existsSync(join(ROOT, resolveLink('README.md', 'media/docs/none.md').file)), false);
  assert.ok(anchorsOf('# Other editors: `ocdb dap`\n## A\n## A\n').has('other-editors-ocdb-dap'));
  assert.ok(anchorsOf('## A\n## A\n').has('a-1'));
  assert.ok(!anchorsOf(readFileSync(join(ROOT, 'README.md'), 'utf8')).has('no-such-heading'));
});

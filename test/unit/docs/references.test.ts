/**
 * The references in media/docs/reference/ are what test/docs/references.ts renders from the code's own tables (the
 * CLI's commands, the settings in package.json, the HTTP routes, the import formats): a command, setting, route or
 * format added without regenerating them fails here, as package.json's `contributes` does in manifest.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { buildContributes } from '../../../src/extension/contributes';
import { COMMANDS } from '../../../src/cli/commands';
import { FORMAT_SPECS } from '../../../src/importers/formats';
import { buildRoutes } from '../../../src/server/routes';
import type { RunStore } from '../../../src/store';
import { REFERENCES, REGENERATE_COMMAND, renderReference } from '../../docs/references';

const ROOT = resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

for (const { file, render } of REFERENCES) {
  test(`${file} is what its source renders`, async () => {
    assert.ok(existsSync(join(ROOT, file)), `${file} is missing: run \`${REGENERATE_COMMAND}\``);
    const expected = await renderReference(file, render);
    assert.equal(read(file), expected, `${file} drifted from its source: run \`${REGENERATE_COMMAND}\``);
  });
}

test('each reference names every entry of its table', () => {
  const cli = read('media/docs/reference/cli.md');
  for (const c of COMMANDS) assert.match(cli, new RegExp(`^## ocdb ${c.name}$`, 'm'), `ocdb ${c.name}`);
  const settings = read('media/docs/reference/settings.md');
  for (const key of Object.keys(buildContributes().configuration.properties)) {
    assert.ok(settings.includes(`## \`${key}\``), `setting ${key}`);
  }
  const formats = read('media/docs/reference/formats.md');
  for (const f of FORMAT_SPECS) assert.ok(formats.includes(`| \`${f.format}\``), `format ${f.format}`);
  const http = read('media/docs/reference/http.md');
  for (const route of ['GET /runs/:runId/checkpoints', 'POST /fork', 'GET /runs/:runId/stops/:stopId']) {
    assert.ok(http.includes(`\`${route}\``), route);
  }
});

test('the README links the four references', () => {
  const readme = read('README.md');
  for (const { file } of REFERENCES) assert.ok(readme.includes(`](${file})`), `README.md links ${file}`);
});

test("each route's documented path is the path its pattern matches, and no two routes share one", () => {
  const routes = buildRoutes({ store: {} as RunStore });
  const seen = new Set<string>();
  for (const r of routes) {
    const params = r.path.match(/:[A-Za-z]+/g) ?? [];
    const sample = r.path.replace(/:[A-Za-z]+/g, (p) => `${p.slice(1)}-value`);
    const match = r.pattern.exec(sample);
    assert.ok(match, `${r.method} ${r.path} is matched by ${String(r.pattern)}`);
    assert.deepEqual(
      match.slice(1),
      params.map((p) => `${p.slice(1)}-value`),
      `${r.method} ${r.path}: its parameters are the pattern's captures, in order`,
    );
    assert.ok(r.summary.length > 0, `${r.method} ${r.path} has a summary`);
    assert.ok(!seen.has(`${r.method} ${r.path}`), `${r.method} ${r.path} is declared once`);
    seen.add(`${r.method} ${r.path}`);
  }
});

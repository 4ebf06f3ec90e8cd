/**
 * The Layers table of src/README.md is the `LAYERS` table of eslint.config.mjs, read as a newcomer reads it: the
 * same folders, each allowed the same folders of ours (an "only" fence — `recorder/inputs`, "of webview only its
 * protocols" — where the config has one), and every allowed import points down the table (a lower layer number;
 * the files of an "only" fence may be beside it, as the webview protocols the extension shares are).
 * fences.test.ts checks that the fences fire; this keeps the map that describes them true.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

const ROOT = resolve(__dirname, '../../..');

interface Layer {
  may: string[];
  only?: Record<string, string[]>;
}

interface Row {
  layer: number;
  folder: string;
  mayImport: string;
}

/** The rows of the table under "## Layers": `| 3 | \`writer/\` | owns | may import |`. */
function readmeRows(): Row[] {
  const text = readFileSync(join(ROOT, 'src/README.md'), 'utf8');
  const section = /^## Layers\n([\s\S]*?)(?=^## )/m.exec(text)?.[1];
  assert.ok(section, 'src/README.md has a "## Layers" section');
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const layer = Number(cells[1]);
    if (!/^\d+$/.test(cells[1] ?? '')) continue;
    const folder = /^`([a-z]+)\/`$/.exec(cells[2] ?? '')?.[1];
    assert.ok(folder, `a folder in backticks in the row: ${line}`);
    rows.push({ layer, folder, mayImport: cells[4] ?? '' });
  }
  assert.ok(rows.length > 0, 'the Layers table has rows');
  return rows;
}

/** What a "may import" cell allows, as LAYERS would say it: the folders, and the files of an "only" fence. */
function parseMayImport(cell: string, self: string, folders: string[]): Layer {
  const text = cell.replace(/`/g, '').trim();
  if (/^nothing of ours$/i.test(text)) return { may: [] };
  const may = new Set<string>();
  const only: Record<string, string[]> = {};
  const [first = '', ...rest] = text.split(';').map((c) => c.trim());
  const but = /^everything but (.+)$/i.exec(first);
  if (but) {
    const except = (but[1] ?? '').split(',').map((f) => f.trim());
    for (const f of except) assert.ok(folders.includes(f), `"everything but" names a folder: ${f} (in ${cell})`);
    for (const f of folders) if (f !== self && !except.includes(f)) may.add(f);
  } else {
    for (const item of first.split(',').map((i) => i.trim())) {
      const file = /^([a-z]+)\/([A-Za-z]+)$/.exec(item);
      if (file && folders.includes(file[1] ?? '')) {
        only[file[1] ?? ''] = [...(only[file[1] ?? ''] ?? []), file[2] ?? ''];
        continue;
      }
      const folder = folders.find((f) => new RegExp(`(^|[^a-z])${f}(/|[^a-z]|$)`).test(item));
      if (folder) may.add(folder);
    }
  }
  for (const clause of rest) {
    const m = /^of ([a-z]+) only (.+)$/i.exec(clause);
    assert.ok(m && folders.includes(m[1] ?? ''), `a clause "of <folder> only ..." in ${cell}: ${clause}`);
    only[m[1] ?? ''] = [];
    may.delete(m[1] ?? '');
  }
  return { may: [...may].sort(), ...(Object.keys(only).length > 0 ? { only } : {}) };
}

test("src/README.md's Layers table is eslint.config.mjs's LAYERS", async () => {
  const config = (await import(pathToFileURL(join(ROOT, 'eslint.config.mjs')).href)) as {
    LAYERS: Record<string, Layer>;
  };
  const layers = config.LAYERS;
  const rows = readmeRows();
  const folders = Object.keys(layers);
  assert.deepEqual(
    rows.map((r) => r.folder).sort(),
    [...folders].sort(),
    'the same folders of src/ in both tables (a new folder needs a row in each)',
  );
  const layerOf = new Map(rows.map((r) => [r.folder, r.layer]));
  for (const row of rows) {
    const fenced = layers[row.folder];
    assert.ok(fenced);
    const read = parseMayImport(row.mayImport, row.folder, folders);
    assert.deepEqual(
      read.may,
      [...fenced.may].sort(),
      `src/README.md says ${row.folder}/ may import "${row.mayImport}"; LAYERS.${row.folder}.may is [${fenced.may.join(', ')}]`,
    );
    const onlyFolders = Object.keys(fenced.only ?? {}).sort();
    assert.deepEqual(Object.keys(read.only ?? {}).sort(), onlyFolders, `the "only" fences of ${row.folder}/`);
    for (const [other, files] of Object.entries(read.only ?? {})) {
      // "of webview only its protocols" names no files; `recorder/inputs` does, and they must be the fence's
      if (files.length > 0) assert.deepEqual(files.sort(), [...(fenced.only?.[other] ?? [])].sort());
    }
    for (const lower of fenced.may) {
      assert.ok(
        (layerOf.get(lower) ?? Infinity) < row.layer,
        `${row.folder}/ (layer ${row.layer}) may import ${lower}/ (layer ${layerOf.get(lower)}): imports point down`,
      );
    }
    // the named files of an "only" fence (a protocol both ends share) may sit beside it, never above
    for (const beside of onlyFolders) {
      assert.ok((layerOf.get(beside) ?? Infinity) <= row.layer, `${row.folder}/ reaches up into ${beside}/`);
    }
  }
  const order = folders.map((f) => layerOf.get(f) ?? 0);
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
    'LAYERS lists the folders bottom to top, as the layer numbers of src/README.md go',
  );
});

test('the parser reads each form the table uses, so a drift is a drift and not a misreading', () => {
  const folders = ['model', 'store', 'writer', 'recorder', 'webview', 'cli', 'extension'];
  assert.deepEqual(parseMayImport('nothing of ours', 'model', folders), { may: [] });
  assert.deepEqual(parseMayImport('model, store', 'writer', folders), { may: ['model', 'store'] });
  assert.deepEqual(parseMayImport('model, `recorder/inputs`', 'cli', folders), {
    may: ['model'],
    only: { recorder: ['inputs'] },
  });
  assert.deepEqual(parseMayImport('everything but cli; of webview only its protocols', 'extension', folders), {
    may: ['model', 'recorder', 'store', 'writer'],
    only: { webview: [] },
  });
  assert.deepEqual(parseMayImport('zod, browser-safe `model/` files, itself', 'webview', folders), {
    may: ['model'],
  });
});

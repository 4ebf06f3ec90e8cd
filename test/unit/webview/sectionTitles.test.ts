/**
 * The fork editor reads as one page in a 300 px side bar: no two of its folding sections share a title (the
 * context's model fields and how the fork calls the model were both "Model").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FORK_SECTION_TITLES, SECTION_TITLES } from '../../../src/webview/view';

test('every section of the fork editor has its own title', () => {
  const titles = [...Object.values(SECTION_TITLES), ...Object.values(FORK_SECTION_TITLES)];
  const seen = new Set<string>();
  for (const t of titles) {
    assert.ok(!seen.has(t), `two sections are called ${t}`);
    seen.add(t);
  }
  assert.ok(!titles.includes('Model'), 'neither is a bare "Model"');
});

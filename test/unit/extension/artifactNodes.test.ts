/**
 * How the runs tree shows artifacts, on the pure model over the demo store: the refund run's Artifacts node counts
 * its case report; the report's item says its type and size, opens with its click command, and its tooltip keeps
 * run data plain text; a binary or missing content is said so.
 */
import * as assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { artifactView, artifactsView } from '../../../src/extension/runsTreeModel';
import { ITEM_CONTEXT } from '../../../src/extension/ids';
import { runArtifacts } from '../../../src/store';
import { openDemoStore } from './demoStore';

const demo = openDemoStore();
after(() => demo.cleanup());

test("the refund run's Artifacts node and its case report item", () => {
  const refs = runArtifacts(demo.store, 'demo-support-refund');
  const node = artifactsView(refs);
  assert.equal(node.label, 'Artifacts');
  assert.equal(node.description, '1 artifact');
  assert.equal(node.collapsible, 'collapsed');
  assert.equal(node.contextValue, ITEM_CONTEXT.artifacts);
  const [report] = refs;
  assert.ok(report);
  const size = demo.store.getArtifactContent(report.contentHash).byteLength;
  const item = artifactView(report, { size, text: true }, { id: 'vscode.open', args: ['uri'] });
  assert.equal(item.label, 'case-report.md');
  assert.equal(item.description, `text/markdown · ${size} B`);
  assert.equal(item.icon.id, 'file');
  assert.deepEqual(item.command, { id: 'vscode.open', title: 'Open Artifact', args: ['uri'] });
  assert.match(item.tooltip ?? '', /version 1/);
  assert.match(
    item.tooltip ?? '',
    /Metadata: `\{"reportId":"CR-2026-1104",.*"path":"reports\/2026\/11\/CR-2026-1104\.md"\}`/,
  );
});

test('a binary image, a second version and a content not in the store read as such', () => {
  const [report] = runArtifacts(demo.store, 'demo-support-refund');
  assert.ok(report);
  const image = artifactView({ ...report, type: 'image/png', version: 3 }, { size: 20480, text: false }, undefined);
  assert.equal(image.description, 'image/png · 20.0 KB · v3 · binary');
  assert.equal(image.icon.id, 'file-media');
  assert.equal(image.command, undefined);
  const missing = artifactView(report, undefined, undefined);
  assert.equal(missing.description, 'text/markdown · content not in this store');
  assert.equal(artifactsView([]).collapsible, 'none');
});

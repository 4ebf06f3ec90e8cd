/**
 * The artifacts of two runs compared by name (replay/runComparison.ts): the same content, changed (with both
 * sizes), only in the left run (removed) or only in the right one (added); the summary lists what differs and
 * the two sides of the diff editor have one line per name, so only a changed artifact's line differs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openRecorder } from '../../../src/recorder';
import { compareRuns } from '../../../src/replay/runComparison';
import { comparisonSides, comparisonSummary } from '../../../src/replay/comparisonText';
import { testContext } from '../../helpers/context';
import { tmpStore } from '../../helpers/tmp';

test('artifacts compared by name: same, changed, removed, added — with sizes', () => {
  const store = tmpStore();
  let t = 1000;
  const recorder = openRecorder({ runStore: store, heartbeatMs: 0, now: () => (t += 10) });
  const record = (runId: string, artifacts: Record<string, string>) => {
    const run = recorder.startRun({ runId, agentId: 'writer', runtimeContext: testContext() });
    run.checkpoint('before_prompt_build');
    for (const [name, content] of Object.entries(artifacts)) run.artifact({ type: 'text/plain', name, content });
    run.end();
  };
  record('a', { 'same.txt': 'unchanged', 'report.md': 'short', 'gone.txt': 'only in a' });
  record('b', { 'same.txt': 'unchanged', 'report.md': 'a longer report', 'new.txt': 'only in b' });
  const c = compareRuns(store, 'a', 'b');
  assert.deepEqual(
    c.artifacts.map((x) => `${x.name}:${x.change}:${x.left?.size ?? '-'}:${x.right?.size ?? '-'}`),
    ['same.txt:same:9:9', 'report.md:changed:5:15', 'gone.txt:removed:9:-', 'new.txt:added:-:9'],
  );
  const summary = comparisonSummary(c).join('\n');
  assert.match(summary, /Artifacts that differ \(1 the same\):/);
  assert.match(summary, / {2}report\.md: changed \(v1 5 B → v1 15 B\)/);
  assert.match(summary, / {2}gone\.txt: removed \(only in the left run, 9 B\)/);
  assert.match(summary, / {2}new\.txt: added \(only in the right run, 9 B\)/);
  assert.doesNotMatch(summary, /same\.txt/);
  const { left, right } = comparisonSides(c);
  const lines = (text: string) => text.split('\n').filter((l) => l.startsWith('artifact '));
  const [l, r] = [lines(left), lines(right)];
  assert.equal(l.length, 4);
  assert.equal(l[0], r[0], 'the same artifact reads the same on both sides');
  assert.notEqual(l[1], r[1]);
  assert.equal(r[2], 'artifact gone.txt · (not in this run)');
  assert.deepEqual(
    comparisonSummary(compareRuns(store, 'a', 'a')).filter((x) => x.startsWith('Artifacts')),
    ['Artifacts: the same (3)'],
  );
  recorder.close();
});

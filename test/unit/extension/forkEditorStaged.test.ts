/**
 * The fork editor's draft with the debugger's staged edits (setVariable in the Runtime Context scope): the page
 * starts from them, marked as changed like its own edits; edits made in the page win for their field; edits staged
 * later join the draft; the fork the page asks for carries them through the same ForkService path; and only a fork
 * that used them counts as having used them (the host then clears them in the session).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { stagedContextPatchRequest, stagedPatchOf, type StagedPatch } from '../../../src/debug/protocol';
import { ReplayController } from '../../../src/debug/replayController';
import { isAppliedIn, type PathSegment } from '../../../src/debug/stagedEdits';
import { ForkService } from '../../../src/fork/forkService';
import type { RunStore } from '../../../src/store';
import { formValues, readForm } from '../../../src/webview/contextForm';
import { ForkDraftSchema, buildForkConfig, newDraft, withStagedEdits } from '../../../src/webview/forkDraft';
import { HostMessageSchema, type EditorCheckpoint } from '../../../src/webview/protocol';
import { editorCheckpointOf, openDemoStore } from './demoStore';

const RUN = 'demo-support-refund';
let demo: ReturnType<typeof openDemoStore>;
let store: RunStore;
let checkpoint: EditorCheckpoint;
before(() => {
  demo = openDemoStore();
  store = demo.store;
  const first = store.listCheckpoints(RUN)[0];
  assert.ok(first);
  checkpoint = editorCheckpointOf(store, RUN, first);
});
after(() => demo.cleanup());

const defaults = { modelMode: 'captured' as const, overrideProvider: '', overrideModel: 'gpt-4o-mini', program: '' };
/** What the demo fork needs besides the context: every tool from the recording, so nothing is a hazard. */
const REUSE = { '*': 'reuse_result' as const };

/** Stages `value` at `path` of the first checkpoint's runtime context in a real replay session; returns its answer. */
function stageInDebugger(edits: [PathSegment[], unknown][]): StagedPatch {
  const ctl = ReplayController.open({ runId: RUN, store: path.join(demo.dir, 'runs.db') });
  try {
    for (const [p, value] of edits) ctl.stage(ctl.current, p, value);
    const body = stagedContextPatchRequest.body.parse(ctl.customRequest(stagedContextPatchRequest.command, {}).body);
    const staged = stagedPatchOf(body);
    assert.ok(staged, 'the session answers its staged patch');
    return staged;
  } finally {
    ctl.close();
  }
}

test('a draft starts with the staged edits applied, marked changed exactly like an edit in the page', () => {
  const staged = stageInDebugger([[['user', 'roleId'], 'auditor']]);
  assert.equal(staged.checkpointId, checkpoint.checkpointId);
  const draft = newDraft(checkpoint, defaults, staged.contextPatch);
  assert.equal(draft.values['user.roleId'], 'auditor');
  assert.deepEqual(draft.staged, staged.contextPatch);
  const typed = { ...formValues(checkpoint.runtimeContext), 'user.roleId': 'auditor' };
  assert.deepEqual(readForm(checkpoint.runtimeContext, draft.values), readForm(checkpoint.runtimeContext, typed));
  const result = buildForkConfig(checkpoint, draft);
  assert.deepEqual(result.changed, ['user.roleId']);
  assert.deepEqual(result.config?.contextPatch, { user: { roleId: 'auditor' } });
});

test('an array element staged in the Variables view changes its list field', () => {
  const staged = stageInDebugger([[['user', 'permissions', 1], 'refunds:none']]);
  const draft = newDraft(checkpoint, defaults, staged.contextPatch);
  const result = buildForkConfig(checkpoint, draft);
  assert.deepEqual(result.changed, ['user.permissions']);
  assert.deepEqual(result.config?.contextPatch, staged.contextPatch);
});

test("the page's own edit wins for its field; edits staged later join the draft", () => {
  const first = stageInDebugger([[['user', 'roleId'], 'auditor']]);
  let draft = newDraft(checkpoint, defaults, first.contextPatch);
  draft.values['user.roleId'] = 'supervisor'; // typed in the page
  draft.values['project.projectId'] = 'proj-x';
  const more = stageInDebugger([
    [['user', 'roleId'], 'auditor'],
    [['task', 'taskId'], 'T-9'],
    [['project', 'projectId'], 'proj-y'],
  ]);
  draft = withStagedEdits(checkpoint, draft, more.contextPatch);
  assert.equal(draft.values['user.roleId'], 'supervisor', 'the page edit of the same field wins');
  assert.equal(draft.values['project.projectId'], 'proj-x', 'and so does one made before the debugger staged it');
  assert.equal(draft.values['task.taskId'], 'T-9', 'a newly staged field joins the draft');
  assert.deepEqual(buildForkConfig(checkpoint, draft).changed.sort(), [
    'project.projectId',
    'task.taskId',
    'user.roleId',
  ]);
  // the same staged edits shown again change nothing
  assert.deepEqual(withStagedEdits(checkpoint, draft, more.contextPatch).values, draft.values);
});

test('once the staged edits are gone (a fork used them) the draft keeps its values as its own', () => {
  const staged = stageInDebugger([[['user', 'roleId'], 'auditor']]);
  let draft = newDraft(checkpoint, defaults, staged.contextPatch);
  draft = withStagedEdits(checkpoint, draft, undefined);
  assert.equal(draft.staged, undefined);
  assert.equal(draft.values['user.roleId'], 'auditor');
  // a later edit staged at the same checkpoint (a new patch without roleId) does not undo it
  const later = stageInDebugger([[['task', 'taskId'], 'T-9']]);
  draft = withStagedEdits(checkpoint, draft, later.contextPatch);
  assert.equal(draft.values['user.roleId'], 'auditor');
  assert.equal(draft.values['task.taskId'], 'T-9');
});

test('a staged patch that does not fit the context is left out; the saved draft keeps what it was based on', () => {
  const draft = newDraft(checkpoint, defaults, { user: { roleId: 42 } });
  assert.deepEqual(draft.values, formValues(checkpoint.runtimeContext));
  const staged = newDraft(checkpoint, defaults, { user: { roleId: 'auditor' } });
  assert.deepEqual(ForkDraftSchema.parse(JSON.parse(JSON.stringify(staged))), staged);
  const show = HostMessageSchema.safeParse({
    type: 'show',
    checkpoint,
    defaults,
    stagedContextPatch: { user: { roleId: 'auditor' } },
  });
  assert.ok(show.success, 'the show message carries the staged patch');
});

test('forking from the draft carries the staged edits through ForkService; only a fork that kept them used them', () => {
  const staged = stageInDebugger([
    [['user', 'roleId'], 'auditor'],
    [['conversation', 'summary'], 'staged in the debugger'],
  ]);
  const draft = newDraft(checkpoint, defaults, staged.contextPatch);
  draft.policies = { ...REUSE };
  const { config } = buildForkConfig(checkpoint, draft);
  assert.ok(config);
  const service = new ForkService(store);
  const created = service.create(config, []);
  const first = store.getCheckpointAt(created.runId, 0);
  assert.equal(first.runtimeContext.user.roleId, 'auditor');
  assert.equal(first.runtimeContext.conversation.summary, 'staged in the debugger');
  assert.equal(store.getCheckpoint(checkpoint.checkpointId).runtimeContext.user.roleId, 'support_agent');
  assert.equal(isAppliedIn(created.plan.runtimeContext, staged.contextPatch), true, 'the fork used the edits');

  draft.values['user.roleId'] = 'support_agent'; // reverted in the page
  const reverted = buildForkConfig(checkpoint, draft).config;
  assert.ok(reverted);
  const plan = service.plan(reverted);
  assert.equal(isAppliedIn(plan.runtimeContext, staged.contextPatch), false, 'a fork without roleId did not');
});

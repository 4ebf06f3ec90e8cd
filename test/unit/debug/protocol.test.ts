/**
 * The custom DAP protocol module both ends use: the fork arguments derived from ForkConfigSchema, the
 * stagedContextPatch answer, the typed client helpers, and no bare custom names elsewhere in debug/extension.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  ForkRequestArgsSchema,
  StagedContextPatchBodySchema,
  forkRequest,
  parseEvent,
  runsChangedEvent,
  sendRequest,
  stagedContextPatchRequest,
  stagedPatchOf,
} from '../../../src/debug/protocol';
import { isOcdbError } from '../../../src/model';

describe('custom DAP protocol', () => {
  it('fork arguments are a ForkConfig whose source may be left out, with defaults', () => {
    assert.deepEqual(ForkRequestArgsSchema.parse({}), { forkConfig: {}, acknowledgedTools: [] });
    const args = ForkRequestArgsSchema.parse({
      checkpointId: 'cp-1',
      forkConfig: { onDivergence: 'continue_real', toolPolicyMap: { '*': 'reuse_result' } },
    });
    assert.equal(args.forkConfig.onDivergence, 'continue_real', 'every ForkConfig field is accepted');
    assert.equal(ForkRequestArgsSchema.safeParse({ forkConfig: { toolPolicyMap: { x: 'nuke' } } }).success, false);
    assert.equal(ForkRequestArgsSchema.safeParse({ checkpointId: 42 }).success, false);
  });

  it('stagedContextPatch answers a staged patch or an empty one', () => {
    const staged = { runId: 'r', checkpointId: 'cp', contextPatch: { user: { roleId: 'auditor' } } };
    assert.deepEqual(stagedPatchOf(StagedContextPatchBodySchema.parse(staged)), staged);
    assert.equal(stagedPatchOf(StagedContextPatchBodySchema.parse({ contextPatch: {} })), undefined);
    assert.equal(StagedContextPatchBodySchema.safeParse({ contextPatch: { a: 1 } }).success, false, 'no checkpoint');
    assert.deepEqual(stagedContextPatchRequest.args.parse(undefined), {});
    assert.equal(stagedContextPatchRequest.args.safeParse({ clear: 'yes' }).success, false);
  });

  it('sendRequest sends the command and parses the body; a bad body is an InvalidInput naming the request', async () => {
    const sent: unknown[] = [];
    const session = (body: unknown) => ({
      customRequest(command: string, args?: unknown) {
        sent.push([command, args]);
        return Promise.resolve(body);
      },
    });
    const ok = await sendRequest(session({ runId: 'f', forkRequestId: 'fr' }), forkRequest, { checkpointId: 'c' });
    assert.deepEqual(ok, { runId: 'f', forkRequestId: 'fr' });
    assert.deepEqual(sent[0], ['fork', { checkpointId: 'c' }]);
    await assert.rejects(
      sendRequest(session({ runId: 1 }), forkRequest, {}),
      (e: unknown) => isOcdbError(e, 'InvalidInput') && /fork response: runId/.test(e.message),
    );
  });

  it('parseEvent reads runsChanged and ignores other events or bodies of another shape', () => {
    const body = { runIds: ['f'], parentRunId: 'p' };
    assert.deepEqual(parseEvent(runsChangedEvent, { event: 'runsChanged', body }), body);
    assert.equal(parseEvent(runsChangedEvent, { event: 'output', body }), undefined);
    assert.equal(parseEvent(runsChangedEvent, { event: 'runsChanged', body: { runIds: 'f' } }), undefined);
  });

  it('src/debug and src/extension name the custom requests and events only through protocol.ts', () => {
    const files = ['src/debug', 'src/extension'].flatMap((dir) =>
      fs.readdirSync(dir).map((name) => path.join(dir, name)),
    );
    for (const file of files.filter((f) => f.endsWith('.ts') && !f.endsWith(path.join('debug', 'protocol.ts')))) {
      const text = fs.readFileSync(file, 'utf8');
      assert.doesNotMatch(text, /customRequest\(\s*['"`](fork|stagedContextPatch)['"`]/, `${file} sends a bare name`);
      assert.doesNotMatch(text, /['"]runsChanged['"]/, `${file} names runsChanged by a bare string`);
      if (file.startsWith('src/debug')) {
        // (the webview's own `fork` message is another protocol: only the adapter dispatches DAP commands)
        assert.doesNotMatch(text, /case ['"`](fork|stagedContextPatch)['"`]/, `${file} dispatches on a bare name`);
      }
    }
  });
});

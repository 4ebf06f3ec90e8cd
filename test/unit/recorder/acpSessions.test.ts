/**
 * AcpSessions, the recording side of `ocdb acp`, fed JSON-RPC lines directly: a message it cannot read is passed
 * on and reported with where it was (side, line, method, field); a tool call's kind decides its side effect.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toolOutcomeOf } from '../../../src/model';
import { openRecorder } from '../../../src/recorder';
import { AcpSessions, levelOfToolKind } from '../../../src/recorder/acpSessions';
import { tmpStore } from '../../helpers/tmp';

const line = (o: unknown) => JSON.stringify(o);

describe('AcpSessions', () => {
  it('reports an unreadable message with its place and keeps recording the session', () => {
    const store = tmpStore();
    const recorder = openRecorder({ runStore: store, heartbeatMs: 0 });
    const warnings: string[] = [];
    const sessions = new AcpSessions(recorder, { agentId: 'agent-x', onWarning: (m) => warnings.push(m) });
    let n = 0;
    const editor = (o: unknown) => sessions.observe('editor', line(o), ++n);
    const agent = (o: unknown) => sessions.observe('agent', line(o), ++n);
    editor({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/work/shop', mcpServers: [] } });
    agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's-1' } });
    editor({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId: 's-1', prompt: [{ type: 'text', text: 'run the tests' }] },
    });
    sessions.observe('agent', '{not json', ++n);
    agent({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's-1', update: { sessionUpdate: 'tool_call', title: 'Run tests' } },
    });
    agent({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 's-1',
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: 't1',
          title: 'npm test',
          kind: 'execute',
          rawInput: { command: 'npm test' },
        },
      },
    });
    agent({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 's-1',
        update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'failed', rawOutput: { exitCode: 1 } },
      },
    });
    agent({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } });
    sessions.close();
    recorder.close();
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(warnings[0] as string, /^agent line 4: not JSON/);
    assert.match(
      warnings[1] as string,
      /^agent line 5 \(session\/update\) update: toolCallId: .*passed on, not recorded$/,
    );
    const [summary] = store.listRuns().runs;
    assert.ok(summary);
    assert.equal(summary.agentId, 'agent-x');
    const run = store.exportRun(summary.runId);
    assert.equal(run.checkpoints[0]?.runtimeContext.project.projectId, 'shop');
    assert.deepEqual(
      run.toolLedger.map((t) => [t.toolName, t.sideEffectLevel, t.replayPolicy, toolOutcomeOf(t)]),
      [['npm test', 'external_irreversible', 'forbid_replay', 'error']],
    );
  });

  it('maps ACP tool kinds to side-effect levels', () => {
    assert.deepEqual(
      ['read', 'search', 'fetch', 'edit', 'delete', 'move', 'execute', 'think', 'other', undefined].map(
        levelOfToolKind,
      ),
      [
        'read_only',
        'read_only',
        'expensive_read',
        'write',
        'write',
        'write',
        'external_irreversible',
        'none',
        undefined,
        undefined,
      ],
    );
  });
});

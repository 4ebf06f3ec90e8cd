/**
 * `ocdb mcp` (the built bundle, a real process over stdio) through a client we did not write: the MCP Inspector's
 * CLI mode (`mcp-inspector --cli`, the devDependency @modelcontextprotocol/inspector). It lists the tools — with
 * its schema portability check on, which fails on a schema some model providers reject — and calls each tool, the
 * resource and the prompt on the demo store. The Inspector keeps its catalog and secrets under a HOME of the test.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { writeDemoStore } from '../../src/demo';
import { openRunStore } from '../../src/store';
import { tmpDir } from '../helpers/tmp';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'cli.js');
const INSPECTOR = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);
const dir = tmpDir('ocdb-mcp-inspector-');
const storePath = join(dir, 'runs.db');
const home = join(dir, 'home');

/** Runs the Inspector's CLI against `ocdb mcp` on the demo store; its stdout parsed as JSON. */
function inspector(
  args: string[],
  strict = false,
): { status: number | null; json: Record<string, unknown>; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [INSPECTOR, '--cli', ...(strict ? ['--strict'] : []), process.execPath, CLI, 'mcp', '--store', storePath, ...args],
    {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
    },
  );
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    assert.fail(
      `the Inspector printed no JSON (exit ${r.status}): ${r.stdout.slice(0, 500)} ${r.stderr.slice(0, 1500)}`,
    );
  }
  return { status: r.status, json, stderr: r.stderr };
}

function toolText(json: Record<string, unknown>): { isError: boolean; body: Record<string, unknown> } {
  const content = json.content as { type: string; text: string }[];
  return { isError: json.isError === true, body: JSON.parse(content[0]?.text ?? '{}') as Record<string, unknown> };
}

describe('ocdb mcp through the MCP Inspector (CLI mode)', () => {
  before(() => {
    assert.ok(existsSync(CLI), 'dist/cli.js: run npm run build first');
    assert.ok(existsSync(INSPECTOR), 'the MCP Inspector: npm install (devDependency @modelcontextprotocol/inspector)');
    mkdirSync(home, { recursive: true });
    const store = openRunStore(storePath);
    writeDemoStore(store);
    store.close();
  });

  it('lists the tools, whose schemas pass its portability check', () => {
    const r = inspector(['--method', 'tools/list'], true);
    assert.equal(r.status, 0, r.stderr);
    const tools = r.json.tools as { name: string; inputSchema: { type: string } }[];
    assert.equal(tools.length, 11);
    assert.ok(tools.every((t) => t.inputSchema.type === 'object'));
    assert.doesNotMatch(r.stderr, /Warning: tool/);
  });

  // one call of each tool, as a person would type it into the Inspector (key=value pairs)
  const CALLS: [string, string[], (body: Record<string, unknown>) => void][] = [
    [
      'find_runs',
      ['status=failed'],
      (b) => assert.equal((b.runs as { runId: string }[])[0]?.runId, 'demo-support-escalation'),
    ],
    [
      'run_summary',
      ['runId=demo-support-escalation'],
      (b) => assert.equal((b.failure as { at: { toolName: string } }).at.toolName, 'escalate_to_human'),
    ],
    [
      'read_checkpoints',
      ['runId=demo-support-escalation', 'offset=15', 'limit=1', 'detail=state'],
      (b) => assert.equal((b.checkpoints as { index: number }[])[0]?.index, 15),
    ],
    [
      'search_run',
      ['runId=demo-support-escalation', 'text=HTTP 503'],
      (b) => assert.ok((b.hits as unknown[]).length >= 2),
    ],
    [
      'tool_calls',
      ['runId=demo-support-escalation', 'outcome=error'],
      (b) => assert.equal((b.calls as unknown[]).length, 2),
    ],
    [
      'compare_runs',
      ['leftRunId=demo-support-refund', 'rightRunId=demo-support-refund-auditor'],
      (b) => assert.equal(b.relation, 'fork'),
    ],
    [
      'run_timeline',
      ['runId=demo-support-refund'],
      (b) => {
        const runs = b.runs as { runId: string; kind: string }[];
        assert.equal(runs[0]?.runId, 'demo-support-refund');
        assert.ok(runs.some((r) => r.runId === 'demo-support-refund-auditor' && r.kind === 'fork'));
      },
    ],
    [
      'plan_fork',
      ['runId=demo-support-refund', 'checkpoint=0', 'contextPatch={"user":{"roleId":"auditor"}}'],
      (b) => assert.equal(b.canFork, false),
    ],
    [
      'fork_run',
      [
        'runId=demo-support-refund',
        'checkpoint=0',
        'contextPatch={"user":{"roleId":"auditor"}}',
        'toolPolicy={"*":"reuse_result"}',
      ],
      (b) => {
        assert.match(b.status as string, /^diverged at step \d+ · system prompt$/);
        assert.deepEqual((b.toolCalls as { executed: string[] }).executed, []);
      },
    ],
    [
      'what_if',
      [
        'runIds=["demo-support-refund"]',
        'at={"step":7}',
        'contextPatch={"user":{"roleId":"auditor"}}',
        'toolPolicy={"*":"reuse_result"}',
      ],
      (b) => {
        const [r] = b.results as { divergedAtStep: number; executed: string[] }[];
        assert.equal(r?.divergedAtStep, 7);
        assert.deepEqual(r?.executed, []);
        assert.equal((b.certificate as { clean: boolean }).clean, true);
      },
    ],
    [
      'import_trace',
      [
        `path=${join(ROOT, 'test/fixtures/importers/codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl')}`,
      ],
      (b) => assert.equal(b.imported, 1),
    ],
  ];

  for (const [name, args, check] of CALLS) {
    it(`calls ${name}`, () => {
      const r = inspector(['--method', 'tools/call', '--tool-name', name, '--tool-arg', ...args]);
      assert.equal(r.status, 0, r.stderr);
      const { isError, body } = toolText(r.json);
      assert.equal(isError, false, JSON.stringify(body));
      check(body);
    });
  }

  it('gets a tool error that says what to do for an unknown run', () => {
    const r = inspector(['--method', 'tools/call', '--tool-name', 'run_summary', '--tool-arg', 'runId=nope']);
    const { isError, body } = toolText(r.json);
    assert.equal(isError, true);
    assert.match((body.error as { next: string }).next, /find_runs/);
  });

  it('reads a run resource and the failure prompt', () => {
    const run = inspector(['--method', 'resources/read', '--uri', 'ocdb://run/demo-support-escalation']);
    assert.equal(run.status, 0, run.stderr);
    const text = (run.json.contents as { text: string }[])[0]?.text ?? '';
    assert.match(text, /escalate_to_human/);
    const prompt = inspector([
      '--method',
      'prompts/get',
      '--prompt-name',
      'find_why_run_failed',
      '--prompt-args',
      'runId=demo-support-escalation',
    ]);
    assert.equal(prompt.status, 0, prompt.stderr);
    assert.match(JSON.stringify(prompt.json), /demo-support-escalation/);
  });
});

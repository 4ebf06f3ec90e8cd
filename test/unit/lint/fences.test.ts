/**
 * The layer fences of eslint.config.mjs, through ESLint's own API with the
 * repository's config: an import up a layer (or sideways where forbidden) in a
 * file of src/ is a lint error naming the rule; a legal import is not; the
 * type-aware rules (floating promises, exhaustive switches) are on. The text
 * is linted under the path of an existing file (lintText), so nothing is
 * written into the tree and the type-aware parser knows the file.
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = resolve(__dirname, '../../..');
/** The repository's config as `npm run lint` uses it. */
const eslint = new ESLint({ cwd: ROOT });
/**
 * The same config without type information, for the fences: no-restricted-imports does not need types, and
 * without them a lint takes milliseconds instead of a type-checked program per text.
 */
const untyped = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });
const RESTRICTED = '@typescript-eslint/no-restricted-imports';

async function lint(filePath: string, text: string, linter = eslint): Promise<Linter.LintMessage[]> {
  const [result] = await linter.lintText(text, { filePath: join(ROOT, filePath) });
  assert.ok(result, `no lint result for ${filePath}`);
  return result.messages;
}

/** Lints `import '<specifier>';` as the file `from` and returns the restricted-import messages. */
async function fenceMessages(from: string, specifier: string): Promise<string[]> {
  const messages = await lint(from, `import '${specifier}';\n`, untyped);
  const other = messages.filter((m) => m.ruleId !== RESTRICTED);
  assert.deepEqual(other, [], `unexpected messages for import '${specifier}' in ${from}`);
  return messages.map((m) => m.message);
}

// [the file the import is written in, the import, a part of the message]
const FORBIDDEN: [string, string, string][] = [
  ['src/model/parse.ts', '../store', 'src/model is the bottom layer: it imports nothing of ours'],
  ['src/model/parse.ts', '../store/runStore', 'src/model is the bottom layer'],
  ['src/model/parse.ts', '../../src/writer', 'src/model is the bottom layer'],
  ['src/model/parse.ts', 'node:fs', 'src/model is pure schemas and types'],
  [
    'src/store/runStore.ts',
    '../recorder',
    'src/store is the RunStore contract and SQLite: it must not import src/recorder',
  ],
  ['src/store/runStore.ts', '../writer/runWriter', 'it must not import src/writer'],
  ['src/writer/runWriter.ts', '../fork/forkService', 'src/writer is the one write path: it must not import src/fork'],
  ['src/fork/forkService.ts', '../recorder', 'src/fork is the fork engine: it must not import src/recorder'],
  ['src/fork/forkService.ts', '../replay/runView', 'it must not import src/replay'],
  ['src/replay/evaluate.ts', '../debug/dapErrors', 'src/replay is read-only time travel: it must not import src/debug'],
  [
    'src/replay/evaluate.ts',
    '../extension/ids',
    'src/replay is read-only time travel: it must not import src/extension',
  ],
  ['src/replay/evaluate.ts', '../writer', 'src/replay is read-only time travel: it must not import src/writer'],
  ['src/replay/evaluate.ts', '../fork/forkService', 'src/replay is read-only time travel: it must not import src/fork'],
  ['src/replay/evaluate.ts', './../recorder/inputs', 'it must not import src/recorder'],
  ['src/recorder/recorder.ts', '../replay/runView', 'src/recorder is the recording SDK: it must not import src/replay'],
  [
    'src/importers/importFile.ts',
    '../fork/runner',
    'src/importers turns foreign logs into runs: it must not import src/fork',
  ],
  ['src/importers/openai/chatMessages.ts', '../../recorder', 'it must not import src/recorder'],
  ['src/server/routes.ts', '../recorder', 'of src/recorder it may import only recorder/inputs.ts'],
  ['src/server/routes.ts', '../recorder/runRecorder', 'of src/recorder it may import only recorder/inputs.ts'],
  ['src/server/routes.ts', '../debug/protocol', 'src/server is the HTTP API: it must not import src/debug'],
  [
    'src/demo/index.ts',
    '../server/httpServer',
    'src/demo records the demo runs through the SDK: it must not import src/server',
  ],
  ['src/debug/frames.ts', '../extension/ids', 'src/debug is the DAP adapter: it must not import src/extension'],
  ['src/debug/frames.ts', '../cli/main', 'it must not import src/cli'],
  ['src/debug/frames.ts', '../server/routes', 'it must not import src/server'],
  [
    'src/cli/commands/showCommand.ts',
    '../../extension/ids',
    'src/cli is the ocdb command line: it must not import src/extension',
  ],
  ['src/cli/main.ts', '../webview/protocol', 'it must not import src/webview'],
  [
    'src/mcp/mcpServer.ts',
    '../extension/ids',
    'src/mcp is the MCP server for coding agents: it must not import src/extension',
  ],
  [
    'src/mcp/mcpServer.ts',
    '../cli/cliCommand',
    'src/mcp is the MCP server for coding agents: it must not import src/cli',
  ],
  ['src/fork/forkService.ts', '../mcp/mcpServer', 'src/fork is the fork engine: it must not import src/mcp'],
  [
    'src/mcp/mcpServer.ts',
    '../debug/replayController',
    'src/mcp is the MCP server for coding agents: it must not import src/debug',
  ],
  ['src/extension/ids.ts', '../cli/main', 'src/extension is the VS Code wiring: it must not import src/cli'],
  ['src/extension/ids.ts', '../webview/main', 'of src/webview it may import only webview/protocol.ts'],
  ['src/webview/view.ts', '../model', 'src/webview is browser page code'],
  ['src/webview/view.ts', '../model/canonicalJson', 'src/webview is browser page code'],
  ['src/webview/view.ts', '../store', 'src/webview is browser page code'],
  ['src/webview/view.ts', 'node:fs', 'src/webview is browser page code'],
  ['src/replay/evaluate.ts', 'vscode', 'Only src/extension may import vscode as a value'],
  ['src/server/routes.ts', 'better-sqlite3', 'Only src/store may import better-sqlite3'],
  ['src/fork/forkService.ts', 'node:sqlite', 'Only src/store may import node:sqlite'],
  ['src/cli/main.ts', 'pg', 'Only src/store may import pg'],
];

// [the file, imports that the layer picture allows]
const ALLOWED: [string, string[]][] = [
  ['src/model/parse.ts', ['./errors', 'zod', 'node:crypto']],
  ['src/store/runStore.ts', ['../model', './sqlDriver', 'better-sqlite3', 'node:sqlite', 'pg', 'node:fs']],
  ['src/writer/runWriter.ts', ['../model', '../store']],
  ['src/fork/forkService.ts', ['../model', '../store', '../writer', 'node:child_process']],
  ['src/replay/evaluate.ts', ['../model', '../store', '../store/runStore', './transcript']],
  ['src/recorder/recorder.ts', ['../model', '../store', '../writer', '../fork/agentProgramMode']],
  ['src/importers/openai/chatMessages.ts', ['../../model', '../../store', '../../writer', '../types']],
  ['src/server/routes.ts', ['../model', '../store', '../writer', '../fork/forkService', '../recorder/inputs']],
  ['src/demo/index.ts', ['../model', '../store', '../recorder', '../fork/promptRender']],
  ['src/debug/frames.ts', ['../model', '../store', '../replay/runView', '../fork/forkService', '@vscode/debugadapter']],
  ['src/cli/commands/showCommand.ts', ['../../debug/agentReplaySession', '../../server/httpServer', '../../demo']],
  ['src/cli/commands/mcpCommand.ts', ['../../mcp/mcpServer']],
  ['src/mcp/mcpServer.ts', ['../model', '../store', '../fork/forkService', '../replay/runComparison', '../importers']],
  ['src/extension/ids.ts', ['vscode', '../debug/protocol', '../webview/protocol', '../importers', '../demo']],
  [
    'src/webview/view.ts',
    [
      './dom',
      'zod',
      '../model/context',
      '../model/fork',
      '../model/toolCall',
      '@vscode-elements/elements/dist/vscode-button/index.js',
    ],
  ],
];

describe('layer fences (eslint.config.mjs)', () => {
  for (const [from, specifier, expected] of FORBIDDEN) {
    it(`${from}: import '${specifier}' fails lint`, async () => {
      const messages = await fenceMessages(from, specifier);
      assert.equal(messages.length, 1, `expected one restricted-import error, got ${JSON.stringify(messages)}`);
      assert.ok(messages[0]?.includes(expected), `message ${JSON.stringify(messages[0])} does not say "${expected}"`);
    });
  }

  for (const [from, specifiers] of ALLOWED) {
    it(`${from}: ${specifiers.join(', ')} pass`, async () => {
      for (const specifier of specifiers) assert.deepEqual(await fenceMessages(from, specifier), [], specifier);
    });
  }

  it('a type import of vscode is allowed outside src/extension', async () => {
    const messages = await lint(
      'src/debug/frames.ts',
      "import type { Uri } from 'vscode';\nexport type U = Uri;\n",
      untyped,
    );
    assert.deepEqual(messages, []);
  });

  it('tests are not fenced', async () => {
    const messages = await lint(
      'test/unit/lint/fences.test.ts',
      "import '../../../src/extension/ids';\nimport 'vscode';\n",
    );
    assert.deepEqual(messages, []);
  });

  it('every folder of src/ has a fence', async () => {
    const folders = readdirSync(join(ROOT, 'src')).filter((f) => statSync(join(ROOT, 'src', f)).isDirectory());
    assert.ok(folders.length >= 13, folders.join(', '));
    for (const folder of folders) {
      const config = (await eslint.calculateConfigForFile(join(ROOT, 'src', folder, 'x.ts'))) as Linter.Config;
      const rule = config.rules?.[RESTRICTED];
      const options = Array.isArray(rule) ? (rule[1] as { patterns?: unknown[] } | undefined) : undefined;
      assert.ok((options?.patterns?.length ?? 0) > 0, `src/${folder} has no layer fence in eslint.config.mjs`);
    }
  });
});

describe('type-aware rules', () => {
  it('the full config (as npm run lint) fences too: ../store in src/model, ../debug in src/replay', async () => {
    const model = await lint('src/model/parse.ts', "import '../store';\n");
    assert.deepEqual(
      model.map((m) => m.ruleId),
      [RESTRICTED],
    );
    const replay = await lint('src/replay/evaluate.ts', "import '../debug/dapErrors';\n");
    assert.match(replay[0]?.message ?? '', /src\/replay is read-only time travel: it must not import src\/debug/);
  });

  const SWITCHES = `type Kind = 'a' | 'b' | 'c';
export function missing(k: Kind): number {
  switch (k) {
    case 'a':
      return 1;
    case 'b':
      return 2;
  }
  return 0;
}
export function checked(k: Kind): number {
  switch (k) {
    case 'a':
      return 1;
    case 'b':
    case 'c':
      return 2;
    default: {
      const unreachable: never = k;
      return unreachable;
    }
  }
}
export function plain(s: string): number {
  switch (s) {
    case 'a':
      return 1;
  }
  return 0;
}
`;

  it('a switch over a union with a missing case, or over a string without default, is an error; a never check is not', async () => {
    const messages = await lint('src/model/parse.ts', SWITCHES);
    const found = messages.map((m) => `${m.line}:${m.ruleId}`);
    assert.deepEqual(found, [
      '3:@typescript-eslint/switch-exhaustiveness-check',
      '25:@typescript-eslint/switch-exhaustiveness-check',
    ]);
  });

  it('a floating promise is an error; void, await and node:test calls are not', async () => {
    const text = `import { test } from 'node:test';
async function later(): Promise<number> {
  return 1;
}
export async function caller(): Promise<void> {
  later();
  void later();
  await later();
}
test('x', async () => {
  await later();
});
`;
    const messages = await lint('test/unit/lint/fences.test.ts', text);
    assert.deepEqual(
      messages.map((m) => `${m.line}:${m.ruleId}`),
      ['6:@typescript-eslint/no-floating-promises'],
    );
  });
});

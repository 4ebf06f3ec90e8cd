// ESLint: typescript-eslint recommended, a few type-aware rules (no floating
// promises, exhaustive switches), and the fences of src/README.md: every
// folder of src/ may import only the folders below it, so an import up a layer
// (or sideways where that is forbidden) fails `npm run lint`. Only
// src/extension may import `vscode` as a value; only src/store may import
// better-sqlite3 / node:sqlite / pg. Tests (test/**) are not fenced.
// test/unit/lint/fences.test.ts checks that the fences catch what they claim;
// test/unit/lint/layerTable.test.ts that LAYERS is the Layers table of src/README.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The layers, bottom to top: each folder with what it may import of ours and why. */
export const LAYERS = {
  model: { role: 'src/model is the bottom layer: it imports nothing of ours', may: [] },
  store: { role: 'src/store is the RunStore contract and SQLite', may: ['model'] },
  writer: { role: 'src/writer is the one write path', may: ['model', 'store'] },
  team: { role: 'src/team reaches a team store asynchronously', may: ['model', 'store'] },
  fork: { role: 'src/fork is the fork engine', may: ['model', 'store', 'writer'] },
  replay: { role: 'src/replay is read-only time travel', may: ['model', 'store'] },
  recorder: { role: 'src/recorder is the recording SDK', may: ['model', 'store', 'writer', 'fork', 'team'] },
  importers: { role: 'src/importers turns foreign logs into runs', may: ['model', 'store', 'writer'] },
  server: {
    role: 'src/server is the HTTP API',
    may: ['model', 'store', 'writer', 'fork', 'importers'],
    // The SDK's input schemas are the bodies of the ingest routes; the rest of the SDK is not the server's.
    only: { recorder: ['inputs'] },
  },
  demo: { role: 'src/demo records the demo runs through the SDK', may: ['model', 'store', 'recorder', 'fork'] },
  debug: { role: 'src/debug is the DAP adapter', may: ['model', 'store', 'writer', 'fork', 'replay'] },
  cohort: { role: 'src/cohort is what-if across runs', may: ['model', 'store', 'writer', 'fork', 'replay'] },
  mcp: {
    role: 'src/mcp is the MCP server for coding agents',
    may: ['model', 'store', 'writer', 'fork', 'replay', 'recorder', 'importers', 'server', 'demo', 'cohort', 'team'],
  },
  cli: {
    role: 'src/cli is the ocdb command line',
    may: [
      'model',
      'store',
      'writer',
      'fork',
      'replay',
      'recorder',
      'importers',
      'server',
      'demo',
      'debug',
      'mcp',
      'cohort',
      'team',
    ],
  },
  extension: {
    role: 'src/extension is the VS Code wiring',
    may: [
      'model',
      'store',
      'writer',
      'fork',
      'replay',
      'recorder',
      'importers',
      'server',
      'demo',
      'debug',
      'cohort',
      'team',
    ],
    // The typed webview protocol is shared by both ends; the rest of src/webview is browser page code.
    only: { webview: ['protocol', 'cohortProtocol'] },
  },
  // src/webview is fenced by WEBVIEW below: it runs in the browser page.
  webview: { role: 'src/webview is browser page code', may: ['model'] },
};
const FOLDERS = Object.keys(LAYERS);

/** A relative specifier that leaves the importing file's folder for src/<folder>: '../store', '../../debug/x', './../fork'. */
const up = (folder, rest = '(?:/.*)?') => `^(?:\\./)*(?:\\.\\./)+(?:src/)?${folder}${rest}$`;

const noVscode = {
  name: 'vscode',
  message: 'Only src/extension may import vscode as a value (use `import type` elsewhere).',
  allowTypeImports: true,
};
const noSqlite = ['better-sqlite3', 'node:sqlite', 'pg'].map((name) => ({
  name,
  message: `Only src/store may import ${name}.`,
}));

/** The import patterns that fence src/<folder>. */
function fencesOf(folder) {
  const { role, may, only = {} } = LAYERS[folder];
  const allowed = may.length === 0 ? 'nothing of ours' : may.map((f) => `src/${f}`).join(', ');
  const patterns = [];
  for (const other of FOLDERS) {
    if (other === folder || may.includes(other)) continue;
    if (only[other]) {
      const files = only[other].join('|');
      patterns.push({
        regex: `${up(other, `(?:/(?!(?:${files})$).*)?`)}`,
        message: `${role}: of src/${other} it may import only ${only[other].map((f) => `${other}/${f}.ts`).join(', ')}.`,
      });
      continue;
    }
    patterns.push({
      regex: up(other),
      message:
        folder === 'model'
          ? `${role} (it must not import src/${other}).`
          : `${role}: it must not import src/${other} (it may import ${allowed}).`,
    });
  }
  if (folder === 'model') {
    patterns.push({
      regex: '^(?![./])(?!zod(?:/|$))(?!node:(?:crypto|util|buffer)$)',
      message:
        'src/model is pure schemas and types: of packages it imports only zod and pure node built-ins (node:crypto, node:util, node:buffer).',
    });
  }
  return patterns;
}

/**
 * src/webview runs in the browser page: it imports only zod, @vscode-elements/*, d3's scale, selection and zoom, its own folder and the
 * browser-safe files of src/model (one file at a time: src/model/index.ts re-exports canonicalJson.ts, which
 * needs node:crypto). The browser bundle in esbuild.mjs fails if a model file it pulls in imports node:*.
 */
const WEBVIEW = [
  {
    regex:
      '^(?!\\./(?!\\.\\.))(?!zod(?:/|$))(?!@vscode-elements/)(?!d3-(?:scale|selection|zoom)$)(?!\\.\\./model/(?!index$|canonicalJson$)[^/]+$)',
    message:
      'src/webview is browser page code: it imports only zod, @vscode-elements/*, d3-scale / d3-selection / d3-zoom (the Timeline), ./ files and single browser-safe files of src/model (not ../model or ../model/canonicalJson).',
  },
];

/** The fence config of one folder of src/. */
function fence(folder) {
  const paths = [...(folder === 'extension' ? [] : [noVscode]), ...(folder === 'store' ? [] : noSqlite)];
  const patterns = folder === 'webview' ? WEBVIEW : fencesOf(folder);
  return {
    files: [`src/${folder}/**/*.ts`],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }] },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.cache/**', 'media/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode, ...noSqlite] }],
      // node:test's test() / describe() hand their promise to the runner, which reports failures; a subtest
      // (t.test) is not on this list: it must be awaited.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union names every member, or ends in a `default` that is either deliberate ("the rest")
      // or the `const unreachable: never = x` check; a switch over a plain string or number needs a `default`.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        {
          allowDefaultCaseForExhaustiveSwitch: true,
          considerDefaultExhaustiveForUnions: true,
          requireDefaultForNonUnion: true,
        },
      ],
    },
  },
  ...FOLDERS.map(fence),
  {
    // one responsibility per file: a source file that grows past this is split, not stretched
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
  {
    // CommonJS scripts run as real processes by tests (test/dap/support/orderAgent.cjs: an agent on the SDK bundle)
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
      },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
);

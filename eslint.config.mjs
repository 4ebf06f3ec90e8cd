// ESLint: typescript-eslint recommended plus the layering rules of
// CONVENTIONS.md (no `vscode` value import outside src/extension, no
// better-sqlite3 outside src/store).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noVscode = {
  name: 'vscode',
  message: 'Only src/extension may import vscode as a value (use `import type` elsewhere).',
  allowTypeImports: true,
};
const noSqlite = {
  name: 'better-sqlite3',
  message: 'Only src/store may import better-sqlite3.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.cache/**', 'media/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode, noSqlite] }],
    },
  },
  {
    files: ['src/extension/**/*.ts', 'test/vscode/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [noSqlite] }] },
  },
  {
    files: ['src/store/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode] }] },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);

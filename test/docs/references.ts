/**
 * The generated references of media/docs/reference/: each file is written from the table the code itself reads,
 * so a command, a setting, a route or a format cannot be added without its reference changing too.
 *   cli.md       — src/cli/commands.ts (each command's `summary` and `help`, as `ocdb <command> --help` prints it)
 *   settings.md  — package.json `contributes.configuration` (built by src/extension/contributes.ts)
 *   http.md      — src/server/routes.ts `buildRoutes` (each route's `path` and `summary`)
 *   formats.md   — src/importers/formats.ts `FORMAT_SPECS` (in sniffing order)
 * `npm run docs` writes them; test/unit/docs/references.test.ts fails when one drifts from what this renders.
 * Output goes through Prettier with the repository's config, so `npm run format:check` agrees with it.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as prettier from 'prettier';
import { EXIT } from '../../src/cli/cliCommand';
import { COMMANDS } from '../../src/cli/commands';
import { FORMAT_SPECS } from '../../src/importers/formats';
import { buildRoutes } from '../../src/server/routes';
import type { RunStore } from '../../src/store';

const ROOT = resolve(__dirname, '../..');
export const REFERENCE_DIR = 'media/docs/reference';
const REGENERATE = 'npm run docs';

const header = (title: string, source: string) =>
  [
    `# ${title}`,
    '',
    `<!-- Generated from ${source} by test/docs/references.ts: do not edit by hand, run \`${REGENERATE}\`. -->`,
    '',
  ].join('\n');

/** A summary as a sentence: capitalised, with its full stop. */
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

/** A table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

async function cliReference(): Promise<string> {
  const commands = await Promise.all(COMMANDS.map((c) => c.load()));
  const exitCodes = Object.entries(EXIT)
    .map(([name, code]) => `\`${code}\` ${name}`)
    .join(', ');
  return [
    header('The `ocdb` command line', 'src/cli/commands.ts'),
    'Every command takes `--store <path|url>` (a SQLite file, or `postgres://user@host/db`; default: `$OCDB_STORE`,',
    'else `./.ocdb/runs.db`) and `--help`, which prints the text below.',
    `Exit codes: ${exitCodes}.`,
    '',
    '| command | what it does |',
    '| --- | --- |',
    ...commands.map((c) => `| [\`ocdb ${c.name}\`](#ocdb-${c.name}) | ${cell(c.summary)} |`),
    '',
    ...commands.flatMap((c) => [`## ocdb ${c.name}`, '', `${sentence(c.summary)}`, '', '```text', c.help, '```', '']),
  ].join('\n');
}

interface SettingSchema {
  type?: string;
  default?: unknown;
  scope?: string;
  description?: string;
  markdownDescription?: string;
  enum?: string[];
  enumDescriptions?: string[];
}

function settingsReference(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, SettingSchema> } };
  };
  const sections = Object.entries(pkg.contributes.configuration.properties).flatMap(([key, s]) => {
    const facts = [
      `- Type: \`${s.type ?? 'any'}\``,
      `- Default: \`${JSON.stringify(s.default)}\``,
      ...(s.scope ? [`- Scope: \`${s.scope}\`${s.scope === 'machine' ? ' (user settings only)' : ''}`] : []),
    ];
    const values = (s.enum ?? []).map((v, i) => {
      const description = s.enumDescriptions?.[i];
      return `  - \`${v}\`${description ? `: ${description}` : ''}`;
    });
    return [
      `## \`${key}\``,
      '',
      s.markdownDescription ?? s.description ?? '',
      '',
      ...facts,
      ...(values.length > 0 ? ['- Values:', ...values] : []),
      '',
    ];
  });
  return [
    header('Settings', 'package.json `contributes.configuration` (src/extension/contributes.ts)'),
    'The settings of the extension, as **Settings** (`Ctrl+,`) shows them under _Agent Time Travel_.',
    '',
    ...sections,
  ].join('\n');
}

/** A store that fails on any use: the route table is read, no route is called. */
const NO_STORE = new Proxy({} as RunStore, {
  get: (_target, key) => {
    throw new Error(`the reference generator reads the route table only (it touched store.${String(key)})`);
  },
});

function httpReference(): string {
  const routes = buildRoutes({ store: NO_STORE });
  return [
    header('The HTTP API', 'src/server/routes.ts'),
    '`ocdb serve` answers these routes on 127.0.0.1 (or another address over TLS). Every request needs',
    '`Authorization: Bearer <token>` (the token is in `server.json` beside the store); bodies are JSON; an error is',
    '`{ "error": { "code", "message", "path"? } }`, and a 400 names the offending field.',
    '',
    '| route | what it does |',
    '| --- | --- |',
    ...routes.map((r) => `| \`${r.method} ${r.path}\` | ${cell(r.summary)} |`),
    '',
  ].join('\n');
}

function formatsReference(): string {
  return [
    header('Import formats', 'src/importers/formats.ts'),
    '`ocdb import <file or folder>` (and **Import Run…**) recognises each file by its content, trying these formats in',
    'this order; `--format <name>` reads every file as one of them. A format that grows is a session log its agent',
    'appends to: importing it again continues the runs it imported before.',
    '',
    '| format | recognised by | grows |',
    '| --- | --- | --- |',
    ...FORMAT_SPECS.map((f) => `| \`${f.format}\` | ${cell(f.recognisedBy)} | ${f.grows ? 'yes' : 'no'} |`),
    '',
  ].join('\n');
}

/** Every generated file: its path under the repository and how it is rendered (before Prettier). */
export const REFERENCES: readonly { file: string; render: () => string | Promise<string> }[] = [
  { file: `${REFERENCE_DIR}/cli.md`, render: cliReference },
  { file: `${REFERENCE_DIR}/settings.md`, render: settingsReference },
  { file: `${REFERENCE_DIR}/http.md`, render: httpReference },
  { file: `${REFERENCE_DIR}/formats.md`, render: formatsReference },
];

/** A reference as it is written: rendered, then formatted as `npm run format` would. */
export async function renderReference(file: string, render: () => string | Promise<string>): Promise<string> {
  const path = join(ROOT, file);
  const options = (await prettier.resolveConfig(path)) ?? {};
  return prettier.format(await render(), { ...options, filepath: path });
}

export const REGENERATE_COMMAND = REGENERATE;

async function writeAll(): Promise<void> {
  mkdirSync(join(ROOT, REFERENCE_DIR), { recursive: true });
  for (const { file, render } of REFERENCES) {
    writeFileSync(join(ROOT, file), await renderReference(file, render));
    console.log(`wrote ${file}`);
  }
}

if (require.main === module) {
  writeAll().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}

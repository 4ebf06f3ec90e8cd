/**
 * package.json against its sources: `contributes` and `activationEvents` are
 * what src/extension/contributes.ts builds from ids.ts (regenerate with
 * `flock /tmp/npm.lock npx tsx src/extension/contributes.ts --write`), the
 * launch attributes match LaunchArgsSchema, and every file the manifest names
 * exists.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { z } from 'zod';
import { AttachArgsSchema, LaunchArgsSchema } from '../../../src/debug/launchArgs';
import {
  ACTIVATION_EVENTS,
  ATTACH_ATTRIBUTES,
  CAPABILITIES,
  LAUNCH_ATTRIBUTES,
  buildContributes,
} from '../../../src/extension/contributes';
import {
  ATTACH_CONFIG_NAME,
  CATEGORY,
  COMMANDS,
  DEBUG_TYPE,
  ITEM_CONTEXT,
  LAUNCH_CONFIG_NAME,
  SETTINGS,
  SETTINGS_SECTION,
  VIEWS,
} from '../../../src/extension/ids';

interface Manifest {
  activationEvents: string[];
  capabilities?: unknown;
  icon?: string;
  contributes: ReturnType<typeof buildContributes>;
}
const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as Manifest;
const REGEN = 'run `flock /tmp/npm.lock npx tsx src/extension/contributes.ts --write`';

test('package.json contributes is exactly what contributes.ts builds from ids.ts', () => {
  assert.deepEqual(
    manifest.contributes,
    JSON.parse(JSON.stringify(buildContributes())),
    `package.json drifted: ${REGEN}`,
  );
  assert.deepEqual(manifest.activationEvents, ACTIVATION_EVENTS, `activationEvents drifted: ${REGEN}`);
});

test('the launch attributes are the fields of LaunchArgsSchema, with the same types and required fields', () => {
  const schema = z.toJSONSchema(LaunchArgsSchema, { io: 'input' }) as {
    properties: Record<string, { type?: string; default?: unknown }>;
    required?: string[];
  };
  assert.deepEqual(Object.keys(LAUNCH_ATTRIBUTES).sort(), Object.keys(schema.properties).sort());
  for (const [key, attr] of Object.entries(LAUNCH_ATTRIBUTES)) {
    assert.equal(attr.type, schema.properties[key]?.type, `type of launch attribute ${key}`);
  }
  const launch = manifest.contributes.debuggers[0]?.configurationAttributes.launch;
  assert.deepEqual([...(launch?.required ?? [])].sort(), [...(schema.required ?? [])].sort());
  assert.equal(LAUNCH_ATTRIBUTES.stopOnEntry.default, LaunchArgsSchema.parse({ runId: 'x' }).stopOnEntry);
});

test('the attach attributes are the fields of AttachArgsSchema, with the same types and defaults', () => {
  const schema = z.toJSONSchema(AttachArgsSchema, { io: 'input' }) as {
    properties: Record<string, { type?: string; default?: unknown }>;
    required?: string[];
  };
  assert.deepEqual(Object.keys(ATTACH_ATTRIBUTES).sort(), Object.keys(schema.properties).sort());
  for (const [key, attr] of Object.entries(ATTACH_ATTRIBUTES)) {
    assert.equal(attr.type, schema.properties[key]?.type, `type of attach attribute ${key}`);
  }
  const attach = manifest.contributes.debuggers[0]?.configurationAttributes.attach;
  assert.ok(attach, 'package.json has configurationAttributes.attach');
  assert.deepEqual(schema.required ?? [], [], 'runId or agentId: neither alone is required');
  const parsed = AttachArgsSchema.parse({ agentId: 'support-bot' });
  assert.equal(ATTACH_ATTRIBUTES.stopOnEntry.default, parsed.stopOnEntry);
  assert.equal(ATTACH_ATTRIBUTES.stopBeforeModelCall.default, parsed.stopBeforeModelCall);
  assert.equal(AttachArgsSchema.safeParse({ store: 'x.db' }).success, false, 'an attach without runId or agentId');
});

test('the initial configuration is "Replay agent run" with the run picker, and it satisfies the schema once substituted', () => {
  const dbg = manifest.contributes.debuggers.find((d) => d.type === DEBUG_TYPE);
  assert.ok(dbg);
  const initial = dbg.initialConfigurations[0];
  assert.equal(initial?.name, LAUNCH_CONFIG_NAME);
  assert.equal(initial?.runId, '${command:agentTimeTravel.pickRun}');
  assert.ok(LaunchArgsSchema.safeParse({ ...initial, runId: 'demo-support-refund' }).success);
  assert.equal(LaunchArgsSchema.safeParse({ ...initial, runId: '' }).success, false, 'an empty run id is refused');
});

test('every command has the category and a codicon; item-only commands are hidden from the palette', () => {
  const hidden = new Set(manifest.contributes.menus.commandPalette.map((m) => m.command));
  for (const c of Object.values(COMMANDS)) {
    const contributed = manifest.contributes.commands.find((x) => x.command === c.id);
    assert.ok(contributed, `${c.id} is contributed`);
    assert.equal(contributed.category, CATEGORY);
    assert.match(contributed.icon, /^\$\([a-z-~]+\)$/);
    assert.equal(
      hidden.has(c.id),
      !c.palette,
      `${c.id} ${c.palette ? 'shows in' : 'is hidden from'} the command palette`,
    );
  }
  const callstack = manifest.contributes.menus['debug/callstack/context'];
  assert.ok(callstack.some((m) => m.command === COMMANDS.forkFromFrame.id && m.when.includes(DEBUG_TYPE)));
  // the launch configuration's pickers pick and do nothing else: from the palette they would only puzzle
  for (const picker of [COMMANDS.pickRun.id, COMMANDS.pickAgent.id]) {
    assert.ok(hidden.has(picker), `${picker} is hidden from the command palette`);
  }
});

test('every setting of ids.ts is contributed with a default', () => {
  const props = manifest.contributes.configuration.properties as Record<string, { default?: unknown }>;
  for (const key of Object.values(SETTINGS)) {
    assert.ok(`${SETTINGS_SECTION}.${key}` in props, `setting ${key}`);
    assert.notEqual(props[`${SETTINGS_SECTION}.${key}`]?.default, undefined);
  }
});

test('the icon, the grammar and the webview stylesheet the manifest and host name exist; the grammar is valid JSON', () => {
  for (const c of manifest.contributes.viewsContainers.activitybar) assert.ok(fs.existsSync(c.icon), c.icon);
  for (const g of manifest.contributes.grammars) {
    const grammar = JSON.parse(fs.readFileSync(g.path, 'utf8')) as { scopeName: string };
    assert.equal(grammar.scopeName, g.scopeName);
  }
  assert.ok(fs.existsSync('media/contextEditor.css'));
});

test('the Marketplace icon is a 128x128 PNG made from media/icon.svg', () => {
  assert.equal(manifest.icon, 'media/icon.png');
  const png = fs.readFileSync(manifest.icon);
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  // IHDR: width and height, big-endian, at bytes 16..23
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  assert.ok(fs.existsSync('media/icon.svg'), 'its source (npm run icon rasterises it)');
});

test("a workspace cannot choose where the user's key is sent: machine scope, restricted when untrusted", () => {
  assert.deepEqual(manifest.capabilities, JSON.parse(JSON.stringify(CAPABILITIES)), `capabilities drifted: ${REGEN}`);
  const props = manifest.contributes.configuration.properties as Record<string, { scope?: string }>;
  const restricted = CAPABILITIES.untrustedWorkspaces.restrictedConfigurations as readonly string[];
  for (const key of [SETTINGS.modelBaseUrl, SETTINGS.apiKeyEnvVar]) {
    const id = `${SETTINGS_SECTION}.${key}`;
    assert.ok(props[id]?.scope === 'machine' || props[id]?.scope === 'application', `${id} is machine-scoped`);
    assert.ok(restricted.includes(id), `${id} is restricted in untrusted workspaces`);
  }
});

test('live debugging: "Attach to agent run" is an initial configuration and a snippet; Attach shows on running runs only', () => {
  const dbg = manifest.contributes.debuggers.find((d) => d.type === DEBUG_TYPE);
  assert.ok(dbg);
  const attach = dbg.initialConfigurations.find((c) => c.request === 'attach');
  assert.equal(attach?.name, ATTACH_CONFIG_NAME);
  assert.equal((attach as { agentId?: string } | undefined)?.agentId, '${command:agentTimeTravel.pickAgent}');
  const snippets = dbg.configurationSnippets.filter((s) => s.body.request === 'attach');
  assert.deepEqual(
    snippets.map((s) => Object.keys(s.body).filter((k) => k === 'agentId' || k === 'runId')),
    [['agentId'], ['runId']],
    'one snippet waits for the next run of an agent, one attaches to a run by id',
  );
  const palette = new Set(manifest.contributes.menus.commandPalette.map((m) => m.command));
  assert.equal(palette.has(COMMANDS.debugNextRun.id), false, 'Debug Next Run of Agent… is in the command palette');
  assert.equal(COMMANDS.debugNextRun.title, 'Debug Next Run of Agent…');
  const inline = manifest.contributes.menus['view/item/context'].filter(
    (m) => m.command === COMMANDS.attachRun.id && m.group.startsWith('inline'),
  );
  assert.equal(inline.length, 1);
  // the when clause's regex, as VS Code evaluates it, against every context value a run can have
  const regex = /viewItem =~ \/(.+)\/$/.exec(inline[0]?.when ?? '')?.[1];
  assert.ok(regex, inline[0]?.when);
  const offered = Object.values(ITEM_CONTEXT).filter((v) => new RegExp(regex).test(v));
  assert.deepEqual(offered.sort(), [ITEM_CONTEXT.runningForkRun, ITEM_CONTEXT.runningRun].sort());
  // Compare with Parent stays on forks, running, diverged or not
  const compare = manifest.contributes.menus['view/item/context'].find(
    (m) => m.command === COMMANDS.compareWithParent.id,
  );
  const compareRegex = /viewItem =~ \/(.+)\/$/.exec(compare?.when ?? '')?.[1] ?? '';
  assert.deepEqual(
    Object.values(ITEM_CONTEXT)
      .filter((v) => new RegExp(compareRegex).test(v))
      .sort(),
    [ITEM_CONTEXT.divergedForkRun, ITEM_CONTEXT.forkRun, ITEM_CONTEXT.runningForkRun].sort(),
  );
  // a diverged fork keeps its ways on in its own menu, and only a diverged fork shows them
  for (const command of [COMMANDS.showPromptDifference, COMMANDS.continueRecorded, COMMANDS.continueReal]) {
    const item = manifest.contributes.menus['view/item/context'].filter((m) => m.command === command.id);
    assert.deepEqual(
      item.map((m) => m.when),
      [`view == ${VIEWS.runs} && viewItem == ${ITEM_CONTEXT.divergedForkRun}`],
    );
  }
});

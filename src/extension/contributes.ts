/**
 * The `contributes` and `activationEvents` parts of package.json, built from
 * ids.ts so the two cannot drift: test/unit/extension/manifest.test.ts fails
 * when package.json differs, and `npx tsx src/extension/contributes.ts --write`
 * rewrites them. Pure data; not bundled into the extension.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { MODEL_MODES } from '../model/fork';
import { DEFAULT_TRANSCRIPT_DETAIL, EXCERPT_LENGTHS, TRANSCRIPT_DETAILS } from '../replay/transcript';
import {
  CATEGORY,
  COMMANDS,
  CONTEXT_KEYS,
  ATTACH_CONFIG_NAME,
  DEBUG_TYPE,
  FILE_VARIABLE_CONTEXT,
  ITEM_CONTEXT,
  LAUNCH_CONFIG_NAME,
  MCP_PROVIDER,
  PICK_AGENT_VARIABLE,
  PICK_RUN_VARIABLE,
  SETTINGS,
  SETTINGS_SECTION,
  TRANSCRIPT_EXTENSION,
  TRANSCRIPT_LANGUAGE,
  VIEWS,
  VIEW_CONTAINER,
  type CommandKey,
} from './ids';

/** The launch attributes of `agent-replay` (checked against LaunchArgsSchema by a unit test). */
export const LAUNCH_ATTRIBUTES = {
  runId: {
    type: 'string',
    description: `Id of the run to replay. Use "${PICK_RUN_VARIABLE}" to pick one from the store when the session starts.`,
  },
  store: {
    type: 'string',
    description:
      'The run store: a SQLite file, or a PostgreSQL URL postgres://user@host:5432/db (no password here: PGPASSWORD, ~/.pgpass, or the command Set Store Password). Default: the agentTimeTravel.storePath setting, else OCDB_STORE, else .ocdb/runs.db in the workspace.',
  },
  stopOnEntry: {
    type: 'boolean',
    description: 'Pause on the first checkpoint (or on checkpointId) instead of running to the first breakpoint.',
    default: true,
  },
  checkpointId: {
    type: 'string',
    description: 'Start the replay at this checkpoint of the run instead of the first one.',
  },
  program: {
    type: 'string',
    description: 'The agent program that executes forks made during this session with its own tools (OCDB_FORK).',
  },
  transcriptDetail: {
    type: 'string',
    enum: [...TRANSCRIPT_DETAILS],
    enumDescriptions: TRANSCRIPT_DETAILS.map((d) => `Excerpts of ${EXCERPT_LENGTHS[d]} characters.`),
    default: DEFAULT_TRANSCRIPT_DETAIL,
    description: `How much of each message, argument and result a transcript line shows. Default: the ${SETTINGS_SECTION}.${SETTINGS.transcriptDetail} setting.`,
  },
} as const;

/** The attach attributes of `agent-replay` (checked against AttachArgsSchema by a unit test). */
export const ATTACH_ATTRIBUTES = {
  runId: {
    type: 'string',
    description:
      'Id of a run being recorded now to attach to (its agent stops at the breakpoints). Give runId or agentId.',
  },
  agentId: {
    type: 'string',
    description:
      'Attach to the next runs of this agent id (like "wait for process"): each run is a thread. Give runId or agentId.',
  },
  store: LAUNCH_ATTRIBUTES.store,
  stopOnEntry: {
    type: 'boolean',
    description: 'Stop each attached run at the first checkpoint boundary it reaches.',
    default: false,
  },
  stopBeforeModelCall: {
    type: 'boolean',
    description: 'Stop before every model call (the system prompt and messages to be sent can be edited there).',
    default: false,
  },
  program: LAUNCH_ATTRIBUTES.program,
  transcriptDetail: LAUNCH_ATTRIBUTES.transcriptDetail,
} as const;

const RUN_ITEM = `viewItem =~ /^${ITEM_CONTEXT.run}/`;
const CHECKPOINT_ITEM = `viewItem == ${ITEM_CONTEXT.checkpoint}`;
const SESSION_ITEM = `viewItem == ${ITEM_CONTEXT.session}`;
/** A fork, running or not (`agentRun.fork`, `agentRun.fork.running`). */
const FORK_ITEM = `viewItem =~ /^${ITEM_CONTEXT.forkRun.replace('.', '\\.')}/`;
/** A run being recorded now (`agentRun.running`, `agentRun.fork.running`): it offers Attach. */
const RUNNING_ITEM = `viewItem =~ /\\.running$/`;
const inRunsView = (when: string) => `view == ${VIEWS.runs} && ${when}`;
const DIVERGED_ITEM = `viewItem == ${ITEM_CONTEXT.divergedForkRun}`;

/**
 * "Attach to agent run" in a new launch.json: wait for the next run of an agent picked when the session starts
 * (`${command:agentTimeTravel.pickAgent}`: the agents of the store, or one typed in).
 */
export const ATTACH_INITIAL_CONFIGURATION = {
  type: DEBUG_TYPE,
  request: 'attach',
  name: ATTACH_CONFIG_NAME,
  agentId: PICK_AGENT_VARIABLE,
} as const;

/** The attach snippets of "Add Configuration…": the next run of an agent, or one run being recorded now. */
export const ATTACH_SNIPPETS = [
  {
    label: 'Agent Time Travel: Attach to agent run',
    description:
      'Wait for the next run of an agent and stop it before its tool calls (function breakpoints on tool names).',
    body: {
      type: DEBUG_TYPE,
      request: 'attach',
      name: ATTACH_CONFIG_NAME,
      agentId: '^"\\${command:agentTimeTravel.pickAgent}"',
      store: '^"\\${workspaceFolder}/.ocdb/runs.db"',
      stopOnEntry: false,
      stopBeforeModelCall: false,
    },
  },
  {
    label: 'Agent Time Travel: Attach to a running run by id',
    description: 'Attach to one run being recorded now (see `ocdb runs --status running`).',
    body: {
      type: DEBUG_TYPE,
      request: 'attach',
      name: 'Attach to ${1:run id}',
      runId: '${1:run id}',
      store: '^"\\${workspaceFolder}/.ocdb/runs.db"',
      stopOnEntry: true,
    },
  },
] as const;

function commandContributions() {
  return (Object.keys(COMMANDS) as CommandKey[]).map((key) => ({
    command: COMMANDS[key].id,
    title: COMMANDS[key].title,
    category: CATEGORY,
    icon: `$(${COMMANDS[key].icon})`,
  }));
}

/** A file of the Files scope in the Variables view of a replay. */
const FILE_VARIABLE = `debugType == ${DEBUG_TYPE} && debugProtocolVariableMenuContext == ${FILE_VARIABLE_CONTEXT}`;

function menus() {
  const c = COMMANDS;
  return {
    'view/title': [
      { command: c.refresh.id, when: `view == ${VIEWS.runs}`, group: 'navigation@1' },
      { command: c.debugNextRun.id, when: `view == ${VIEWS.runs}`, group: '1_runs@0' },
      { command: c.importRun.id, when: `view == ${VIEWS.runs}`, group: 'navigation@2' },
      { command: c.runDemo.id, when: `view == ${VIEWS.runs}`, group: 'navigation@3' },
      { command: c.compareRuns.id, when: `view == ${VIEWS.runs}`, group: '1_runs@1' },
      { command: c.whatIfAcrossRuns.id, when: `view == ${VIEWS.runs}`, group: '1_runs@3' },
      { command: c.openStore.id, when: `view == ${VIEWS.runs}`, group: '1_runs@2' },
    ],
    'view/item/context': [
      { command: c.attachRun.id, when: inRunsView(RUNNING_ITEM), group: 'inline@0' },
      { command: c.replayRun.id, when: inRunsView(RUN_ITEM), group: 'inline@1' },
      { command: c.forkFromCheckpoint.id, when: inRunsView(RUN_ITEM), group: 'inline@2' },
      { command: c.replayRun.id, when: inRunsView(CHECKPOINT_ITEM), group: 'inline@1' },
      { command: c.forkFromCheckpoint.id, when: inRunsView(CHECKPOINT_ITEM), group: 'inline@2' },
      { command: c.showPromptDifference.id, when: inRunsView(DIVERGED_ITEM), group: '0_diverged@1' },
      { command: c.continueRecorded.id, when: inRunsView(DIVERGED_ITEM), group: '0_diverged@2' },
      { command: c.continueReal.id, when: inRunsView(DIVERGED_ITEM), group: '0_diverged@3' },
      { command: c.attachRun.id, when: inRunsView(RUNNING_ITEM), group: '1_replay@0' },
      { command: c.replayRun.id, when: inRunsView(RUN_ITEM), group: '1_replay@1' },
      { command: c.openTranscript.id, when: inRunsView(RUN_ITEM), group: '1_replay@2' },
      { command: c.showTimeline.id, when: inRunsView(RUN_ITEM), group: '1_replay@5' },
      { command: c.forkFromCheckpoint.id, when: inRunsView(RUN_ITEM), group: '1_replay@3' },
      {
        command: c.compareWithParent.id,
        when: inRunsView(FORK_ITEM),
        group: '2_compare@1',
      },
      { command: c.compareRuns.id, when: inRunsView(RUN_ITEM), group: '2_compare@2' },
      { command: c.compareRunsNWay.id, when: inRunsView(RUN_ITEM), group: '2_compare@3' },
      { command: c.whatIfAcrossRuns.id, when: inRunsView(RUN_ITEM), group: '2_compare@4' },
      { command: c.exportRun.id, when: inRunsView(RUN_ITEM), group: '3_manage@1' },
      { command: c.deleteRun.id, when: inRunsView(RUN_ITEM), group: '3_manage@2' },
      { command: c.replayRun.id, when: inRunsView(CHECKPOINT_ITEM), group: '1_replay@1' },
      { command: c.forkFromCheckpoint.id, when: inRunsView(CHECKPOINT_ITEM), group: '1_replay@2' },
      { command: c.editContext.id, when: inRunsView(CHECKPOINT_ITEM), group: '1_replay@3' },
      { command: c.openTranscript.id, when: inRunsView(CHECKPOINT_ITEM), group: '1_replay@4' },
      { command: c.restoreFiles.id, when: inRunsView(CHECKPOINT_ITEM), group: '1_replay@5' },
      { command: c.openSession.id, when: inRunsView(SESSION_ITEM), group: 'inline@1' },
      { command: c.openSession.id, when: inRunsView(SESSION_ITEM), group: '1_replay@1' },
    ],
    'debug/variables/context': [
      { command: c.openFileAtCheckpoint.id, when: FILE_VARIABLE, group: 'navigation@1' },
      { command: c.openFileChanges.id, when: FILE_VARIABLE, group: 'navigation@2' },
      { command: c.compareFileWithWorkspace.id, when: FILE_VARIABLE, group: 'navigation@3' },
      { command: c.restoreFiles.id, when: FILE_VARIABLE, group: 'navigation@4' },
    ],
    'debug/callstack/context': [
      {
        command: c.forkFromFrame.id,
        when: `debugType == ${DEBUG_TYPE} && callStackItemType == 'stackFrame'`,
        group: 'navigation',
      },
      { command: c.showTimeline.id, when: `debugType == ${DEBUG_TYPE}`, group: 'navigation' },
    ],
    'editor/title': [
      { command: c.showTimeline.id, when: `resourceLangId == ${TRANSCRIPT_LANGUAGE}`, group: 'navigation' },
    ],
    commandPalette: (Object.keys(c) as CommandKey[])
      .filter((k) => !c[k].palette)
      .map((k) => ({ command: c[k].id, when: 'false' })),
  };
}

function configuration() {
  const p = (key: string) => `${SETTINGS_SECTION}.${key}`;
  return {
    title: CATEGORY,
    properties: {
      [p(SETTINGS.storePath)]: {
        type: 'string',
        default: '',
        scope: 'resource',
        markdownDescription:
          "The run store: a SQLite file, or a shared PostgreSQL as `postgres://user@host:5432/db`. Empty: the `OCDB_STORE` environment variable, else `.ocdb/runs.db` in the first workspace folder. Relative paths are resolved against that folder. Never put the password here: use `PGPASSWORD`, `~/.pgpass`, or the command **Agent Time Travel: Set Store Password…** (kept in VS Code's secret storage).",
      },
      [p(SETTINGS.defaultModelMode)]: {
        type: 'string',
        enum: [...MODEL_MODES],
        enumDescriptions: [
          'Re-emit the recorded model turns while the prompt matches the recording: no tokens spent; a changed prompt stops the fork as diverged.',
          'Re-emit the recorded model turns under the edited context, whatever the prompt: no tokens spent; the tools run as their policies decide.',
          'Call the model endpoint with the recorded model.',
          'Call the model endpoint with another provider/model.',
        ],
        default: 'captured',
        description: 'Model mode preselected in the fork editor.',
      },
      [p(SETTINGS.modelBaseUrl)]: {
        type: 'string',
        default: 'https://api.openai.com/v1',
        // where the user's key is sent: never chosen by a workspace (see CAPABILITIES)
        scope: 'machine',
        description:
          'Base URL of the OpenAI-compatible chat endpoint used by forks in real / override mode. A user (machine) setting: a workspace cannot change where your key is sent.',
      },
      [p(SETTINGS.modelName)]: {
        type: 'string',
        default: 'gpt-4o-mini',
        description: 'Model name preselected for forks in override mode.',
      },
      [p(SETTINGS.apiKeyEnvVar)]: {
        type: 'string',
        default: 'OPENAI_API_KEY',
        scope: 'machine',
        description:
          'Name of the environment variable holding the API key of the model endpoint (the key itself is never stored in settings). A user (machine) setting: a workspace cannot choose which variable is sent.',
      },
      [p(SETTINGS.transcriptDetail)]: {
        type: 'string',
        enum: [...TRANSCRIPT_DETAILS],
        enumDescriptions: TRANSCRIPT_DETAILS.map((d) => `Excerpts of ${EXCERPT_LENGTHS[d]} characters.`),
        default: DEFAULT_TRANSCRIPT_DETAIL,
        description: 'How much of each message, argument and result a transcript line shows.',
      },
      [p(SETTINGS.sessionsEnabled)]: {
        type: 'boolean',
        default: true,
        description:
          'List the Claude Code, Codex and Gemini CLI sessions of this workspace in the Runs view ("Coding agent sessions"). A session is imported only when you open it.',
      },
      [p(SETTINGS.sessionsFolders)]: {
        type: 'array',
        items: { type: 'string' },
        default: [],
        scope: 'machine',
        description:
          'More folders to list coding-agent session files from (any workspace), beside the folders each agent keeps them in.',
      },
      [p(SETTINGS.sessionsHome)]: {
        type: 'string',
        default: '',
        scope: 'machine',
        markdownDescription:
          'The home folder holding `.claude`, `.codex` and `.gemini`. Empty: the `OCDB_SESSIONS_HOME` environment variable, else your home folder.',
      },
      [p(SETTINGS.whatIfAskAboveUsd)]: {
        type: 'number',
        default: 0,
        minimum: 0,
        // what the user agrees to spend: never chosen by a workspace
        scope: 'machine',
        markdownDescription:
          'A what-if batch that asks a model (real / override model, model-graded assertions) shows its estimated cost and asks before it starts when the estimate is above this many US dollars, or when a model has no known price. `0`: always ask.',
      },
    },
  };
}

/** The whole `contributes` object. */
export function buildContributes() {
  return {
    viewsContainers: {
      activitybar: [{ id: VIEW_CONTAINER, title: 'Agent Runs', icon: 'media/agent-runs.svg' }],
    },
    views: {
      [VIEW_CONTAINER]: [
        // the runs take three fifths of the side bar at first: an editor with no checkpoint chosen needs little room
        { id: VIEWS.runs, name: 'Runs', icon: 'media/agent-runs.svg', contextualTitle: 'Agent Runs', initialSize: 3 },
        {
          type: 'webview',
          id: VIEWS.contextEditor,
          name: 'Context & Fork',
          contextualTitle: 'Agent Runs',
          initialSize: 2,
        },
      ],
    },
    viewsWelcome: [
      {
        view: VIEWS.runs,
        when: `${CONTEXT_KEYS.storeEmpty}`,
        // welcome text is not markdown: no backticks (VS Code shows them as they are), links only
        contents: [
          `[$(play-circle) Run Demo](command:${COMMANDS.runDemo.id})`,
          "Writes seven recorded demo runs (support, research and coding agents) into this workspace's store, .ocdb/runs.db (or the file the Store Path setting names), to replay and fork.",
          'Or record your agent with the recorder SDK (openRecorder, then startRun): its runs show here as they are recorded. Or import a trace (Claude Code, Codex, Gemini, OpenAI, OpenTelemetry):',
          `[$(cloud-download) Import Run](command:${COMMANDS.importRun.id})`,
          `[Open Store Settings](command:workbench.action.openSettings?%5B%22${SETTINGS_SECTION}.${SETTINGS.storePath}%22%5D)`,
        ].join('\n'),
      },
      {
        // the Run and Debug view's welcome, as js-debug offers its Debug Terminal there
        view: 'debug',
        when: CONTEXT_KEYS.hasRuns,
        contents: [
          `[Debug Next Run of Agent…](command:${COMMANDS.debugNextRun.id})`,
          'Stop an agent recorded with Agent Time Travel before its tool calls: the session waits for its next run.',
        ].join('\n'),
      },
    ],
    commands: commandContributions(),
    menus: menus(),
    configuration: configuration(),
    languages: [
      {
        id: TRANSCRIPT_LANGUAGE,
        aliases: ['Agent Transcript'],
        extensions: [TRANSCRIPT_EXTENSION],
      },
    ],
    grammars: [
      {
        language: TRANSCRIPT_LANGUAGE,
        scopeName: 'source.agent-transcript',
        path: './media/transcript.tmLanguage.json',
      },
    ],
    breakpoints: [{ language: TRANSCRIPT_LANGUAGE }],
    // `ocdb mcp` on the extension's own store, for agent mode (extension/mcpProvider.ts)
    mcpServerDefinitionProviders: [{ id: MCP_PROVIDER.id, label: MCP_PROVIDER.label }],
    configurationDefaults: {
      'files.readonlyInclude': { [`**/*${TRANSCRIPT_EXTENSION}`]: true },
    },
    debuggers: [
      {
        type: DEBUG_TYPE,
        label: 'Agent Replay',
        languages: [TRANSCRIPT_LANGUAGE],
        configurationAttributes: {
          launch: { required: ['runId'], properties: LAUNCH_ATTRIBUTES },
          attach: { properties: ATTACH_ATTRIBUTES },
        },
        initialConfigurations: [
          {
            type: DEBUG_TYPE,
            request: 'launch',
            name: LAUNCH_CONFIG_NAME,
            runId: PICK_RUN_VARIABLE,
            stopOnEntry: true,
          },
          ATTACH_INITIAL_CONFIGURATION,
        ],
        configurationSnippets: [
          {
            label: 'Agent Time Travel: Replay agent run',
            description: 'Replay a recorded agent run, picking the run when the session starts.',
            body: {
              type: DEBUG_TYPE,
              request: 'launch',
              name: LAUNCH_CONFIG_NAME,
              runId: '^"\\${command:agentTimeTravel.pickRun}"',
              stopOnEntry: true,
            },
          },
          {
            label: 'Agent Time Travel: Replay a run by id',
            description: 'Replay one run of a given store from a checkpoint.',
            body: {
              type: DEBUG_TYPE,
              request: 'launch',
              name: 'Replay ${1:run id}',
              runId: '${1:run id}',
              store: '^"\\${workspaceFolder}/.ocdb/runs.db"',
              stopOnEntry: true,
            },
          },
          ...ATTACH_SNIPPETS,
        ],
      },
    ],
  };
}

/**
 * Settings that choose where the user's key goes: machine-scoped (a workspace
 * cannot set them) and, in an untrusted workspace, restricted as well.
 */
export const KEY_ROUTING_SETTINGS = [SETTINGS.modelBaseUrl, SETTINGS.apiKeyEnvVar] as const;

/** package.json `capabilities`: limited support in untrusted workspaces, the key-routing settings restricted. */
export const CAPABILITIES = {
  untrustedWorkspaces: {
    supported: 'limited',
    description:
      'In an untrusted workspace the model endpoint and the API key variable come from your user settings only.',
    restrictedConfigurations: KEY_ROUTING_SETTINGS.map((key) => `${SETTINGS_SECTION}.${key}`),
  },
} as const;

export const ACTIVATION_EVENTS = [
  `onDebugResolve:${DEBUG_TYPE}`,
  `onDebugDynamicConfigurations:${DEBUG_TYPE}`,
  `onDebugInitialConfigurations`,
  `onLanguage:${TRANSCRIPT_LANGUAGE}`,
  'workspaceContains:.ocdb/runs.db',
];

/** Rewrites package.json's contributes/activationEvents (run under `flock /tmp/npm.lock`: package.json is shared). */
function writePackageJson(file: string): void {
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  pkg.activationEvents = ACTIVATION_EVENTS;
  pkg.capabilities = CAPABILITIES;
  pkg.contributes = buildContributes();
  writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
}

if (require.main === module && process.argv.includes('--write')) writePackageJson('package.json');

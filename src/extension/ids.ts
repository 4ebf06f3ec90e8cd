/**
 * Every id the extension shares with package.json: commands, views, the view
 * container, context keys, the debug type, the transcript language and the
 * settings. One module so a rename is one edit and a test can check
 * package.json against it. Pure: no vscode value import (unit tests load it).
 */

export const EXTENSION_ID = 'agent-time-travel.agent-time-travel';
export const CATEGORY = 'Agent Time Travel';

export const DEBUG_TYPE = 'agent-replay';
export const LAUNCH_CONFIG_NAME = 'Replay agent run';
/** The attach configuration: stop a running agent (live debugging: the stop protocol of src/store/liveTable.ts). */
export const ATTACH_CONFIG_NAME = 'Attach to agent run';

export const TRANSCRIPT_LANGUAGE = 'agent-transcript';
/** The file extension of run transcripts: the debugger's (transcriptFiles.ts), which names the files. */
export { TRANSCRIPT_EXTENSION } from '../debug/transcriptFiles';
/** Scheme of the documents that open a long JSON value (a tool's args or result) in full. */
export const VALUE_SCHEME = 'agent-time-travel-value';
/** Scheme of the read-only documents the diff editor compares (prompts, the sides of a run comparison, artifacts). */
export const COMPARE_SCHEME = 'agent-time-travel-compare';

/** Scheme of the read-only documents of a coding agent's file as of a checkpoint (extension/fileDocuments.ts). */
export const FILE_SCHEME = 'ocdb-file';
/** The Variables view's menu context of a file in the Files scope (`debugProtocolVariableMenuContext`). */
export { FILE_VARIABLE_CONTEXT } from '../debug/variables';

/** The MCP server definition provider (package.json contributes.mcpServerDefinitionProviders): `ocdb mcp`. */
export const MCP_PROVIDER = { id: 'agentTimeTravel.runStore', label: 'Agent Time Travel runs' } as const;

export const VIEW_CONTAINER = 'agentRuns';
export const VIEWS = {
  runs: 'agentTimeTravel.runs',
  contextEditor: 'agentTimeTravel.contextEditor',
} as const;
export type ViewId = (typeof VIEWS)[keyof typeof VIEWS];

/** Commands: `title` and `icon` (a codicon) go into package.json; `palette: false` hides item-only commands. */
export const COMMANDS = {
  replayRun: { id: 'agentTimeTravel.replayRun', title: 'Replay Run', icon: 'debug-alt', palette: true },
  forkFromCheckpoint: {
    id: 'agentTimeTravel.forkFromCheckpoint',
    title: 'Fork from Checkpoint',
    icon: 'repo-forked',
    palette: false,
  },
  forkFromFrame: {
    id: 'agentTimeTravel.forkFromFrame',
    title: 'Fork from this checkpoint',
    icon: 'repo-forked',
    palette: false,
  },
  openTranscript: { id: 'agentTimeTravel.openTranscript', title: 'Open Transcript', icon: 'output', palette: true },
  compareWithParent: {
    id: 'agentTimeTravel.compareWithParent',
    title: 'Compare with Parent',
    icon: 'diff',
    palette: false,
  },
  compareRuns: { id: 'agentTimeTravel.compareRuns', title: 'Compare Runs', icon: 'diff-multiple', palette: true },
  compareRunsNWay: {
    id: 'agentTimeTravel.compareRunsNWay',
    title: 'Compare Several Runs…',
    icon: 'diff-multiple',
    palette: true,
  },
  whatIfAcrossRuns: {
    id: 'agentTimeTravel.whatIfAcrossRuns',
    title: 'What-if Across Runs…',
    icon: 'beaker',
    palette: true,
  },
  openWhatIfResults: {
    id: 'agentTimeTravel.openWhatIfResults',
    title: 'Open What-if Results…',
    icon: 'table',
    palette: true,
  },
  importRun: { id: 'agentTimeTravel.importRun', title: 'Import Run', icon: 'cloud-download', palette: true },
  exportRun: { id: 'agentTimeTravel.exportRun', title: 'Export Run', icon: 'export', palette: true },
  deleteRun: { id: 'agentTimeTravel.deleteRun', title: 'Delete Run', icon: 'trash', palette: true },
  openStore: { id: 'agentTimeTravel.openStore', title: 'Open Store', icon: 'database', palette: true },
  setStorePassword: {
    id: 'agentTimeTravel.setStorePassword',
    title: 'Set Store Password…',
    icon: 'key',
    palette: true,
  },
  runDemo: { id: 'agentTimeTravel.runDemo', title: 'Run Demo', icon: 'play-circle', palette: true },
  refresh: { id: 'agentTimeTravel.refresh', title: 'Refresh Runs', icon: 'refresh', palette: true },
  loadMore: { id: 'agentTimeTravel.loadMore', title: 'Load More Runs', icon: 'ellipsis', palette: false },
  // the launch configuration's ${command:…} variable: from the palette it would pick a run and do nothing with it
  pickRun: { id: 'agentTimeTravel.pickRun', title: 'Pick Run', icon: 'list-selection', palette: false },
  showValue: { id: 'agentTimeTravel.showValue', title: 'Show Whole Value', icon: 'json', palette: false },
  setUpModelEndpoint: {
    id: 'agentTimeTravel.setUpModelEndpoint',
    title: 'Set Up Model Endpoint…',
    icon: 'plug',
    palette: true,
  },
  editContext: {
    id: 'agentTimeTravel.editContext',
    title: 'Edit Context and Fork',
    icon: 'edit',
    palette: false,
  },
  debugNextRun: {
    id: 'agentTimeTravel.debugNextRun',
    title: 'Debug Next Run of Agent…',
    icon: 'debug-alt-small',
    palette: true,
  },
  attachRun: { id: 'agentTimeTravel.attachRun', title: 'Attach', icon: 'plug', palette: false },
  showPromptDifference: {
    id: 'agentTimeTravel.showPromptDifference',
    title: 'Show Prompt Difference',
    icon: 'diff',
    palette: true,
  },
  continueRecorded: {
    id: 'agentTimeTravel.continueRecorded',
    title: 'Continue Fork with the Recorded Outputs',
    icon: 'debug-continue',
    palette: true,
  },
  continueReal: {
    id: 'agentTimeTravel.continueReal',
    title: 'Continue Fork with a Real Model',
    icon: 'sparkle',
    palette: true,
  },
  pickAgent: { id: 'agentTimeTravel.pickAgent', title: 'Pick Agent', icon: 'person', palette: false },
  openSession: {
    id: 'agentTimeTravel.openSession',
    title: 'Open Coding Agent Session',
    icon: 'debug-alt',
    palette: false,
  },
  showTimeline: { id: 'agentTimeTravel.showTimeline', title: 'Show Timeline', icon: 'graph-line', palette: true },
  openFileAtCheckpoint: {
    id: 'agentTimeTravel.openFileAtCheckpoint',
    title: 'Open File at Checkpoint',
    icon: 'go-to-file',
    palette: false,
  },
  openFileChanges: { id: 'agentTimeTravel.openFileChanges', title: 'Open Changes', icon: 'diff', palette: false },
  compareFileWithWorkspace: {
    id: 'agentTimeTravel.compareFileWithWorkspace',
    title: 'Compare with Workspace File',
    icon: 'diff-single',
    palette: false,
  },
  restoreFiles: {
    id: 'agentTimeTravel.restoreFiles',
    title: 'Restore Files from Checkpoint…',
    icon: 'history',
    palette: true,
  },
} as const;
export type CommandKey = keyof typeof COMMANDS;
export type CommandId = (typeof COMMANDS)[CommandKey]['id'];

/** Context keys set with `setContext` and used in `when` clauses. */
export const CONTEXT_KEYS = {
  storeEmpty: 'agentTimeTravel.storeEmpty',
  storeOpen: 'agentTimeTravel.storeOpen',
  /** The store holds runs (the Run and Debug welcome offers Debug Next Run of Agent…). */
  hasRuns: 'agentTimeTravel.hasRuns',
} as const;

/** `contextValue` of tree items (menus match on them). */
export const ITEM_CONTEXT = {
  run: 'agentRun',
  forkRun: 'agentRun.fork',
  /** A run being recorded now (not crashed): it offers Attach. */
  runningRun: 'agentRun.running',
  runningForkRun: 'agentRun.fork.running',
  /** A fork that stopped where the recording has no answer: it offers its ways on for as long as it is diverged. */
  divergedForkRun: 'agentRun.fork.diverged',
  step: 'agentStep',
  checkpoint: 'agentCheckpoint',
  ledger: 'agentToolLedger',
  toolCall: 'agentToolCall',
  artifacts: 'agentArtifacts',
  artifact: 'agentArtifact',
  loadMore: 'agentLoadMore',
  message: 'agentMessage',
  /** The "Coding agent sessions" section and its sessions (found on disk, imported when opened). */
  sessions: 'agentSessions',
  session: 'agentSession',
} as const;
export type ItemContext = (typeof ITEM_CONTEXT)[keyof typeof ITEM_CONTEXT];

/** Settings under `agentTimeTravel.` (keys without the prefix). */
export const SETTINGS_SECTION = 'agentTimeTravel';
export const SETTINGS = {
  storePath: 'storePath',
  defaultModelMode: 'defaultModelMode',
  modelBaseUrl: 'modelEndpoint.baseUrl',
  modelName: 'modelEndpoint.model',
  apiKeyEnvVar: 'modelEndpoint.apiKeyEnvVar',
  transcriptDetail: 'transcriptDetail',
  sessionsEnabled: 'codingSessions.enabled',
  sessionsFolders: 'codingSessions.folders',
  sessionsHome: 'codingSessions.home',
  whatIfAskAboveUsd: 'whatIf.askAboveUsd',
} as const;
export type SettingKey = (typeof SETTINGS)[keyof typeof SETTINGS];

/** The command variable of launch configurations: `"runId": "${command:agentTimeTravel.pickRun}"`. */
export const PICK_RUN_VARIABLE = `\${command:${COMMANDS.pickRun.id}}`;

/** The command variable of attach configurations: `"agentId": "${command:agentTimeTravel.pickAgent}"`. */
export const PICK_AGENT_VARIABLE = `\${command:${COMMANDS.pickAgent.id}}`;

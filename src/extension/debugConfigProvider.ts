/**
 * The `agent-replay` debugger's VS Code side: initial and dynamic launch
 * configurations ("Replay agent run", "Attach to agent run"), resolution
 * (store path from the settings, run from the active transcript, validation
 * against LaunchArgsSchema after `${command:agentTimeTravel.pickRun}` is
 * substituted; an attach needs a run or an agent once
 * `${command:agentTimeTravel.pickAgent}` is), and the in-process adapter
 * (AgentReplaySession through a DebugAdapterInlineImplementation).
 */
import * as vscode from 'vscode';
import { AgentReplaySession } from '../debug/agentReplaySession';
import { AttachArgsSchema, LaunchArgsSchema } from '../debug/launchArgs';
import { parseEvent, runsChangedEvent } from '../debug/protocol';
import { formatPath } from '../model';
import type { ExtensionContextObject } from './context';
import {
  ATTACH_CONFIG_NAME,
  DEBUG_TYPE,
  LAUNCH_CONFIG_NAME,
  PICK_AGENT_VARIABLE,
  PICK_RUN_VARIABLE,
  TRANSCRIPT_LANGUAGE,
} from './ids';
import { notificationText } from './markdownText';
import { readSettings } from './settings';

/**
 * The launch configuration of a run (what the tree's Replay and the dynamic list start). The transcript detail
 * is the setting's, so the adapter writes the transcript file with the same text as the extension.
 */
export function replayConfiguration(runId: string, store: string, checkpointId?: string): vscode.DebugConfiguration {
  return {
    type: DEBUG_TYPE,
    request: 'launch',
    name: `${LAUNCH_CONFIG_NAME}: ${runId}`,
    runId,
    store,
    stopOnEntry: true,
    ...(checkpointId ? { checkpointId } : {}),
    transcriptDetail: readSettings().transcriptDetail,
  };
}

/**
 * The configuration of a live session (what Debug Next Run of Agent… and the tree's Attach start): the next runs of
 * an agent (each a thread, the session waits for them) or one run being recorded now. It runs to the breakpoints
 * (function breakpoints on tool names stop the agent before the tool runs); Pause stops at the next checkpoint.
 */
export function attachConfiguration(
  target: { agentId: string } | { runId: string },
  store: string,
): vscode.DebugConfiguration {
  return {
    type: DEBUG_TYPE,
    request: 'attach',
    name: 'agentId' in target ? `${ATTACH_CONFIG_NAME}: next run of ${target.agentId}` : `Attach to ${target.runId}`,
    ...target,
    store,
    transcriptDetail: readSettings().transcriptDetail,
  };
}

/** Whether a configuration attaches to a running agent (request `attach`) rather than replaying a recording. */
export function isAttach(config: { request?: unknown }): boolean {
  return config.request === 'attach';
}

export class ReplayConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly ctx: ExtensionContextObject) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [
      { type: DEBUG_TYPE, request: 'launch', name: LAUNCH_CONFIG_NAME, runId: PICK_RUN_VARIABLE, stopOnEntry: true },
      { type: DEBUG_TYPE, request: 'attach', name: ATTACH_CONFIG_NAME, agentId: PICK_AGENT_VARIABLE },
    ];
  }

  /**
   * F5 without launch.json: replay the run of the active transcript, else pick one. Fills the store path and the
   * transcript detail from the settings (a launch.json value wins).
   */
  resolveDebugConfiguration(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): vscode.DebugConfiguration {
    if (!config.type && !config.request && !config.name) {
      const editor = vscode.window.activeTextEditor;
      const runId =
        editor?.document.languageId === TRANSCRIPT_LANGUAGE
          ? this.ctx.transcripts.runIdOf(editor.document.uri)
          : undefined;
      Object.assign(config, {
        type: DEBUG_TYPE,
        request: 'launch',
        name: LAUNCH_CONFIG_NAME,
        runId: runId ?? PICK_RUN_VARIABLE,
        stopOnEntry: true,
      });
    }
    if (isAttach(config)) {
      // neither a run nor an agent: ask for the agent when the session starts
      if (config.runId === undefined && config.agentId === undefined) config.agentId = PICK_AGENT_VARIABLE;
    } else if (config.runId === undefined) config.runId = PICK_RUN_VARIABLE;
    if (config.store === undefined || config.store === '') config.store = this.ctx.connection.path;
    config.transcriptDetail ??= readSettings().transcriptDetail;
    return config;
  }

  /** After variable substitution: the configuration must satisfy LaunchArgsSchema (undefined cancels the launch). */
  async resolveDebugConfigurationWithSubstitutedVariables(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    if (isAttach(config)) {
      // the agent picker was cancelled: neither a run nor an agent (an empty one in launch.json is an error below)
      if (config.runId === undefined && config.agentId === undefined) return undefined;
      return this.checked(config, AttachArgsSchema);
    }
    if (config.runId === undefined || config.runId === '') return undefined; // the run picker was cancelled
    const checked = this.checked(config, LaunchArgsSchema);
    // a run of the team store is replayed from the local cache: copied there first (with a progress notification)
    const team = this.ctx.connection.team;
    const store = typeof config.store === 'string' ? config.store : this.ctx.connection.path;
    if (checked && team && this.ctx.connection.storeLocation(store) === team.cachePath) {
      if (!(await team.ensureLocal(String(config.runId)))) return undefined;
    }
    return checked;
  }

  /** The configuration when `schema` accepts it; else an error naming the field, and undefined (no session). */
  private checked(
    config: vscode.DebugConfiguration,
    schema: typeof LaunchArgsSchema | typeof AttachArgsSchema,
  ): vscode.DebugConfiguration | undefined {
    const checked = schema.safeParse(config);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const where = issue ? formatPath(issue.path) : '';
      void vscode.window.showErrorMessage(
        notificationText(
          `Launch configuration "${String(config.name)}": ${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}. Fix it in launch.json.`,
        ),
      );
      return undefined;
    }
    return config;
  }
}

/** Recent runs as ready-made configurations in the Run and Debug dropdown. */
export class RecentRunsConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly ctx: ExtensionContextObject) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    const store = this.ctx.connection.tryGet();
    if (!store) return [];
    return store.listRuns({ limit: 10 }).runs.map((r) => replayConfiguration(r.runId, this.ctx.connection.path));
  }
}

/** Runs the adapter inside the extension host. */
export class InlineAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly ctx: ExtensionContextObject) {}

  createDebugAdapterDescriptor(): vscode.DebugAdapterDescriptor {
    // AgentReplaySession (a @vscode/debugadapter DebugSession) implements handleMessage/onDidSendMessage/dispose.
    // The store opens with the password SecretStorage holds for a PostgreSQL URL (never in the configuration).
    return new vscode.DebugAdapterInlineImplementation(
      new AgentReplaySession(process.env, undefined, (location) => this.ctx.connection.storeLocation(location)),
    );
  }
}

/** Registers the providers and the factory. */
export function registerDebugger(ctx: ExtensionContextObject): vscode.Disposable[] {
  return [
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new ReplayConfigurationProvider(ctx)),
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      new RecentRunsConfigurationProvider(ctx),
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new InlineAdapterFactory(ctx)),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
      if (e.session.type !== DEBUG_TYPE) return;
      const changed = parseEvent(runsChangedEvent, e);
      if (!changed) return;
      ctx.log.debug(`the debugger wrote ${changed.runIds.join(', ')} (from ${changed.parentRunId})`);
      ctx.connection.poll();
    }),
  ];
}

/**
 * The `agent-replay` debugger's VS Code side: initial and dynamic launch
 * configurations ("Replay agent run"), resolution (store path from the
 * settings, run from the active transcript, validation against
 * LaunchArgsSchema after `${command:agentTimeTravel.pickRun}` is
 * substituted), and the in-process adapter (AgentReplaySession through a
 * DebugAdapterInlineImplementation).
 */
import * as vscode from 'vscode';
import { AgentReplaySession } from '../debug/agentReplaySession';
import { LaunchArgsSchema } from '../debug/launchArgs';
import { parseEvent, runsChangedEvent } from '../debug/protocol';
import { formatPath } from '../model';
import type { ExtensionContextObject } from './context';
import { DEBUG_TYPE, LAUNCH_CONFIG_NAME, PICK_RUN_VARIABLE, TRANSCRIPT_LANGUAGE } from './ids';
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

export class ReplayConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly ctx: ExtensionContextObject) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [
      { type: DEBUG_TYPE, request: 'launch', name: LAUNCH_CONFIG_NAME, runId: PICK_RUN_VARIABLE, stopOnEntry: true },
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
    if (config.runId === undefined) config.runId = PICK_RUN_VARIABLE;
    if (config.store === undefined || config.store === '') config.store = this.ctx.connection.path;
    config.transcriptDetail ??= readSettings().transcriptDetail;
    return config;
  }

  /** After variable substitution: the configuration must satisfy LaunchArgsSchema (undefined cancels the launch). */
  resolveDebugConfigurationWithSubstitutedVariables(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): vscode.DebugConfiguration | undefined {
    if (config.runId === undefined || config.runId === '') return undefined; // the run picker was cancelled
    const checked = LaunchArgsSchema.safeParse(config);
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

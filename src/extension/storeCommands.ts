/**
 * Commands on the store: Run Demo, Import Run (a DebugRun JSON file through
 * store.loadRun, any other trace through the importers with a cancellable
 * progress notification), Export Run, Delete Run (confirmed), Open Store,
 * Refresh, Load More, Set Store Password… (a PostgreSQL store's, into SecretStorage).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { writeDemoStore } from '../demo';
import { FORMAT_SPECS, importPath } from '../importers';
import { errorMessage, isOcdbError } from '../model';
import { writeRunExport } from '../store';
import type { ExtensionContextObject } from './context';
import { storePasswordSecret } from './storeConnection';
import { plural } from './format';
import { SETTINGS, SETTINGS_SECTION } from './ids';
import { notificationText } from './markdownText';
import { registerCommand } from './notify';
import { runIdOfArg } from './runCommands';
import { pickRun } from './runPicker';
import type { RunsTreeProvider } from './runsTreeProvider';

/** True when parsed JSON looks like an exported DebugRun (ocdb export), not a trace of another tool. */
export function looksLikeDebugRun(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && 'runId' in value && 'checkpoints' in value && 'toolLedger' in value
  );
}

/** Loads a DebugRun JSON file, asking before replacing a run of the same id. Returns the run id or undefined. */
async function loadDebugRun(ctx: ExtensionContextObject, file: string, json: unknown): Promise<string | undefined> {
  const store = ctx.connection.getOrCreate();
  try {
    return store.loadRun(json, { where: file }).runId;
  } catch (e) {
    if (!isOcdbError(e, 'RunAlreadyExists')) throw e;
    const choice = await vscode.window.showWarningMessage(
      notificationText(`${errorMessage(e)} Replace it?`),
      { modal: true },
      'Replace',
    );
    if (choice !== 'Replace') return undefined;
    return store.loadRun(json, { where: file, replace: true }).runId;
  }
}

async function importTraces(ctx: ExtensionContextObject, file: string): Promise<string[]> {
  const store = ctx.connection.getOrCreate();
  const summary = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Importing ${path.basename(file)}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      let reported = 0;
      return importPath(store, file, {
        signal: abort.signal,
        onProgress: (p) => {
          const pct = p.allBytesTotal > 0 ? (100 * p.allBytesRead) / p.allBytesTotal : 0;
          const files = p.filesTotal > 1 ? `${Math.min(p.filesDone + 1, p.filesTotal)} of ${p.filesTotal}: ` : '';
          progress.report({ increment: pct - reported, message: `${files}${path.basename(p.file)}` });
          reported = pct;
        },
      });
    },
  );
  for (const f of summary.files) {
    if (f.outcome !== 'imported') ctx.log.warn(`import ${f.file}: ${f.outcome}${f.reason ? ` (${f.reason})` : ''}`);
    for (const w of f.warnings) ctx.log.info(`import ${w.file}${w.line ? `:${w.line}` : ''}: ${w.message}`);
  }
  if (summary.imported === 0) {
    // what went wrong first, file by file (a reason may name the file itself: said once)
    const reasons = summary.files.map((f) => {
      const reason = (f.reason ?? f.outcome).replace(`${f.file}: `, '');
      return `${path.basename(f.file)}: ${reason}`;
    });
    const text = `Nothing imported. ${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? `; … (${reasons.length - 3} more in the log)` : ''}`;
    if (summary.failed > 0) throw new Error(text);
    void vscode.window.showWarningMessage(notificationText(text));
  }
  return summary.runIds;
}

export function registerStoreCommands(ctx: ExtensionContextObject, tree: RunsTreeProvider): vscode.Disposable[] {
  const { log, connection } = ctx;
  return [
    registerCommand(log, 'refresh', () => {
      connection.poll();
      tree.refresh();
    }),
    registerCommand(log, 'loadMore', () => tree.loadMore()),
    registerCommand(log, 'runDemo', async () => {
      const store = connection.getOrCreate();
      const written = writeDemoStore(store);
      log.info(`wrote ${written.length} demo runs into ${connection.label}`);
      connection.poll();
      tree.refresh();
      const first = written[0];
      if (first) await ctx.revealRun(first);
      void vscode.window
        .showInformationMessage(
          `Wrote ${written.length} demo runs into ${connection.label}.`,
          'Replay demo-support-refund',
        )
        .then((c) => {
          if (c && first) return ctx.startReplay(first);
          return undefined;
        });
      return written;
    }),
    registerCommand(log, 'importRun', async (arg) => {
      const file =
        typeof arg === 'string'
          ? arg
          : (
              await vscode.window.showOpenDialog({
                title: `Import a run: an ocdb export (DebugRun JSON) or a trace of ${FORMAT_SPECS.map((f) => f.format).join(', ')}`,
                // where a project's traces usually are; the file dialog otherwise opens at the last folder used
                ...(vscode.workspace.workspaceFolders?.[0]
                  ? { defaultUri: vscode.workspace.workspaceFolders[0].uri }
                  : {}),
                canSelectFiles: true,
                canSelectFolders: true,
                canSelectMany: false,
                filters: { 'Runs and traces': ['json', 'jsonl', 'ndjson'], 'All files': ['*'] },
              })
            )?.[0]?.fsPath;
      if (!file) return undefined;
      let runIds: string[] = [];
      let json: unknown;
      if (fs.statSync(file).isFile() && file.endsWith('.json')) {
        try {
          json = JSON.parse(fs.readFileSync(file, 'utf8'));
        } catch {
          json = undefined; // not one JSON document: let the importers sniff it
        }
      }
      if (looksLikeDebugRun(json)) {
        const runId = await loadDebugRun(ctx, file, json);
        if (runId) runIds = [runId];
      } else {
        runIds = await importTraces(ctx, file);
      }
      connection.poll();
      if (runIds[0]) {
        await ctx.revealRun(runIds[0]);
        void vscode.window.showInformationMessage(
          notificationText(
            `Imported ${runIds.length} run${runIds.length === 1 ? '' : 's'}: ${runIds.slice(0, 3).join(', ')}${runIds.length > 3 ? ', …' : ''}`,
          ),
        );
      }
      return runIds;
    }),
    registerCommand(log, 'exportRun', async (arg) => {
      const runId = runIdOfArg(arg) ?? (await pickRun(connection, { title: 'Export which run?' }));
      if (!runId) return;
      const folder =
        vscode.workspace.workspaceFolders?.[0]?.uri ??
        vscode.Uri.file(connection.isUrl ? os.homedir() : path.dirname(connection.path));
      const target = await vscode.window.showSaveDialog({
        title: `Export ${runId} as DebugRun JSON`,
        defaultUri: vscode.Uri.joinPath(folder, `${runId.replace(/[^\w.-]/g, '_')}.json`),
        filters: { 'DebugRun JSON': ['json'] },
      });
      if (!target) return;
      // streamed one checkpoint at a time: a long run does not have to fit in memory
      const fd = fs.openSync(target.fsPath, 'w');
      try {
        writeRunExport(connection.getOrCreate(), runId, (chunk) => fs.writeSync(fd, `${chunk}\n`));
      } finally {
        fs.closeSync(fd);
      }
      void vscode.window.showInformationMessage(notificationText(`Exported ${runId} to ${target.fsPath}.`));
    }),
    registerCommand(log, 'deleteRun', async (arg) => {
      const runId = runIdOfArg(arg) ?? (await pickRun(connection, { title: 'Delete which run?' }));
      if (!runId) return;
      const store = connection.getOrCreate();
      const run = store.getRun(runId);
      const forks = store.listRuns({ parentRunId: runId }).total;
      const choice = await vscode.window.showWarningMessage(
        notificationText(
          `Delete run ${runId} (${plural(run.checkpointCount, 'checkpoint')}, ${plural(run.toolCallCount, 'tool call')})?`,
        ),
        {
          modal: true,
          detail: `This cannot be undone.${forks > 0 ? ` Its ${forks} fork${forks > 1 ? 's stay' : ' stays'} in the store.` : ''}`,
        },
        'Delete',
      );
      if (choice !== 'Delete') return;
      store.deleteRun(runId);
      log.info(`deleted run ${runId}`);
      connection.poll();
    }),
    registerCommand(log, 'openStore', async () => {
      const picked = await vscode.window.showOpenDialog({
        title: 'Open a run store (SQLite file)',
        canSelectFiles: true,
        canSelectMany: false,
        defaultUri: vscode.Uri.file(connection.isUrl ? os.homedir() : path.dirname(connection.path)),
        filters: { 'Run store': ['db', 'sqlite', 'sqlite3'], 'All files': ['*'] },
      });
      const file = picked?.[0]?.fsPath;
      if (!file) return;
      const target = vscode.workspace.workspaceFolders
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
      await vscode.workspace.getConfiguration(SETTINGS_SECTION).update(SETTINGS.storePath, file, target);
      connection.reconfigure();
    }),
    registerCommand(log, 'setStorePassword', async () => {
      if (!storePasswordSecret(connection.path)) {
        void vscode.window.showInformationMessage(
          notificationText(
            `The store is a file (${connection.label}); only a PostgreSQL store (agentTimeTravel.storePath postgres://user@host/db) has a password.`,
          ),
        );
        return;
      }
      const password = await vscode.window.showInputBox({
        title: `Password of ${connection.label}`,
        prompt: "Kept in VS Code's secret storage, never in settings; used when the URL names no password.",
        password: true,
        ignoreFocusOut: true,
      });
      if (password === undefined) return;
      await connection.setPassword(password);
      log.info(`stored the password of ${connection.label} in secret storage`);
    }),
  ];
}

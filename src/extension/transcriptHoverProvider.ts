/**
 * Hover on a tool-call line of a transcript document: the call's args and
 * result (or error) as shortened JSON with links that open the whole value.
 * Works whether or not a debug session is running (it reads the store).
 */
import * as vscode from 'vscode';
import { checkpointAtLine } from '../replay/transcript';
import { COMMANDS } from './ids';
import { toolCallHoverMarkdown } from './hoverText';
import type { StoreConnection } from './storeConnection';
import type { TranscriptService } from './transcriptService';

export class TranscriptHoverProvider implements vscode.HoverProvider {
  constructor(
    private readonly transcripts: TranscriptService,
    private readonly connection: StoreConnection,
  ) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const runId = this.transcripts.runIdOf(document.uri);
    const store = this.connection.tryGet();
    if (!runId || !store || !store.hasRun(runId)) return undefined;
    const line = checkpointAtLine(this.transcripts.transcript(runId), position.line);
    if (!line?.toolCallId) return undefined;
    const call = store.getToolCall(runId, line.toolCallId);
    const md = new vscode.MarkdownString(toolCallHoverMarkdown(runId, call), true);
    md.isTrusted = { enabledCommands: [COMMANDS.showValue.id] };
    md.supportHtml = false;
    return new vscode.Hover(md, document.lineAt(position.line).range);
  }
}

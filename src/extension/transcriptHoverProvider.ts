/**
 * Hover on a tool-call line of a transcript document: the call's args and
 * result (or error) as shortened JSON with links that open the whole value.
 * Works whether or not a debug session is running (it reads the store): while
 * a replay is paused, the expression provider gives the debugger no expression
 * on a tool-call line, so VS Code shows this hover at once (no Alt needed)
 * instead of the debugger's bare result.
 */
import * as vscode from 'vscode';
import { checkpointAtLine } from '../replay/transcript';
import { mayChangeFiles } from '../model';
import { changesOfCall } from '../replay/fileVersions';
import type { FileHistories } from './fileDocuments';
import { fileChangeMarkdown } from './fileHoverText';
import { COMMANDS } from './ids';
import { toolCallHoverMarkdown } from './hoverText';
import type { StoreConnection } from './storeConnection';
import type { TranscriptService } from './transcriptService';

export class TranscriptHoverProvider implements vscode.HoverProvider {
  constructor(
    private readonly transcripts: TranscriptService,
    private readonly connection: StoreConnection,
    private readonly histories?: FileHistories,
  ) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const runId = this.transcripts.runIdOf(document.uri);
    const store = this.connection.tryGet();
    if (!runId || !store || !store.hasRun(runId)) return undefined;
    const line = checkpointAtLine(this.transcripts.transcript(runId), position.line);
    if (!line?.toolCallId) return undefined;
    const call = store.getToolCall(runId, line.toolCallId);
    // an edit tool's line shows what it did to the file first: the diff is what the user hovers it for
    const changes =
      this.histories && mayChangeFiles(call.toolName)
        ? changesOfCall(this.histories.get(runId).history, call.toolCallId)
        : [];
    const diff = changes.length > 0 ? `${fileChangeMarkdown(changes)}\n---\n\n` : '';
    const md = new vscode.MarkdownString(`${diff}${toolCallHoverMarkdown(runId, call)}`, true);
    md.isTrusted = { enabledCommands: [COMMANDS.showValue.id] };
    md.supportHtml = false;
    return new vscode.Hover(md, document.lineAt(position.line).range);
  }
}

/** Plain identifiers and dotted paths (`user.roleId`), as VS Code's own debug hover picks them. */
const PATH_AT = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/;

/**
 * What the debugger evaluates on hover in a transcript: nothing on a tool-call line (its whole story is the hover
 * above: side effect, policy, args, result, "Open result"), else the path under the mouse.
 */
export class TranscriptExpressionProvider implements vscode.EvaluatableExpressionProvider {
  constructor(private readonly transcripts: TranscriptService) {}

  provideEvaluatableExpression(
    document: vscode.TextDocument,
    position: vscode.Position,
  ): vscode.EvaluatableExpression | undefined {
    const runId = this.transcripts.runIdOf(document.uri);
    if (runId) {
      const line = checkpointAtLine(this.transcripts.transcript(runId), position.line);
      if (line?.toolCallId) return undefined;
    }
    const range = document.getWordRangeAtPosition(position, PATH_AT);
    return range ? new vscode.EvaluatableExpression(range) : undefined;
  }
}

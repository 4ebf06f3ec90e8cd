/**
 * Read-only documents holding one whole recorded value — a tool call's args,
 * result or error as pretty JSON — opened from the "Open …" links of a
 * transcript hover. URIs: `agent-time-travel-value:/<run>/<toolCall>/<part>.json`.
 */
import * as vscode from 'vscode';
import { toJson } from './format';
import { valueOf, type ValuePart, type ValueRef } from './hoverText';
import { VALUE_SCHEME } from './ids';
import type { StoreConnection } from './storeConnection';

const PARTS: readonly ValuePart[] = ['args', 'result', 'error'];

export function valueUri(ref: ValueRef): vscode.Uri {
  return vscode.Uri.from({
    scheme: VALUE_SCHEME,
    path: `/${encodeURIComponent(ref.runId)}/${encodeURIComponent(ref.toolCallId)}/${ref.part}.json`,
  });
}

/** Parses a value URI (or a command argument) into a ValueRef; undefined when it is not one. */
export function valueRefOf(value: unknown): ValueRef | undefined {
  if (value instanceof vscode.Uri) {
    const [runId, toolCallId, file] = value.path.split('/').slice(1);
    const part = file?.replace(/\.json$/, '') as ValuePart | undefined;
    if (!runId || !toolCallId || !part || !PARTS.includes(part)) return undefined;
    return { runId: decodeURIComponent(runId), toolCallId: decodeURIComponent(toolCallId), part };
  }
  if (typeof value === 'object' && value !== null) {
    const v = value as Record<string, unknown>;
    if (typeof v.runId === 'string' && typeof v.toolCallId === 'string' && PARTS.includes(v.part as ValuePart)) {
      return { runId: v.runId, toolCallId: v.toolCallId, part: v.part as ValuePart };
    }
  }
  return undefined;
}

export class ValueDocumentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly connection: StoreConnection) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const ref = valueRefOf(uri);
    if (!ref) return `// ${uri.toString()} is not a recorded value`;
    const store = this.connection.tryGet();
    if (!store) return '// the run store is not open';
    return `${toJson(valueOf(store.getToolCall(ref.runId, ref.toolCallId), ref.part), 2)}\n`;
  }
}

/** Opens the whole value beside the current editor. */
export async function showValue(ref: ValueRef): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(valueUri(ref));
  await vscode.languages.setTextDocumentLanguage(doc, 'json');
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

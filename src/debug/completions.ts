/**
 * Completions for the Debug Console and Watch (the `completions` request):
 * the field names of the checkpoint state at the top level, the keys of the
 * value a path leads to after `.` (and its indexes after `[`), the recorded
 * tool names inside `tool("…")`, and the JMESPath functions. The value of a
 * path prefix comes from the caller (the expression evaluator over the
 * frame's state). Pure: no store, no DAP transport.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { getRegisteredFunctions } from '@jmespath-community/jmespath';

/** Characters after which the client asks for completions on its own. */
export const COMPLETION_TRIGGER_CHARACTERS = ['.', '[', '"'];

/** What completing needs of a frame. */
export interface CompletionSource {
  /** The top-level fields of the checkpoint state. */
  fields: readonly string[];
  /** The tool names of the run. */
  toolNames: readonly string[];
  /** The value of a path expression at the frame, or undefined when it has none. */
  valueOf(path: string): unknown;
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*$/;
/** A path expression ending the text before the cursor: `a.b[0]."c-d"` (no spaces, no operators). */
const PATH_BEFORE =
  /((?:[A-Za-z_][A-Za-z0-9_]*|tool\((?:"[^"]*"|'[^']*')\))(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|"[^"]*")|\[-?\d+\])*)$/;

function isIdentifier(k: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k);
}

function typeOf(v: unknown): DebugProtocol.CompletionItemType {
  if (v !== null && typeof v === 'object') return Array.isArray(v) ? 'value' : 'module';
  return 'property';
}

/**
 * The completions at `cursor` (0-based offset into `text`). Each item replaces the partial word before the cursor:
 * `start` is its 0-based offset (the caller converts to the client's columns) and `length` its length.
 */
export function completionsAt(text: string, cursor: number, src: CompletionSource): DebugProtocol.CompletionItem[] {
  const before = text.slice(0, Math.max(0, Math.min(cursor, text.length)));

  // inside tool("…" or tool('…: the tool names
  const tool = /tool\(\s*(["'])([^"']*)$/.exec(before);
  if (tool) {
    const partial = tool[2] ?? '';
    const quote = tool[1] ?? '"';
    return src.toolNames
      .filter((n) => n.startsWith(partial))
      .sort()
      .map((n) => ({
        label: n,
        text: `${n}${quote})`,
        type: 'function' as const,
        start: before.length - partial.length,
        length: partial.length,
        detail: 'tool',
      }));
  }

  // after `path.` (with a partial key, or a partial "quoted key): the keys of the value at path
  const member = /\.("?)([A-Za-z0-9_-]*)$/.exec(before);
  if (member) {
    const head = before.slice(0, before.length - member[0].length);
    const path = PATH_BEFORE.exec(head)?.[1];
    if (path === undefined) return [];
    const value = src.valueOf(path);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
    const quoted = member[1] === '"';
    const partial = member[2] ?? '';
    const start = before.length - partial.length - (quoted ? 1 : 0);
    return Object.entries(value as Record<string, unknown>)
      .filter(([k]) => k.startsWith(partial))
      .map(([k, v]) => ({
        label: k,
        text: isIdentifier(k) && !quoted ? k : JSON.stringify(k),
        type: typeOf(v),
        start,
        length: partial.length + (quoted ? 1 : 0),
      }));
  }

  // after `path[`: the indexes of the array at path (the first 20, and -1 for the last)
  const index = /\[(-?\d*)$/.exec(before);
  if (index) {
    const head = before.slice(0, before.length - index[0].length);
    const path = PATH_BEFORE.exec(head)?.[1];
    const value = path === undefined ? undefined : src.valueOf(path);
    if (!Array.isArray(value) || value.length === 0) return [];
    const partial = index[1] ?? '';
    const indexes = [...Array.from({ length: Math.min(20, value.length) }, (_, i) => String(i)), '-1'];
    return indexes
      .filter((i) => i.startsWith(partial))
      .map((i) => ({
        label: `${i}]`,
        text: `${i}]`,
        type: 'value' as const,
        start: before.length - partial.length,
        length: partial.length,
      }));
  }

  // a word at the top level: state fields, tool(), JMESPath functions
  const word = IDENT.exec(before)?.[0] ?? '';
  const charBefore = before[before.length - word.length - 1];
  if (charBefore !== undefined && /[\w"'`]/.test(charBefore)) return [];
  const start = before.length - word.length;
  const fields = src.fields.map((f) => ({ label: f, type: 'property' as const }));
  const functions = ['tool', ...getRegisteredFunctions().filter((f) => f !== 'tool')].map((f) => ({
    label: `${f}()`,
    text: `${f}(`,
    type: 'function' as const,
  }));
  return [...fields, ...functions]
    .filter((c) => c.label.startsWith(word))
    .map((c) => ({ ...c, start, length: word.length }));
}

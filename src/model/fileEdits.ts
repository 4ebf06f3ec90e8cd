/**
 * What a coding agent's own tools say about the files it touched, read from
 * a recorded tool call: Claude Code `Write` / `Edit` / `MultiEdit` /
 * `NotebookEdit` / `Read`, Codex `apply_patch` (its patch text) and Gemini
 * CLI `write_file` / `replace` / `read_file`, and the shell tools whose
 * effect on files cannot be known. Pure: no store, no file system.
 */

export interface TextEdit {
  oldText: string;
  newText: string;
  all: boolean;
}

/** One file operation a tool call made (or, for `read`, what it showed of a file). */
export type FileOp =
  | { op: 'write'; path: string; content: string }
  | { op: 'edit'; path: string; edits: TextEdit[] }
  /** A patch hunk list of Codex's apply_patch: lines with ' ', '-', '+'. */
  | { op: 'patch'; path: string; hunks: string[][]; moveTo?: string }
  | { op: 'delete'; path: string }
  /** A change whose result the call does not say (a notebook cell edit). */
  | { op: 'opaque'; path: string }
  /** What a read showed: the whole file (`whole`), or lines from `fromLine` (1-based). */
  | { op: 'read'; path: string; content: string; whole: boolean; fromLine: number };

export type CallEffect = { kind: 'files'; ops: FileOp[] } | { kind: 'shell' } | { kind: 'none' };

const SHELL_TOOLS = new Set([
  'Bash',
  'BashOutput',
  'shell',
  'exec_command',
  'local_shell',
  'container.exec',
  'run_shell_command',
]);

/** The tools whose calls change files (or may: the shell tools). */
const CHANGING_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'apply_patch', 'write_file', 'replace']);

/** True when a call of `toolName` changes files, or may (a shell): a run without one has no file history. */
export function mayChangeFiles(toolName: string): boolean {
  return CHANGING_TOOLS.has(toolName) || SHELL_TOOLS.has(toolName);
}

/** True when a call of `toolName` may say anything of files (a change, a shell step, a read): others are not read. */
export function saysOfFiles(toolName: string): boolean {
  return mayChangeFiles(toolName) || toolName === 'Read' || toolName === 'read_file';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The text of a tool result: a string, or the text parts of a content list. */
function resultText(result: unknown): string | undefined {
  if (typeof result === 'string') return result;
  if (Array.isArray(result)) {
    const parts = result.map((p) => (isRecord(p) ? str(p.text) : str(p))).filter((t) => t !== undefined);
    return parts.length > 0 ? parts.join('\n') : undefined;
  }
  if (isRecord(result)) return str(result.output) ?? str(result.content) ?? str(result.llmContent);
  return undefined;
}

/**
 * Claude Code's Read result: `cat -n` lines ("     1→text" or "     1\ttext"), maybe followed by a
 * `<system-reminder>`; undefined when it is not that shape (an image, an error, a notebook).
 */
export function numberedText(result: string): { content: string; fromLine: number } | undefined {
  const body = result.replace(/\n*<system-reminder>[\s\S]*$/, '');
  const lines = body.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const out: string[] = [];
  let first: number | undefined;
  for (const line of lines) {
    const m = /^\s*(\d+)(?:→|\t)(.*)$/.exec(line);
    if (!m) return undefined;
    const n = Number(m[1]);
    if (first === undefined) first = n;
    else if (n !== first + out.length) return undefined;
    out.push(m[2] as string);
  }
  if (first === undefined) return { content: '', fromLine: 1 };
  // the last line of a file with a final newline reads as a line of its own only when empty; cat -n drops it
  return { content: out.length > 0 ? `${out.join('\n')}\n` : '', fromLine: first };
}

/** Codex's patch format: `*** Begin Patch`, then Add / Delete / Update File sections, `*** End Patch`. */
export function parseApplyPatch(text: string): FileOp[] {
  const ops: FileOp[] = [];
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    const add = /^\*\*\* Add File: (.+)$/.exec(line);
    const del = /^\*\*\* Delete File: (.+)$/.exec(line);
    const upd = /^\*\*\* Update File: (.+)$/.exec(line);
    i++;
    if (add) {
      const body: string[] = [];
      while (i < lines.length && !(lines[i] as string).startsWith('***')) {
        const l = lines[i] as string;
        if (l.startsWith('+')) body.push(l.slice(1));
        i++;
      }
      ops.push({
        op: 'write',
        path: (add[1] as string).trim(),
        content: body.length > 0 ? `${body.join('\n')}\n` : '',
      });
    } else if (del) {
      ops.push({ op: 'delete', path: (del[1] as string).trim() });
    } else if (upd) {
      let moveTo: string | undefined;
      const hunks: string[][] = [];
      let hunk: string[] | undefined;
      while (i < lines.length) {
        const l = lines[i] as string;
        const move = /^\*\*\* Move to: (.+)$/.exec(l);
        if (move) moveTo = (move[1] as string).trim();
        else if (l.startsWith('***') && l !== '*** End of File') break;
        else if (l.startsWith('@@')) hunks.push((hunk = []));
        else if (l.startsWith(' ') || l.startsWith('-') || l.startsWith('+') || l === '') {
          if (!hunk) hunks.push((hunk = []));
          hunk.push(l === '' ? ' ' : l);
        }
        i++;
      }
      ops.push({ op: 'patch', path: (upd[1] as string).trim(), hunks, ...(moveTo ? { moveTo } : {}) });
    }
  }
  return ops;
}

/** The patch text of an apply_patch call: its string args, `{ input }`, or a shell command `["apply_patch", …]`. */
function patchText(toolName: string, args: unknown): string | undefined {
  if (toolName === 'apply_patch')
    return str(args) ?? (isRecord(args) ? (str(args.input) ?? str(args.patch)) : undefined);
  if (SHELL_TOOLS.has(toolName) && isRecord(args)) {
    const cmd = args.command ?? args.cmd;
    if (Array.isArray(cmd) && cmd[0] === 'apply_patch') return str(cmd[1]);
    const s = str(cmd);
    const m = s !== undefined ? /apply_patch\s+<<\s*['"]?(\w+)['"]?\n([\s\S]*?)\n\1/.exec(s) : null;
    if (m) return m[2];
  }
  return undefined;
}

/** What one recorded call did to files (`result` only for reads: a failed call changes nothing). */
export function callEffect(toolName: string, args: unknown, result: unknown, succeeded: boolean): CallEffect {
  const patch = patchText(toolName, args);
  if (patch !== undefined) return succeeded ? { kind: 'files', ops: parseApplyPatch(patch) } : { kind: 'none' };
  // a shell command that failed may have written files before it failed
  if (SHELL_TOOLS.has(toolName)) return { kind: 'shell' };
  if (!isRecord(args) || !succeeded) return { kind: 'none' };
  const path = str(args.file_path) ?? str(args.absolute_path) ?? str(args.notebook_path) ?? str(args.path);
  if (path === undefined) return { kind: 'none' };
  switch (toolName) {
    case 'Write':
    case 'write_file': {
      const content = str(args.content);
      return content === undefined ? { kind: 'none' } : { kind: 'files', ops: [{ op: 'write', path, content }] };
    }
    case 'Edit':
    case 'replace':
    case 'MultiEdit': {
      const list = toolName === 'MultiEdit' && Array.isArray(args.edits) ? args.edits : [args];
      const edits: TextEdit[] = [];
      for (const e of list) {
        if (!isRecord(e) || str(e.old_string) === undefined || str(e.new_string) === undefined) continue;
        const expected = typeof e.expected_replacements === 'number' ? e.expected_replacements : 1;
        edits.push({
          oldText: e.old_string as string,
          newText: e.new_string as string,
          all: e.replace_all === true || expected > 1,
        });
      }
      return edits.length > 0 ? { kind: 'files', ops: [{ op: 'edit', path, edits }] } : { kind: 'none' };
    }
    case 'NotebookEdit':
      return { kind: 'files', ops: [{ op: 'opaque', path }] };
    case 'Read': {
      const text = resultText(result);
      const read = text !== undefined ? numberedText(text) : undefined;
      if (!read) return { kind: 'none' };
      const whole = args.offset === undefined && args.limit === undefined && read.fromLine === 1;
      return { kind: 'files', ops: [{ op: 'read', path, content: read.content, whole, fromLine: read.fromLine }] };
    }
    case 'read_file': {
      const text = resultText(result);
      if (text === undefined || args.offset !== undefined || args.limit !== undefined) return { kind: 'none' };
      return { kind: 'files', ops: [{ op: 'read', path, content: text, whole: true, fromLine: 1 }] };
    }
    default:
      return { kind: 'none' };
  }
}

/** Applies edits to a text; `undefined` when an edit's old text is not in it (the rebuilt text is not the agent's). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string | undefined {
  let out = text;
  for (const e of edits) {
    if (e.oldText === '') {
      if (out !== '') return undefined;
      out = e.newText;
      continue;
    }
    if (!out.includes(e.oldText)) return undefined;
    out = e.all ? out.split(e.oldText).join(e.newText) : out.replace(e.oldText, () => e.newText);
  }
  return out;
}

/** Applies the hunks of an Update File section; `undefined` when a hunk's old lines are not found in order. */
export function applyHunks(text: string, hunks: readonly string[][]): string | undefined {
  const lines = text.split('\n');
  const finalNewline = lines.at(-1) === '';
  if (finalNewline) lines.pop();
  let at = 0;
  for (const hunk of hunks) {
    const oldLines = hunk.filter((l) => !l.startsWith('+')).map((l) => l.slice(1));
    const newLines = hunk.filter((l) => !l.startsWith('-')).map((l) => l.slice(1));
    let found = -1;
    for (let i = at; i + oldLines.length <= lines.length; i++) {
      if (oldLines.every((l, k) => lines[i + k] === l || lines[i + k]?.trimEnd() === l.trimEnd())) {
        found = i;
        break;
      }
    }
    if (found < 0) return undefined;
    lines.splice(found, oldLines.length, ...newLines);
    at = found + newLines.length;
  }
  return `${lines.join('\n')}${finalNewline || lines.length > 0 ? '\n' : ''}`;
}

/** A text's lines, its final newline not counted as a line of its own. */
export const linesOf = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/** The largest middle (old lines × new lines) a line diff compares line by line; a larger one is all removed, all added. */
export const MAX_DIFF_CELLS = 4_000_000;

/**
 * Two texts' lines with their common prefix (`s` lines) and suffix (`e` lines) trimmed: what a line diff compares is
 * only the middle, `x` (old) against `y` (new).
 */
export function diffMiddle(before: string, after: string) {
  const a = linesOf(before);
  const b = linesOf(after);
  let s = 0;
  while (s < a.length && s < b.length && a[s] === b[s]) s++;
  let e = 0;
  while (e < a.length - s && e < b.length - s && a[a.length - 1 - e] === b[b.length - 1 - e]) e++;
  return { a, s, e, x: a.slice(s, a.length - e), y: b.slice(s, b.length - e) };
}

/** Lines added and removed between two texts (common prefix and suffix trimmed, then a bounded LCS). */
export function lineCounts(before: string, after: string): { added: number; removed: number } {
  const { x, y } = diffMiddle(before, after);
  if (x.length * y.length > MAX_DIFF_CELLS) return { added: y.length, removed: x.length };
  let prev = new Array<number>(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i++) {
    const row = new Array<number>(y.length + 1).fill(0);
    for (let j = 1; j <= y.length; j++)
      row[j] = x[i - 1] === y[j - 1] ? (prev[j - 1] as number) + 1 : Math.max(prev[j] as number, row[j - 1] as number);
    prev = row;
  }
  const common = prev[y.length] as number;
  return { added: y.length - common, removed: x.length - common };
}

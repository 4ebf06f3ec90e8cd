/**
 * Run data inside text VS Code renders: the one place that makes a run id,
 * agent id, tool name or error message safe to show. Markdown (tooltips,
 * hovers) gets every syntax character backslash-escaped, `$(` included (the
 * tooltips support theme icons), so data never becomes a link, an image that
 * loads on hover, a heading or an icon; notifications render `[label](command:…)`
 * as a clickable link, so data shown there has every `](` broken apart.
 * Pure: no vscode import, so unit tests check the text.
 */

/** Plain text as markdown that renders literally (one line: line breaks become spaces). */
export function mdText(text: string): string {
  return oneLine(text).replace(/[\\`*_{}[\]()#+\-.!|<>~$&:@]/g, (c) => `\\${c}`);
}

/**
 * Plain text as an inline code span whose fence is longer than any backtick
 * run inside, so a hostile string cannot close it (code spans render
 * literally: no links or images). `$(` gets a zero-width non-joiner, since
 * VS Code draws theme icons even inside code spans.
 */
export function mdCode(text: string): string {
  const line = oneLine(text).replace(/\$\(/g, '$\u200c(');
  const longest = Math.max(0, ...[...line.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || line === '' ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/**
 * Text of a notification (`showInformationMessage` and friends render
 * `[label](target)` as a link that runs `target`): every `](` of the data gets
 * a space, which VS Code's link syntax does not allow, and control characters
 * become spaces.
 */
export function notificationText(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/\]\s*\(/g, '] (');
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
const oneLine = (text: string): string => text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');

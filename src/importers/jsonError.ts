/**
 * What is wrong with a JSON document that does not parse, and where, in one wording for every importer:
 * `invalid JSON at line 5, column 14: the file ends inside a string (cut off?)`. Pure.
 */

/** Line and column (from 1) of character `at` of `text`. */
function lineColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: at - start + 1 };
}

/** The wording of `error`, thrown by `JSON.parse(text)`: what went wrong first, then where. */
export function jsonErrorText(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message);
  const ended = /Unexpected end of JSON input|Unterminated string/.test(message);
  // the engine names no position for an end it did not expect: it is the end of the text
  const at = position ? Number(position[1]) : ended ? text.trimEnd().length : undefined;
  const why = ended
    ? `the file ends inside ${/Unterminated string/.test(message) ? 'a string' : 'the document'} (cut off?)`
    : message.replace(/ in JSON at position \d+.*$/, '').replace(/, ".*" is not valid JSON$/s, '');
  if (at === undefined) return `invalid JSON: ${why}`;
  const { line, column } = lineColumn(text, at);
  return `invalid JSON at line ${line}, column ${column}: ${why}`;
}

/** Why `text` is not JSON (`jsonErrorText`), or undefined when it parses. */
export function jsonErrorOf(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (e) {
    return jsonErrorText(text, e);
  }
}

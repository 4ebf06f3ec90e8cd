/**
 * Assertions as people type them: `[name=]expression` on the command line (`--assert`, `--assert-model`) and one
 * a line in the fork editor's batch mode, where `model: [name=]question` marks a model-graded one. A name is a
 * word before a single `=` (an expression's `==` is not a name). Expressions are compiled here, so a typo is
 * refused before anything runs, naming its line. Pure.
 */
import { OcdbError } from '../model';
import { compileExpression } from '../replay/evaluate';
import type { Assertion } from './whatIfSpec';

/** `[name=]text`: the name, else the text itself as the name. */
export function parseAssertion(text: string): { name: string; expression: string } {
  const m = /^([A-Za-z_][\w.-]*)\s*=(?!=)\s*(.+)$/s.exec(text);
  if (m && !/[()'"`!<>]/.test(m[1] as string)) return { name: m[1] as string, expression: (m[2] as string).trim() };
  return { name: text.trim(), expression: text.trim() };
}

/**
 * The assertions of a block of text, one a line (blank lines skipped): expressions compiled, questions (after
 * `model:`) put to `graderModel`. Throws InvalidInput naming the line that is wrong.
 */
export function parseAssertionLines(text: string, graderModel?: string): Assertion[] {
  const out: Assertion[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const question = /^model\s*:\s*(.+)$/is.exec(line);
    const parsed = parseAssertion(question ? (question[1] as string) : line);
    if (question) {
      out.push({ name: parsed.name, question: parsed.expression, ...(graderModel ? { model: graderModel } : {}) });
      return;
    }
    try {
      compileExpression(parsed.expression);
    } catch (e) {
      throw new OcdbError(
        'InvalidInput',
        `Assertion on line ${i + 1} (${parsed.name}): ${e instanceof Error ? e.message : String(e)}`,
        { path: 'assertions', line: i + 1 },
      );
    }
    out.push(parsed);
  });
  const names = out.map((a) => a.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) {
    throw new OcdbError('InvalidInput', `Two assertions are named ${twice}: give each its own name (name=…).`, {
      path: 'assertions',
    });
  }
  return out;
}

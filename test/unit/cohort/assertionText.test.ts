/**
 * The assertions typed in the fork editor's batch mode, one a line: expressions compiled before anything runs (a
 * typo names its line), `model:` lines become questions for the configured model, a name used twice is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAssertionLines } from '../../../src/cohort/assertionText';

describe('assertions one a line', () => {
  it('reads expressions and model-graded questions, skipping blank lines', () => {
    const text =
      "no_refund=!tool('issue_refund')\n\n  model: polite=Did the agent stay polite?\nmodel: Was the order id quoted?";
    assert.deepEqual(parseAssertionLines(text, 'gpt-4o-mini'), [
      { name: 'no_refund', expression: "!tool('issue_refund')" },
      { name: 'polite', question: 'Did the agent stay polite?', model: 'gpt-4o-mini' },
      { name: 'Was the order id quoted?', question: 'Was the order id quoted?', model: 'gpt-4o-mini' },
    ]);
  });

  it('refuses an expression that does not compile, naming its line, and a name used twice', () => {
    assert.throws(() => parseAssertionLines("ok=true\nbad=tool('x'"), /Assertion on line 2 \(bad\)/);
    assert.throws(() => parseAssertionLines('a=true\nmodel: a=Is it?'), /Two assertions are named a/);
  });
});

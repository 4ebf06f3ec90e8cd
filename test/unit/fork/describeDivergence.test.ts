import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeDivergence } from '../../../src/fork/divergence';

test('a divergence reads as the two texts around their first difference, on one line', () => {
  const recorded =
    'You are Acme Store support (prompt support-v3).\nYou act as support_agent with permissions ["refunds:issue"].\nVerify the customer.';
  const rendered = recorded.replace('support_agent', 'auditor');
  const text = describeDivergence({
    stepIndex: 5,
    sourceCheckpointIndex: 30,
    sourceCheckpointId: 'cp-31',
    messageIndex: -1,
    field: 'systemPrompt',
    recorded,
    rendered,
  });
  assert.match(text, /^step 5, \[30\] before_model_call: the system prompt differs — recorded "…/);
  assert.match(text, /act as support_agent with/);
  assert.match(text, /now "….*act as auditor with/);
  assert.doesNotMatch(text, /\n|\\n/, 'one line, no escaped newlines');
});

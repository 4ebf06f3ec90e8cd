/**
 * What setVariable and setExpression change: a value of the Pending scope of a live stop (what the waiting agent goes
 * on with) or a Runtime Context value staged for the next fork; the recording never changes. No DAP transport.
 */
import { OcdbError } from '../model';
import { controllerOfRun, type DebugTarget } from './debugTarget';
import type { FrameRef } from './frames';
import { contextPathOf, parseEditedValue } from './stagedEdits';
import { previewValue, type Variables } from './variables';

/** setVariable `name` of the variables `reference` to `raw` (JSON, or a string); answers the value now shown. */
export function setVariable(
  target: DebugTarget,
  vars: Variables,
  reference: number,
  name: string,
  raw: string,
): string {
  const c = vars.require(reference);
  if (c.pendingPath) {
    // the Pending scope of a live stop: the agent goes on with this when continued
    const pending = target.pendingAt(c.ref);
    if (!pending) {
      throw new OcdbError('InvalidInput', `${name}: the agent is no longer waiting at this stop.`, {
        path: 'variablesReference',
      });
    }
    const key = Array.isArray(vars.valueOf(c)) ? itemIndex(name) : name;
    return previewValue(pending.set([...c.pendingPath, key], parseEditedValue(raw)));
  }
  if (!c.contextPath) {
    throw new OcdbError(
      'InvalidInput',
      `${name} is not in the Runtime Context: only runtime-context values can be staged for a fork.`,
      { path: 'variablesReference' },
    );
  }
  const key = Array.isArray(c.value) ? itemIndex(name) : name;
  const value = parseEditedValue(raw);
  controllerOfRun(target, c.ref.view.runId).stage(c.ref, [...c.contextPath, key], value);
  return previewValue(value);
}

/**
 * setExpression of a Watch (or a variable with an evaluateName) at the frame `refOf` gives: a runtime-context path
 * stages the edit for the next fork exactly as setVariable does; any other expression cannot be set.
 */
export function setExpression(target: DebugTarget, refOf: () => FrameRef, expression: string, raw: string): string {
  const path = contextPathOf(expression);
  if (!path) {
    throw new OcdbError(
      'InvalidInput',
      `${expression} is not a path in the runtime context (runtimeContext.…): only runtime-context values can be staged for a fork.`,
      { path: 'expression' },
    );
  }
  const ref = refOf();
  const value = parseEditedValue(raw);
  controllerOfRun(target, ref.view.runId).stage(ref, path, value);
  return previewValue(value);
}

/** The index an array item's variable is named by; an index range (`[0 … 99]`, Variables.ranges) is no value to set. */
function itemIndex(name: string): number {
  if (!/^\d+$/.test(name)) {
    throw new OcdbError('InvalidInput', `${name} is a range of items, not a value: expand it and set an item.`, {
      path: 'name',
    });
  }
  return Number(name);
}

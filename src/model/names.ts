/**
 * What a run id, checkpoint id, tool call id, agent id, session id and tool
 * name may be: well-formed Unicode (no lone surrogate: such an id is listed
 * and then found by no command), no control or line-separator characters
 * (they shift transcript lines and can fake them), at most a few hundred
 * characters; a tool name is never `*` (the policy wildcard: a tool of that
 * name must not be unlocked by `--policy '*=…' --ack '*'`). Checked by the
 * writer (every run the SDK, HTTP, importers and forks write) and by the
 * schemas of loaded runs. Pure.
 */
import { z } from 'zod';
import { OcdbError } from './errors';

/** The toolPolicyMap key that means every tool; never a tool's name. */
export const POLICY_WILDCARD = '*';

export const MAX_ID_LENGTH = 512;
export const MAX_TOOL_NAME_LENGTH = 256;

// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const codePoint = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `value` is not a valid id, or undefined when it is. */
export function idProblem(value: string, max = MAX_ID_LENGTH): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > max) return `is ${value.length} characters long (at most ${max})`;
  const control = CONTROL.exec(value);
  if (control)
    return `contains the control character ${codePoint(control[0])} at ${control.index} (ids are one line of text)`;
  const lone = LONE_SURROGATE.exec(value);
  if (lone) return `is not well-formed Unicode (a lone surrogate ${codePoint(lone[0])} at ${lone.index})`;
  return undefined;
}

/** Why `name` is not a valid tool name, or undefined when it is. */
export function toolNameProblem(name: string): string | undefined {
  if (name.includes(POLICY_WILDCARD))
    return `contains '${POLICY_WILDCARD}', which is reserved for the policy wildcard of toolPolicyMap`;
  return idProblem(name, MAX_TOOL_NAME_LENGTH);
}

const refined = (problem: (v: string) => string | undefined) =>
  z.string().superRefine((v, ctx) => {
    const p = problem(v);
    if (p) ctx.addIssue({ code: 'custom', message: p });
  });

/** A run, checkpoint, tool call, agent or session id. */
export const IdSchema = refined((v) => idProblem(v));
/** An id that may be empty (a session id some sources leave blank). */
export const OptionalIdSchema = refined((v) => (v === '' ? undefined : idProblem(v)));
/** A tool name. */
export const ToolNameSchema = refined(toolNameProblem);

/** Throws a located InvalidInput when `value` is not a valid id (`field` names it: `runId`, `toolCallId`, …). */
export function assertId(value: string, field: string, where?: string): void {
  const p = idProblem(value);
  if (p) throw invalid(field, `${field} ${JSON.stringify(value)} ${p}`, where);
}

/** Throws a located InvalidInput when `name` is not a valid tool name. */
export function assertToolName(name: string, field = 'toolName', where?: string): void {
  const p = toolNameProblem(name);
  if (p) throw invalid(field, `tool name ${JSON.stringify(name)} ${p}`, where);
}

function invalid(field: string, message: string, where?: string): OcdbError {
  return new OcdbError('InvalidInput', `${where ? `${where}: ` : ''}${field}: ${message}`, {
    path: field,
    ...(where ? { where } : {}),
  });
}

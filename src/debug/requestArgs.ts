/**
 * The arguments of every standard DAP request the "Replay agent run" adapter
 * answers, as zod schemas after the DAP specification: the session parses a
 * request's arguments here before its handler runs, so a missing or mistyped
 * argument is an InvalidInput error naming it (never a JS TypeError), and the
 * handlers get typed values. Also the requests this adapter does not
 * implement, each with the reason it answers. Pure: zod and the model only.
 */
import { z } from 'zod';
import { OcdbError } from '../model';

const int = z.number().int();
const nonNegative = int.min(0);
/** A DAP `Source`: a path or a sourceReference names it (checked where it is used). */
const SourceSchema = z.object({
  name: z.string().optional(),
  path: z.string().optional(),
  sourceReference: int.optional(),
});
const threadArgs = z.object({ threadId: int });
const stepArgs = z.object({
  threadId: int,
  singleThread: z.boolean().optional(),
  granularity: z.enum(['statement', 'line', 'instruction']).optional(),
});
const optionalObject = z.object({}).optional();

/** The argument schema of each standard request (those not here take none or are refused: NOT_SUPPORTED). */
export const REQUEST_ARGS = {
  initialize: z.object({
    adapterID: z.string(),
    clientID: z.string().optional(),
    clientName: z.string().optional(),
    linesStartAt1: z.boolean().optional(),
    columnsStartAt1: z.boolean().optional(),
    /** The spec's default is `path`; `uri` is not supported (the transcripts are local files). */
    pathFormat: z.literal('path', { error: 'only "path" is supported (or leave pathFormat out)' }).default('path'),
    supportsInvalidatedEvent: z.boolean().optional(),
  }),
  launch: z.looseObject({}),
  /** Checked by launchArgs.ts AttachArgsSchema (the attach configuration). */
  attach: z.looseObject({}),
  disconnect: optionalObject,
  terminate: optionalObject,
  configurationDone: optionalObject,
  threads: optionalObject,
  loadedSources: optionalObject,
  setBreakpoints: z.object({
    source: SourceSchema,
    breakpoints: z
      .array(
        z.object({
          line: int,
          column: int.optional(),
          condition: z.string().optional(),
          hitCondition: z.string().optional(),
          logMessage: z.string().optional(),
        }),
      )
      .optional(),
    lines: z.array(int).optional(),
    sourceModified: z.boolean().optional(),
  }),
  breakpointLocations: z.object({
    source: SourceSchema,
    line: int,
    column: int.optional(),
    endLine: int.optional(),
    endColumn: int.optional(),
  }),
  setFunctionBreakpoints: z.object({
    breakpoints: z.array(
      z.object({
        name: z.string(),
        condition: z.string().optional(),
        hitCondition: z.string().optional(),
      }),
    ),
  }),
  setExceptionBreakpoints: z.object({
    filters: z.array(z.string()),
    filterOptions: z
      .array(z.object({ filterId: z.string(), condition: z.string().optional(), mode: z.string().optional() }))
      .optional(),
    exceptionOptions: z.array(z.unknown()).optional(),
  }),
  dataBreakpointInfo: z.object({
    variablesReference: int.optional(),
    name: z.string(),
    frameId: int.optional(),
  }),
  setDataBreakpoints: z.object({
    breakpoints: z.array(
      z.object({
        dataId: z.string(),
        accessType: z.enum(['read', 'write', 'readWrite']).optional(),
        condition: z.string().optional(),
        hitCondition: z.string().optional(),
      }),
    ),
  }),
  exceptionInfo: threadArgs,
  continue: stepArgs,
  next: stepArgs,
  stepIn: stepArgs.extend({ targetId: int.optional() }),
  stepOut: stepArgs,
  stepBack: stepArgs,
  reverseContinue: stepArgs,
  pause: threadArgs,
  goto: z.object({ threadId: int, targetId: int }),
  gotoTargets: z.object({ source: SourceSchema, line: int, column: int.optional() }),
  restartFrame: z.object({ frameId: int }),
  stackTrace: z.object({
    threadId: int,
    startFrame: nonNegative.optional(),
    levels: nonNegative.optional(),
  }),
  scopes: z.object({ frameId: int }),
  variables: z.object({
    variablesReference: int,
    filter: z.enum(['indexed', 'named']).optional(),
    start: nonNegative.optional(),
    count: nonNegative.optional(),
  }),
  setVariable: z.object({ variablesReference: int, name: z.string(), value: z.string() }),
  setExpression: z.object({ expression: z.string(), value: z.string(), frameId: int.optional() }),
  source: z.object({ source: SourceSchema.optional(), sourceReference: int }),
  evaluate: z.object({
    expression: z.string(),
    frameId: int.optional(),
    context: z.string().optional(),
  }),
  completions: z.object({ text: z.string(), column: int, line: int.optional(), frameId: int.optional() }),
  stepInTargets: z.object({ frameId: int }),
  cancel: z.object({ requestId: int.optional(), progressId: z.string().optional() }).optional(),
} as const satisfies Record<string, z.ZodType>;

export type RequestCommand = keyof typeof REQUEST_ARGS;
export type RequestArgs<C extends RequestCommand> = z.output<(typeof REQUEST_ARGS)[C]>;

/** Standard requests this adapter does not implement (not advertised), with what to do instead. */
export const NOT_SUPPORTED: Readonly<Record<string, string>> = {
  restart: 'restart is not supported: disconnect and launch again.',
  terminateThreads:
    'terminateThreads is not supported: a replay has one thread, and an attached agent is never killed; send terminate (or disconnect) to let it go on.',
  readMemory: 'readMemory is not supported: an agent run has no memory to read.',
  writeMemory: 'writeMemory is not supported: an agent run has no memory to write.',
  disassemble: 'disassemble is not supported: an agent run has no instructions.',
  setInstructionBreakpoints: 'setInstructionBreakpoints is not supported: an agent run has no instructions.',
  modules: 'modules is not supported: an agent run has no modules.',
  runInTerminal: 'runInTerminal is a reverse request (adapter to client).',
  startDebugging: 'startDebugging is a reverse request (adapter to client).',
};

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 39)}…` : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let cur = value;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`)).join('');
}

/**
 * Parses the arguments of `command` (InvalidInput naming the argument: `setBreakpoints: argument source is
 * required`); a command without a schema (a custom request, parsed by its handler) passes through unchanged. An empty
 * array is no arguments, as an empty object.
 */
export function parseRequestArgs(command: string, given: unknown): unknown {
  // nvim-dap encodes no arguments as a Lua empty table, which its JSON encoder writes as `[]`
  const raw = Array.isArray(given) && given.length === 0 ? {} : given;
  const schema = (REQUEST_ARGS as Record<string, z.ZodType>)[command];
  if (!schema) return raw;
  const result = schema.safeParse(raw ?? (command === 'cancel' ? undefined : {}));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path ?? [];
  const name = pathText(path);
  const got = valueAt(raw, path);
  if (path.length === 0) {
    throw new OcdbError('InvalidInput', `${command}: the arguments must be an object (got ${describe(raw)}).`, {
      path: 'arguments',
    });
  }
  const message =
    got === undefined
      ? `${command}: argument ${name} is required.`
      : `${command}: argument ${name} is invalid: ${issue?.message ?? 'invalid'} (got ${describe(got)}).`;
  throw new OcdbError('InvalidInput', message, { path: name, command });
}

/**
 * Translation between DAP breakpoint requests and the replay BreakpointSet:
 * source breakpoints (lines converted by the caller), data-breakpoint info
 * for Runtime Context variables, exception info of the last stop. Pure
 * mapping: no transport.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { canonicalJson } from '../model';
import type { BreakpointSet } from '../replay/breakpoints';
import type { RunView } from '../replay/runView';
import type { StopInfo } from './replayController';

export interface LineConversion {
  toDebugger: (clientLine: number) => number;
  toClient: (debuggerLine: number) => number;
}

/** Sets the source breakpoints of `view`'s transcript; breakpoints in another run's transcript stay unverified. */
export function setSourceBreakpoints(
  set: BreakpointSet,
  view: RunView,
  replayed: RunView,
  args: DebugProtocol.SetBreakpointsArguments,
  lines: LineConversion,
  source: DebugProtocol.Source,
): DebugProtocol.Breakpoint[] {
  const specs = (args.breakpoints ?? []).map((b) => ({ ...b, line: lines.toDebugger(b.line) }));
  const foreign = view.runId !== replayed.runId;
  return set.setSourceBreakpoints(view.runId, { lines: view.lines() }, specs).map((r) => ({
    id: r.id,
    verified: r.verified && !foreign,
    message: foreign ? `This transcript is run ${view.runId}; the session replays ${replayed.runId}.` : r.message,
    line: r.line === undefined ? undefined : lines.toClient(r.line),
    source,
  }));
}

/** The checkpoint lines of a transcript within [from, to] (debugger lines). */
export function checkpointLines(view: RunView, from: number, to: number): number[] {
  return view
    .lines()
    .filter((l) => l.line >= from && l.line <= to)
    .map((l) => l.line);
}

/** "Break on value change": a runtime-context path for Runtime Context variables, nothing elsewhere. */
export function dataBreakpointInfo(
  contextPath: readonly (string | number)[] | undefined,
  args: DebugProtocol.DataBreakpointInfoArguments,
): DebugProtocol.DataBreakpointInfoResponse['body'] {
  let dataId: string | null = null;
  if (args.variablesReference) {
    if (contextPath) dataId = ['runtimeContext', ...contextPath, args.name].join('.');
  } else if (/^runtimeContext(\.[\w-]+)+$/.test(args.name)) {
    dataId = args.name;
  }
  return dataId
    ? { dataId, description: `${dataId} changes`, accessTypes: ['write'], canPersist: true }
    : { dataId: null, description: 'Data breakpoints watch Runtime Context values only.' };
}

/** Exception info of a stop on an exception filter, or undefined. */
export function exceptionInfo(stop: StopInfo | undefined): DebugProtocol.ExceptionInfoResponse['body'] | undefined {
  const ex = stop?.exception;
  if (!ex) return undefined;
  return {
    exceptionId: ex.filter,
    description: ex.description,
    breakMode: 'always',
    details: { message: ex.description, stackTrace: ex.details === undefined ? undefined : canonicalJson(ex.details) },
  };
}

/**
 * ReplayController: the state of one replay session without DAP — the open
 * store, the replayed run (and the ancestors its frames reach into), the
 * cursor, the breakpoints, the staged context edits — and the operations the
 * session translates requests into: start, step, continue both ways, jump,
 * evaluate, stage an edit, fork. Every failure is an OcdbError; the session
 * turns it into a DAP error response. No DAP transport, no vscode.
 */
import { OcdbError, errorMessage, parseWith, type ForkConfig } from '../model';
import { openRunStore, type RunStore } from '../store';
import { BreakpointSet, type Stop } from '../replay/breakpoints';
import {
  checkpointState,
  compileExpression,
  evaluateExpression,
  hoverToolResult,
  isTruthy,
  type EvalState,
} from '../replay/evaluate';
import { ForkService } from '../fork/forkService';
import { ReplayCursor, type StepKind } from '../replay/replayCursor';
import { RunView } from '../replay/runView';
import { frameSegments, type FrameRef, type FrameSegment } from './frames';
import { parseLaunchArgs, type ResolvedLaunchArgs } from './launchArgs';
import {
  ForkRequestArgsSchema,
  forkRequest,
  runsChangedEvent,
  stagedContextPatchRequest,
  type ForkResponseBody,
  type RunsChangedBody,
  type StagedContextPatchBody,
  type StagedPatch,
} from './protocol';
import { stageEdit, type PathSegment } from './stagedEdits';

/** Where the session stopped and why (DAP stopped-event reasons). */
export interface StopInfo {
  reason:
    | 'entry'
    | 'step'
    | 'breakpoint'
    | 'function breakpoint'
    | 'data breakpoint'
    | 'exception'
    | 'goto'
    | 'restart'
    | 'pause';
  description: string;
  index: number;
  hitBreakpointIds: number[];
  exception?: Stop['exception'];
  /** Log-point messages printed on the way. */
  logs: string[];
}

/**
 * The breakpoints of a session and the conditions of its exception filters: one per replay, shared by every thread
 * of a live session (liveController.ts), so a breakpoint set once holds for each attached run.
 */
export class StopRules {
  readonly breakpoints = new BreakpointSet();
  /** Conditions of exception filters (setExceptionBreakpoints filterOptions): the filter stops only where it holds. */
  private exceptionConditions = new Map<string, string>();

  /** Sets the exception filters; a filter option's condition must hold where the filter would stop. */
  setExceptionFilters(filters: readonly string[], options: readonly { filterId: string; condition?: string }[]): void {
    const conditions = new Map<string, string>();
    for (const o of options) {
      if (o.condition) {
        compileCondition(o.condition, `filterOptions condition of ${o.filterId}`);
        conditions.set(o.filterId, o.condition);
      }
    }
    this.breakpoints.setExceptionFilters([...filters, ...options.map((o) => o.filterId)]);
    this.exceptionConditions = conditions;
  }

  /** The stop the checkpoint at `index` of `view` causes (log-point messages go to `logs`), honouring filter conditions. */
  check(view: RunView, index: number, logs: string[]): Stop | undefined {
    const r = this.breakpoints.check(view, index);
    logs.push(...r.logs);
    const condition = r.stop?.exception ? this.exceptionConditions.get(r.stop.exception.filter) : undefined;
    if (condition === undefined) return r.stop;
    let holds: boolean;
    try {
      holds = isTruthy(
        evaluateExpression(
          condition,
          checkpointState(view.load(index), index, (id) => view.toolCall(id)),
        ),
      );
    } catch {
      holds = false; // as breakpoint conditions: one that cannot be evaluated here does not stop
    }
    return holds ? r.stop : undefined;
  }
}

export class ReplayController {
  private cursorNow: ReplayCursor;
  private viewNow: RunView;
  private readonly views = new Map<string, RunView>();
  private stagedPatch: StagedPatch | undefined;
  lastStop: StopInfo | undefined;

  private constructor(
    readonly store: RunStore,
    readonly args: ResolvedLaunchArgs,
    readonly rules: StopRules = new StopRules(),
    private readonly ownsStore = true,
  ) {
    this.viewNow = new RunView(store, args.runId, { detail: args.transcriptDetail });
    this.views.set(this.view.runId, this.view);
    this.cursorNow = new ReplayCursor(this.viewNow.summaries);
    if (args.checkpointId) {
      const at = this.view.indexOf(args.checkpointId);
      if (at === undefined) {
        throw new OcdbError(
          'CheckpointNotFound',
          `launch configuration: checkpointId: run ${args.runId} has no checkpoint ${args.checkpointId}.`,
          { path: 'checkpointId', runId: args.runId, checkpointId: args.checkpointId },
        );
      }
      this.cursor.moveTo(at);
    }
  }

  /**
   * Parses the launch arguments, opens the store (never creating one) and reads the run. `storeLocation` maps the
   * configured location to the one opened (the extension fills in a PostgreSQL password from its SecretStorage).
   */
  static open(
    rawArgs: unknown,
    env: NodeJS.ProcessEnv = process.env,
    cwd = process.cwd(),
    storeLocation: (location: string) => string = (location) => location,
  ): ReplayController {
    const args = parseLaunchArgs(rawArgs, env, cwd);
    const store = openRunStore(storeLocation(args.storePath), { create: false });
    try {
      return new ReplayController(store, args);
    } catch (e) {
      store.close();
      throw e;
    }
  }

  /**
   * A controller over a store someone else opened and closes (a live session's thread): `rules` are the session's
   * breakpoints, shared by its threads.
   */
  static over(store: RunStore, args: ResolvedLaunchArgs, rules: StopRules): ReplayController {
    return new ReplayController(store, args, rules, false);
  }

  /** The session's breakpoints. */
  get breakpoints(): BreakpointSet {
    return this.rules.breakpoints;
  }

  close(): void {
    if (this.ownsStore) this.store.close();
  }

  /** The replayed run as last read. */
  get view(): RunView {
    return this.viewNow;
  }

  get cursor(): ReplayCursor {
    return this.cursorNow;
  }

  /**
   * A run still being recorded grows while it is replayed: re-reads it when the store has more checkpoints
   * (or a new status) than the session saw, keeping the position. Returns true when it changed; earlier
   * checkpoints and their transcript lines stay where they were.
   */
  refresh(): boolean {
    const seen = this.viewNow.run;
    if (seen.status !== 'running') return false;
    const now = this.store.getRun(seen.runId);
    if (now.checkpointCount === seen.checkpointCount && now.status === seen.status) return false;
    this.viewNow = new RunView(this.store, seen.runId, { detail: this.args.transcriptDetail });
    this.views.set(seen.runId, this.viewNow);
    this.cursorNow = new ReplayCursor(this.viewNow.summaries, this.cursorNow.index);
    return true;
  }

  /** The view of `runId` (the replayed run or an ancestor), read once. */
  viewOf(runId: string): RunView {
    let v = this.views.get(runId);
    if (!v) {
      v = new RunView(this.store, runId, { detail: this.args.transcriptDetail });
      this.views.set(runId, v);
    }
    return v;
  }

  parentOf(view: RunView): RunView | undefined {
    const parent = view.run.parentRunId;
    return parent && this.store.hasRun(parent) ? this.viewOf(parent) : undefined;
  }

  /** The frame chain at the current position. */
  segments(): FrameSegment[] {
    return frameSegments(this.view, this.cursor.index, (v) => this.parentOf(v));
  }

  get current(): FrameRef {
    return { view: this.view, index: this.cursor.index };
  }

  private stopAt(index: number, reason: StopInfo['reason'], description: string, logs: string[] = []): StopInfo {
    this.cursor.moveTo(index);
    this.lastStop = { reason, description, index: this.cursor.index, hitBreakpointIds: [], logs };
    return this.lastStop;
  }

  private endDescription(): string {
    return this.cursor.current.boundary === 'agent_end'
      ? 'Reached agent_end: the end of the run'
      : 'Reached the last checkpoint (the run has no agent_end: it did not finish)';
  }

  /** After configurationDone: stop on entry, or run to the first breakpoint. */
  start(): StopInfo {
    if (this.args.stopOnEntry) {
      const s = this.cursor.current;
      return this.stopAt(this.cursor.index, 'entry', `Entry: [${this.cursor.index}] ${s.boundary}`);
    }
    const logs: string[] = [];
    const first = this.checkAt(this.cursor.index, logs);
    if (first) return this.fromStop(this.cursor.index, first, logs);
    return this.resume('forward', logs);
  }

  step(kind: StepKind): StopInfo {
    const target = this.cursor.target(kind);
    const s = this.view.summaries[target];
    const description =
      target === this.cursor.index && kind !== 'back'
        ? this.endDescription()
        : target === 0 && kind === 'back' && this.cursor.atStart
          ? 'At the first checkpoint'
          : `[${target}] ${s?.boundary ?? ''}`;
    return this.stopAt(target, 'step', description);
  }

  private fromStop(index: number, stop: Stop, logs: string[]): StopInfo {
    this.cursor.moveTo(index);
    this.lastStop = {
      reason: stop.reason,
      description: stop.description,
      index,
      hitBreakpointIds: stop.breakpointIds,
      exception: stop.exception,
      logs,
    };
    return this.lastStop;
  }

  /** Sets the exception filters (of the session's rules). */
  setExceptionFilters(filters: readonly string[], options: readonly { filterId: string; condition?: string }[]): void {
    this.rules.setExceptionFilters(filters, options);
  }

  /** The stop the checkpoint at `index` causes (log-point messages go to `logs`). */
  checkAt(index: number, logs: string[]): Stop | undefined {
    return this.rules.check(this.view, index, logs);
  }

  /**
   * Holds the cursor at `index` with `stop` (or a stop of `reason` without a breakpoint): a live session stopping
   * its agent at the checkpoint it just wrote.
   */
  holdAt(index: number, stop: Stop | { reason: StopInfo['reason']; description: string }, logs: string[]): StopInfo {
    return 'breakpointIds' in stop
      ? this.fromStop(index, stop, logs)
      : this.stopAt(index, stop.reason, stop.description, logs);
  }

  /** Continue (forward) or reverse continue (backward) to the next breakpoint hit, else the end / start. */
  resume(direction: 'forward' | 'backward', logs: string[] = []): StopInfo {
    for (;;) {
      const stop = this.resumeSome(direction, Number.POSITIVE_INFINITY, logs);
      if (stop) return stop;
    }
  }

  /**
   * One slice of a continue: checks at most `budget` checkpoints in `direction` and answers the stop, or undefined
   * (having moved the cursor to the last checkpoint checked) when the caller should go on — so a long continue can
   * yield between slices and be paused or cancelled.
   */
  resumeSome(direction: 'forward' | 'backward', budget: number, logs: string[]): StopInfo | undefined {
    const end = direction === 'forward' ? this.cursor.last : 0;
    const atEnd = (): StopInfo => {
      this.cursor.moveTo(end);
      const text = direction === 'forward' ? this.endDescription() : 'Reached the first checkpoint';
      return this.stopAt(end, 'step', text, logs);
    };
    if (this.breakpoints.isEmpty) return atEnd();
    const delta = direction === 'forward' ? 1 : -1;
    let i = this.cursor.index;
    for (let n = 0; n < budget; n++) {
      if (i === end) return atEnd();
      i += delta;
      const stop = this.checkAt(i, logs);
      if (stop) return this.fromStop(i, stop, logs);
    }
    this.cursor.moveTo(i);
    return i === end ? atEnd() : undefined;
  }

  /** A continue was paused or cancelled where it had got to. */
  pauseHere(why: string): StopInfo {
    const s = this.cursor.current;
    return this.stopAt(this.cursor.index, 'pause', `${why} at [${this.cursor.index}] ${s.boundary}`);
  }

  /**
   * The tool calls of the current step still ahead (stepInTargets): the before_tool_call checkpoints of this step
   * after the current one. A target id is the checkpoint index + 1.
   */
  stepInTargets(): { id: number; label: string }[] {
    const here = this.cursor.index;
    const step = this.cursor.current.stepIndex;
    const out: { id: number; label: string }[] = [];
    for (let i = here + 1; i < this.view.summaries.length; i++) {
      const s = this.view.summaries[i] as (typeof this.view.summaries)[number];
      if (s.stepIndex !== step || s.boundary === 'agent_end') break;
      if (s.boundary === 'before_tool_call') {
        out.push({ id: i + 1, label: `${s.toolName ?? 'tool'}${s.toolCallId ? ` (${s.toolCallId})` : ''}` });
      }
    }
    return out;
  }

  /** stepIn with a targetId of stepInTargets: to that tool call of the current step. */
  stepInto(targetId: number): StopInfo {
    const target = this.stepInTargets().find((t) => t.id === targetId);
    if (!target) {
      throw new OcdbError(
        'InvalidInput',
        `stepIn: targetId ${targetId} is not a step-in target here; ask stepInTargets for the tool calls of this step.`,
        { path: 'targetId' },
      );
    }
    const index = targetId - 1;
    return this.stopAt(index, 'step', `[${index}] before_tool_call · ${target.label}`);
  }

  /** Goto / restart frame: jump to a checkpoint of the replayed run. */
  jump(index: number, reason: 'goto' | 'restart'): StopInfo {
    if (!Number.isInteger(index) || index < 0 || index > this.cursor.last) {
      const what =
        reason === 'goto'
          ? `goto: targetId ${index + 1} is not a goto target of run ${this.view.runId} (targets are 1 to ${this.cursor.last + 1}, from gotoTargets).`
          : `Run ${this.view.runId} has no checkpoint at index ${index}.`;
      throw new OcdbError('CheckpointNotFound', what, {
        runId: this.view.runId,
        index,
        path: reason === 'goto' ? 'targetId' : 'frameId',
      });
    }
    const s = this.view.summaries[index];
    return this.stopAt(index, reason, `Jumped to [${index}] ${s?.boundary ?? ''}`);
  }

  /** The expression state of a frame. */
  state(ref: FrameRef): EvalState {
    return checkpointState(ref.view.load(ref.index), ref.index, (id) => ref.view.toolCall(id));
  }

  /** Evaluates for watch / repl / hover / clipboard; a hovered tool name or call id gives that call's result. */
  evaluate(expression: string, ref: FrameRef, context: string | undefined): unknown {
    if (context === 'hover') {
      const hovered = hoverToolResult(expression, ref.view);
      if (hovered.found) return hovered.value;
      const value = evaluateExpression(expression, this.state(ref));
      // hovering any word of a transcript must not pop up `null`: no value, no hover
      if (value === null)
        throw new OcdbError('InvalidInput', `${expression} has no value here.`, { path: 'expression' });
      return value;
    }
    return evaluateExpression(expression, this.state(ref));
  }

  get staged(): StagedPatch | undefined {
    return this.stagedPatch;
  }

  clearStaged(): void {
    this.stagedPatch = undefined;
  }

  /** Stages `value` at `path` of the runtime context of `ref`'s checkpoint; returns the staged patch. */
  stage(ref: FrameRef, path: readonly PathSegment[], value: unknown): StagedPatch {
    const cp = ref.view.load(ref.index);
    this.stagedPatch = stageEdit(
      this.stagedPatch,
      { runId: cp.runId, checkpointId: cp.checkpointId, context: cp.runtimeContext },
      path,
      value,
    );
    return this.stagedPatch;
  }

  /** Creates a fork through the one ForkService; the staged edits are its default contextPatch. */
  fork(rawArgs: unknown): { runId: string; forkRequestId: string; sourceRunId: string } {
    const args = parseWith(ForkRequestArgsSchema, rawArgs ?? {}, `${forkRequest.command} request`);
    const { sourceRunId, sourceCheckpointId, ...rest } = args.forkConfig;
    if (args.checkpointId && sourceCheckpointId && args.checkpointId !== sourceCheckpointId) {
      throw new OcdbError(
        'InvalidInput',
        `fork request: checkpointId ${args.checkpointId} and forkConfig.sourceCheckpointId ${sourceCheckpointId} differ; send one.`,
        { path: 'forkConfig.sourceCheckpointId' },
      );
    }
    const checkpointId = args.checkpointId ?? sourceCheckpointId ?? this.cursor.current.checkpointId;
    const source = this.store.getCheckpoint(checkpointId);
    if (sourceRunId && sourceRunId !== source.runId) {
      throw new OcdbError(
        'InvalidInput',
        `fork request: checkpoint ${checkpointId} belongs to run ${source.runId}, not forkConfig.sourceRunId ${sourceRunId}.`,
        { path: 'forkConfig.sourceRunId' },
      );
    }
    const staged = this.stagedPatch?.checkpointId === checkpointId ? this.stagedPatch.contextPatch : undefined;
    // rest is already a parsed ForkConfig without its source: adding the source makes it a whole one
    const config: ForkConfig = {
      ...rest,
      sourceRunId: source.runId,
      sourceCheckpointId: checkpointId,
      contextPatch: rest.contextPatch ?? staged,
    };
    const created = new ForkService(this.store).create(config, args.acknowledgedTools);
    return { runId: created.runId, forkRequestId: created.forkRequestId, sourceRunId: source.runId };
  }

  /**
   * The custom requests of protocol.ts: `fork` creates a fork (and asks for a `runsChanged` event),
   * `stagedContextPatch` {clear?} answers the edits staged with setVariable (and forgets them on `clear`).
   */
  customRequest(command: string, args: unknown): CustomAnswer {
    switch (command) {
      case forkRequest.command: {
        const created = this.fork(args);
        return {
          body: { runId: created.runId, forkRequestId: created.forkRequestId } satisfies ForkResponseBody,
          event: {
            event: runsChangedEvent.event,
            body: { runIds: [created.runId], parentRunId: created.sourceRunId } satisfies RunsChangedBody,
          },
        };
      }
      case stagedContextPatchRequest.command: {
        const { clear } = parseWith(stagedContextPatchRequest.args, args, `${command} request`);
        const body: StagedContextPatchBody = this.stagedPatch ?? { contextPatch: {} };
        const cleared = clear === true && this.stagedPatch !== undefined;
        if (clear === true) this.clearStaged();
        return { body, ...(cleared ? { stagedCleared: true } : {}) };
      }
      default:
        throw new OcdbError('InvalidInput', `Unknown request ${command}.`, { path: 'command' });
    }
  }
}

/** Checks that a condition compiles (InvalidInput naming `where` otherwise). */
function compileCondition(condition: string, where: string): void {
  try {
    compileExpression(condition);
  } catch (e) {
    throw new OcdbError('InvalidInput', `${where}: ${errorMessage(e)}`, { path: 'filterOptions' });
  }
}

/** What a custom request answers: the response body, an event to send after it, whether staged edits were dropped. */
export interface CustomAnswer {
  body: unknown;
  event?: { event: typeof runsChangedEvent.event; body: RunsChangedBody };
  /** The staged edits were cleared: the Variables view shows stale values until refreshed. */
  stagedCleared?: boolean;
}

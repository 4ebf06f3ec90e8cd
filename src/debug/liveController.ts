/**
 * LiveController: the state of an `attach` session without DAP (src/debug/README.md "Live debugging", the debugger's half). It holds the
 * attachment in the store (its lease renewed every second, so an agent never waits for a debugger that died), the
 * attached runs as threads — each a ReplayController over the shared store whose cursor can go back into what the
 * run already recorded — the stop each thread's agent is held at with the edits made there (pendingEdits.ts), and
 * the rule that decides, for every stop an agent asks, whether it is one: Pause, stop on entry, the session's
 * breakpoints (replay's engine, StopRules), steps, "before every model call"; anything else is answered `resumed`
 * at once. The agent and this talk only through the store. No DAP transport, no vscode.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_LIVE_LEASE_MS, OcdbError, errorMessage, type LiveAttachment, type LiveStop } from '../model';
import { openRunStore, type RunStore } from '../store';
import type { FrameRef } from './frames';
import { parseAttachArgs, type ResolvedAttachArgs, type ResolvedLaunchArgs } from './launchArgs';
import { PendingEdits } from './pendingEdits';
import { ReplayController, StopRules, type StopInfo } from './replayController';

/** The lease the session holds; it renews it every RENEW_MS. */
export const LEASE_MS = DEFAULT_LIVE_LEASE_MS;
export const RENEW_MS = 1000;
/** How often the attached runs' status is read (a run that ended or crashed ends its thread). */
const STATUS_MS = 200;
/**
 * How often a run that grows without stopping has its transcript written again (a `grew` event): its header's
 * checkpoint count follows the agent, without rendering the whole transcript at every checkpoint.
 */
export const GREW_MS = 500;

/** What a thread's agent does when it next asks: go on unless a breakpoint holds, or stop (a step, Pause). */
type Wish = { kind: 'run' } | { kind: 'step' } | { kind: 'stepOut'; fromStep: number } | { kind: 'pause' };

/** The stop a thread's agent is held at. */
interface Held {
  stop: LiveStop;
  index: number;
  info: StopInfo;
  pending: PendingEdits;
}

/** One attached run. */
export interface LiveThread {
  readonly id: number;
  readonly runId: string;
  readonly agentId: string;
  readonly ctl: ReplayController;
  held?: Held;
  wish: Wish;
  /** The thread has stopped (or passed) once: stopOnEntry is done. */
  entered: boolean;
  /** The run grew since its transcript was last shown (`grew`), and when that was. */
  grew?: boolean;
  shownAt?: number;
}

/** What the session turns into DAP events. */
export type LiveEvent =
  | { kind: 'thread'; reason: 'started' | 'exited'; thread: LiveThread; why?: string }
  | { kind: 'stopped'; thread: LiveThread; stop: StopInfo }
  /** The run grew while its agent went on without stopping: its transcript is behind (at most every GREW_MS). */
  | { kind: 'grew'; thread: LiveThread }
  /** The agent a thread showed stopped went on without this session's answer (the lease lapsed, a detach). */
  | { kind: 'continued'; thread: LiveThread }
  | { kind: 'output'; text: string; category: 'console' | 'important' }
  | { kind: 'ended'; why: string };

export class LiveController {
  readonly rules = new StopRules();
  readonly attachId = `attach-${randomUUID()}`;
  private readonly threadsById = new Map<number, LiveThread>();
  private nextThread = 1;
  private renewedAt = 0;
  private statusAt = 0;
  private closed = false;
  private ended = false;
  /** Events of the attach itself (the thread of a runId), sent with the first tick. */
  private readonly startup: LiveEvent[] = [];
  /** The thread that stopped last (the one a fork without a thread forks). */
  focused: number | undefined;
  /** The newer attachment whose breakpoints decide this session's agents' stops, once told (overriddenBy). */
  private overriddenBy: string | undefined;

  private constructor(
    readonly store: RunStore,
    readonly args: ResolvedAttachArgs,
    readonly client: string,
    now: number,
  ) {
    if (args.runId) {
      const run = store.getRun(args.runId);
      if (run.status !== 'running' || run.crashed) {
        const how = run.crashed ? 'crashed (its process is gone)' : run.status;
        throw new OcdbError(
          'RunNotRunning',
          `attach: run ${args.runId} is not running (it ${run.crashed ? '' : 'ended '}${how}): attach to a run being recorded now, use agentId to wait for the next run of its agent, or launch to replay it.`,
          { path: 'runId', runId: args.runId },
        );
      }
    }
    store.attachLive({
      attachId: this.attachId,
      ...(args.runId ? { runId: args.runId } : {}),
      ...(args.agentId ? { agentId: args.agentId } : {}),
      client,
      at: now,
      leaseMs: LEASE_MS,
    });
    this.renewedAt = now;
    if (args.runId) {
      const run = store.getRun(args.runId);
      if (run.checkpointCount > 0) this.ensureThread(args.runId, run.agentId, this.startup);
    }
  }

  /** Parses the attach arguments, opens the store (never creating one) and attaches. */
  static open(
    rawArgs: unknown,
    client: string,
    env: NodeJS.ProcessEnv = process.env,
    now = Date.now(),
    storeLocation: (location: string) => string = (location) => location,
  ): LiveController {
    const args = parseAttachArgs(rawArgs, env);
    // the next runs of an agent may be its first: their store is made now rather than refused (the agent's recorder
    // opens the same file); a running run must already be in a store
    const store = openRunStore(storeLocation(args.storePath), { create: args.runId === undefined });
    try {
      return new LiveController(store, args, client, now);
    } catch (e) {
      store.close();
      throw e;
    }
  }

  get threads(): LiveThread[] {
    return [...this.threadsById.values()];
  }

  /** The thread of `threadId`; InvalidInput naming the threads there are. */
  thread(threadId: number): LiveThread {
    const t = this.threadsById.get(threadId);
    if (!t) {
      const ids = this.threads.map((x) => x.id);
      throw new OcdbError(
        'InvalidInput',
        `threadId ${threadId} is not a thread of this session: ${ids.length > 0 ? `its threads are ${ids.join(', ')} (one per attached run)` : 'no run is attached yet'}.`,
        { path: 'threadId' },
      );
    }
    return t;
  }

  /** The thread showing `runId`, if attached. */
  threadOfRun(runId: string): LiveThread | undefined {
    return this.threads.find((t) => t.runId === runId);
  }

  /** A held thread whose cursor is at the stop its agent waits at (stepping forward there moves the agent). */
  atHead(t: LiveThread): boolean {
    return t.held !== undefined && t.ctl.cursor.index === t.held.index;
  }

  /** The edits of the stop `ref` shows, when it is the one an agent waits at. */
  pendingAt(ref: FrameRef): PendingEdits | undefined {
    const t = this.threadOfRun(ref.view.runId);
    return t?.held && t.held.index === ref.index ? t.held.pending : undefined;
  }

  private ensureThread(runId: string, agentId: string, events: LiveEvent[]): LiveThread {
    const known = this.threadOfRun(runId);
    if (known) return known;
    const launch: ResolvedLaunchArgs = {
      runId,
      storePath: this.args.storePath,
      stopOnEntry: false,
      transcriptDetail: this.args.transcriptDetail,
      ...(this.args.program ? { program: this.args.program } : {}),
    };
    const ctl = ReplayController.over(this.store, launch, this.rules);
    ctl.cursor.moveTo(ctl.cursor.last);
    const t: LiveThread = { id: this.nextThread++, runId, agentId, ctl, wish: { kind: 'run' }, entered: false };
    this.threadsById.set(t.id, t);
    events.push({ kind: 'thread', reason: 'started', thread: t });
    events.push({
      kind: 'output',
      text: `Attached to run ${runId} of agent ${agentId} (thread ${t.id})`,
      category: 'console',
    });
    return t;
  }

  /**
   * One turn of the session's loop: renews the lease when due; when `decide` (the client has sent its
   * breakpoints: configurationDone), answers every stop the agents ask; ends the threads of runs that ended.
   */
  tick(now: number, decide: boolean): LiveEvent[] {
    const events: LiveEvent[] = this.startup.splice(0);
    if (this.closed) return events;
    if (now - this.renewedAt >= RENEW_MS) {
      const late = now - this.renewedAt;
      this.renewedAt = now;
      if (this.store.renewLiveLease(this.attachId, now, LEASE_MS)) {
        events.push({
          kind: 'output',
          text: `This debugger could not renew its lease for ${(late / 1000).toFixed(1)} s (it was busy or suspended): it ran out after ${LEASE_MS / 1000} s, and the agents it held or that asked meanwhile went on without stopping.`,
          category: 'important',
        });
      }
    }
    // a held agent that went on without this session's answer is running again on screen, before new stops
    this.checkHeld(events);
    if (decide) {
      for (const stop of this.store.listLiveStops(this.attachId, ['asking'], now)) this.decide(stop, now, events);
    }
    for (const t of this.threads) {
      if (!t.grew || t.held || now - (t.shownAt ?? -Infinity) < GREW_MS) continue;
      t.grew = false;
      t.shownAt = now;
      events.push({ kind: 'grew', thread: t });
    }
    if (now - this.statusAt >= STATUS_MS) {
      this.statusAt = now;
      this.checkEnded(events);
      this.checkOverridden(events, now);
    }
    return events;
  }

  /** Every held thread whose stop is no longer open (it read expired, or was resumed elsewhere): running again. */
  private checkHeld(events: LiveEvent[]): void {
    for (const t of this.threads) {
      if (!t.held) continue;
      const stop = this.store.getLiveStop(t.held.stop.stopId);
      if (stop.state === 'stopped' || stop.state === 'asking') continue;
      t.held = undefined;
      t.wish = { kind: 'run' };
      events.push({ kind: 'continued', thread: t });
      events.push({
        kind: 'output',
        text:
          stop.state === 'expired'
            ? `Run ${t.runId} (thread ${t.id}) went on by itself: this debugger's lease ran out while the agent was held, so it did not wait any longer. The edits made there were not applied.`
            : `Run ${t.runId} (thread ${t.id}) went on: its stop was answered outside this session.`,
        category: 'important',
      });
    }
  }

  /**
   * Another debugger attached later to the same run or agent decides its stops from now on (the newest attachment
   * wins, store/liveTable.ts): this session's user is told once, and again when this session decides once more.
   */
  private checkOverridden(events: LiveEvent[], now: number): void {
    const targets = this.threads.map((t) => ({ runId: t.runId, agentId: t.agentId }));
    if (targets.length === 0) targets.push({ runId: this.args.runId ?? '', agentId: this.args.agentId ?? '' });
    let newer: LiveAttachment | undefined;
    for (const { runId, agentId } of targets) {
      const winner = this.store.liveAttachmentFor(runId, agentId, now);
      if (winner && winner.attachId !== this.attachId) newer = winner;
    }
    if (newer?.attachId === this.overriddenBy) return;
    const what = this.args.runId ? `run ${this.args.runId}` : `agent ${this.args.agentId ?? ''}`;
    if (newer) {
      events.push({
        kind: 'output',
        text: `Another debugger (${newer.client}) attached to ${newer.runId ? `run ${newer.runId}` : `agent ${newer.agentId ?? ''}`} after this one: its breakpoints now decide where ${what} stops, and this session's breakpoints do not apply until it detaches.`,
        category: 'important',
      });
    } else if (this.overriddenBy !== undefined) {
      events.push({
        kind: 'output',
        text: `The other debugger left: this session's breakpoints decide where ${what} stops again.`,
        category: 'important',
      });
    }
    this.overriddenBy = newer?.attachId;
  }

  private checkEnded(events: LiveEvent[]): void {
    for (const t of this.threads) {
      const run = this.store.getRun(t.runId);
      if (run.status === 'running' && !run.crashed) continue;
      this.threadsById.delete(t.id);
      if (this.focused === t.id) this.focused = undefined;
      const why = run.crashed ? 'its process is gone' : run.status;
      events.push({ kind: 'thread', reason: 'exited', thread: t, why });
      events.push({
        kind: 'output',
        text: `Run ${t.runId} ended (${why}); thread ${t.id} exited`,
        category: 'console',
      });
    }
    if (this.args.runId && !this.ended) {
      const run = this.store.getRun(this.args.runId);
      if (run.status !== 'running' || run.crashed) {
        this.ended = true;
        events.push({ kind: 'ended', why: `run ${run.runId} ended (${run.crashed ? 'crashed' : run.status})` });
      }
    }
  }

  /** Answers one asked stop: held (a `stopped` event) or resumed at once. */
  private decide(stop: LiveStop, now: number, events: LiveEvent[]): void {
    const t = this.ensureThread(stop.runId, stop.agentId, events);
    if (t.held) return; // a second call of the same run (parallel tools) waits until the held one goes on
    if (t.ctl.refresh()) t.grew = true;
    const index = t.ctl.view.indexOf(stop.checkpointId);
    if (index === undefined) {
      this.answer(stop, { state: 'resumed' }, now, events);
      return;
    }
    const logs: string[] = [];
    const hit = t.ctl.checkAt(index, logs);
    for (const line of logs) events.push({ kind: 'output', text: line, category: 'console' });
    const s = t.ctl.view.summaries[index] as (typeof t.ctl.view.summaries)[number];
    const where = `[${index}] ${s.boundary}${s.toolName ? ` · ${s.toolName}` : ''}`;
    const wish = t.wish;
    const entry = !t.entered && this.args.stopOnEntry;
    t.entered = true;
    const reason: Parameters<ReplayController['holdAt']>[1] | undefined =
      wish.kind === 'pause'
        ? { reason: 'pause', description: `Paused at ${where}` }
        : entry
          ? { reason: 'entry', description: `Attached: ${where}` }
          : hit
            ? hit
            : wish.kind === 'step' ||
                (wish.kind === 'stepOut' && (s.boundary === 'agent_end' || s.stepIndex > wish.fromStep))
              ? { reason: 'step', description: where }
              : this.args.stopBeforeModelCall && s.boundary === 'before_model_call'
                ? { reason: 'breakpoint', description: `Before the model call: ${where}` }
                : undefined;
    if (!reason) {
      t.ctl.cursor.moveTo(index);
      this.answer(stop, { state: 'resumed' }, now, events);
      return;
    }
    if (!this.answer(stop, { state: 'stopped', reason: reason.reason }, now, events)) return;
    const info = t.ctl.holdAt(index, reason, []);
    t.held = { stop, index, info, pending: new PendingEdits(this.pendingBase(t, index)) };
    t.wish = { kind: 'run' };
    t.grew = false; // the stop shows its transcript as it stands
    this.focused = t.id;
    events.push({ kind: 'stopped', thread: t, stop: info });
  }

  private answer(
    stop: LiveStop,
    answer: Parameters<RunStore['answerLiveStop']>[1],
    now: number,
    events: LiveEvent[],
  ): boolean {
    try {
      this.store.answerLiveStop(stop.stopId, answer, now);
      return true;
    } catch (e) {
      // the agent gave up waiting (its lease expired while this session was busy): it went on by itself
      events.push({
        kind: 'output',
        text: `Stop ${stop.stopId} of run ${stop.runId}: ${errorMessage(e)}`,
        category: 'important',
      });
      return false;
    }
  }

  /** What the agent is about to do at the checkpoint `index` of `t`'s run (the Pending scope). */
  private pendingBase(t: LiveThread, index: number): ConstructorParameters<typeof PendingEdits>[0] {
    const cp = t.ctl.view.load(index);
    const call = cp.toolCallId ? t.ctl.view.toolCall(cp.toolCallId) : undefined;
    const base: ConstructorParameters<typeof PendingEdits>[0] = {
      boundary: cp.boundary,
      runtimeContext: cp.runtimeContext,
    };
    if (cp.boundary === 'before_tool_call') {
      if (call) {
        base.toolName = call.toolName;
        base.toolCallId = call.toolCallId;
        base.args = call.args;
      }
    }
    if (cp.boundary === 'before_model_call') {
      if (cp.systemPrompt !== undefined) base.systemPrompt = cp.systemPrompt;
      base.messages = Array.from(cp.messages);
    }
    return base;
  }

  /** The thread's agent waits here; InvalidInput when it is running. */
  requireStopped(t: LiveThread): Held {
    if (!t.held) {
      throw new OcdbError('InvalidInput', `Run ${t.runId} (thread ${t.id}) is running: send pause first.`, {
        path: 'threadId',
      });
    }
    return t.held;
  }

  /**
   * Continue / Next / Step In / Step Out at the live stop: the agent goes on with the edits made there (`editedBy`
   * the client); a step stops it again at its next boundary (Step Out: the first of a later step). Returns a line
   * naming what was sent, for the debug console.
   */
  resume(t: LiveThread, kind: 'continue' | 'next' | 'stepIn' | 'stepOut', editedBy: string, now = Date.now()): string {
    const held = this.requireStopped(t);
    const edits = held.pending.edits(editedBy);
    t.held = undefined;
    try {
      this.store.answerLiveStop(held.stop.stopId, edits ? { state: 'resumed', edits } : { state: 'resumed' }, now);
    } catch (e) {
      // the agent stopped waiting (its lease ran out while this session could not renew it): it went on unedited
      t.wish = { kind: 'run' };
      return `Run ${t.runId} had already gone on without the edits: ${errorMessage(e)}`;
    }
    const stepIndex = t.ctl.view.summaries[held.index]?.stepIndex ?? 0;
    t.wish =
      kind === 'continue'
        ? { kind: 'run' }
        : kind === 'stepOut'
          ? { kind: 'stepOut', fromStep: stepIndex }
          : { kind: 'step' };
    return edits
      ? `Run ${t.runId} goes on with the edits of ${(edits.paths ?? []).join(', ')} (by ${editedBy})`
      : `Run ${t.runId} goes on`;
  }

  /** Pause: a held thread stops again where it is (the stop to report); a running one stops at its next boundary. */
  pause(t: LiveThread): StopInfo | undefined {
    if (t.held) return t.ctl.pauseHere('Paused');
    t.wish = { kind: 'pause' };
    return undefined;
  }

  /**
   * Where a move through the recording ended, seen from the live stop: at or past the checkpoint the agent waits
   * at, the cursor is back at the live stop (a forward step from the past returns there).
   */
  arrived(t: LiveThread, stop: StopInfo): StopInfo {
    const held = t.held;
    if (!held || stop.index < held.index) return stop;
    t.ctl.cursor.moveTo(held.index);
    const back: StopInfo = {
      ...held.info,
      reason: 'step',
      logs: stop.logs,
      description: `Back at the live stop: ${held.info.description}`,
    };
    t.ctl.lastStop = back;
    return back;
  }

  /** Detaches (every held agent goes on at once) and closes the store; safe to call twice. */
  close(now = Date.now()): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.store.detachLive(this.attachId, now);
    } finally {
      this.store.close();
    }
  }
}

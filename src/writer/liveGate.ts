/**
 * LiveGate: where a live run can be paused (the protocol: src/debug/README.md, "Live debugging"). After a checkpoint is
 * written, `ask` makes the cheap check (is a debugger attached to this run or its agent?) and, when one is, asks it
 * whether to stop there; the waits poll the stop row (2 ms, backing off to 25 ms) until the debugger resumes it (with
 * the edits to apply) or its lease runs out (the agent goes on by itself: never longer than the lease, 5 s by
 * default). With `recheckMs`, a check that found no debugger holds that long (the SDK: 50 ms), so an agent with
 * no debugger pays a clock read per checkpoint and one SELECT per 50 ms. The SDK's async calls wait with `wait`, its synchronous ones block in `waitSync`; HTTP ingest waits at
 * most a request's `waitMs` and answers 202 while still stopped. The gate never throws: a store that fails while
 * asking or polling lets the agent go on (`onError` hears of it). Depends on model/ and the RunStore contract only.
 */
import { errorMessage, type CheckpointBoundary, type LiveEdits, type LiveStop } from '../model';
import { timeOrderedId } from './newId';
import type { RunStore } from '../store';

/** The checkpoint an agent just wrote, where it may stop. */
export interface LiveStopPoint {
  runId: string;
  agentId: string;
  checkpointId: string;
  boundary: CheckpointBoundary;
  toolCallId?: string;
}

/** How a wait ended: the debugger let the agent go on (with edits), the lease ran out, or (bounded waits) still stopped. */
export type LiveWait =
  | { settled: true; stopId: string; state: 'resumed' | 'expired'; edits?: LiveEdits }
  | { settled: false; stopId: string; state: 'asking' | 'stopped'; reason?: string };

export interface LiveGateOptions {
  /** Clock (ms since epoch); default Date.now. */
  now?: () => number;
  newId?: () => string;
  /** A store failure the gate swallowed (the agent went on). */
  onError?: (message: string) => void;
  /**
   * After a check found no debugger, the next `recheckMs` ms of checkpoints skip the query (one clock read each):
   * an agent without a debugger pays one indexed SELECT per `recheckMs`, not per checkpoint, and a debugger that
   * attaches is noticed within `recheckMs`. Default 0: every checkpoint queries (HTTP ingest, many runs).
   */
  recheckMs?: number;
}

const FIRST_POLL_MS = 2;
const LAST_POLL_MS = 25;
/** How often a blocked agent still beats its run's heartbeat. */
const BEAT_MS = 1000;

/** A synchronous pause: a stopped debuggee is stopped (the SDK's synchronous calls block). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class LiveGate {
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly recheckMs: number;
  /** Until when a check that found no debugger holds (recheckMs). */
  private quietUntil = -Infinity;

  constructor(
    private readonly store: RunStore,
    private readonly options: LiveGateOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? timeOrderedId;
    this.recheckMs = options.recheckMs ?? 0;
  }

  /**
   * The cheap check and, when a debugger is attached, the question: the stop's id, or undefined (no debugger, or
   * the store failed: the agent goes on).
   */
  ask(point: LiveStopPoint): string | undefined {
    try {
      const now = this.now();
      if (now < this.quietUntil) return undefined;
      const attachment = this.store.liveAttachmentFor(point.runId, point.agentId, now);
      if (!attachment) {
        if (this.recheckMs > 0) this.quietUntil = now + this.recheckMs;
        return undefined;
      }
      const stopId = this.newId();
      this.store.askLiveStop({
        stopId,
        attachId: attachment.attachId,
        runId: point.runId,
        agentId: point.agentId,
        checkpointId: point.checkpointId,
        boundary: point.boundary,
        ...(point.toolCallId !== undefined ? { toolCallId: point.toolCallId } : {}),
        askedAt: this.now(),
      });
      // the checkpoint and the question in the store before the agent waits (group commit: OpenStoreOptions)
      this.store.flush();
      return stopId;
    } catch (e) {
      this.options.onError?.(`asking the debugger at ${point.checkpointId}: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /** One look at the stop: settled (resumed with its edits, or expired — then marked so) or still open. */
  look(stopId: string): LiveWait {
    let stop: LiveStop;
    try {
      stop = this.store.getLiveStop(stopId, this.now());
      // the lease ran out: mark it, so a debugger that comes back cannot hold an agent that went on (an answer
      // that came just before stays)
      if (stop.state === 'expired') stop = this.store.expireLiveStop(stopId, this.now());
    } catch (e) {
      this.options.onError?.(`reading stop ${stopId}: ${errorMessage(e)}`);
      return { settled: true, stopId, state: 'expired' };
    }
    switch (stop.state) {
      case 'resumed':
        return { settled: true, stopId, state: 'resumed', ...(stop.edits ? { edits: stop.edits } : {}) };
      case 'expired':
        return { settled: true, stopId, state: 'expired' };
      case 'asking':
      case 'stopped':
        return { settled: false, stopId, state: stop.state, ...(stop.reason ? { reason: stop.reason } : {}) };
      default: {
        const unreachable: never = stop.state;
        throw new Error(`unknown stop state ${String(unreachable)}`);
      }
    }
  }

  /**
   * Blocks until the stop settles (or `maxMs` passed: then it reads open). `beat` runs about once a second while
   * blocked: the writer's heartbeat timer cannot fire, and a run held at a breakpoint must not read as crashed.
   */
  waitSync(stopId: string, maxMs = Infinity, beat?: () => void): LiveWait {
    const until = this.now() + maxMs;
    let beatAt = this.now() + BEAT_MS;
    for (let pause = FIRST_POLL_MS; ; pause = Math.min(LAST_POLL_MS, pause * 1.5)) {
      const seen = this.look(stopId);
      if (seen.settled || this.now() >= until) return seen;
      if (beat && this.now() >= beatAt) {
        beatAt = this.now() + BEAT_MS;
        beat();
        // blocked, the turn does not end: the heartbeat is committed now, and the debugger's answer is not held off
        this.flushQuietly();
      }
      sleepSync(Math.min(pause, Math.max(1, until - this.now())));
    }
  }

  private flushQuietly(): void {
    try {
      this.store.flush();
    } catch (e) {
      this.options.onError?.(`committing the heartbeat: ${errorMessage(e)}`);
    }
  }

  /** Waits (without blocking the event loop) until the stop settles, or `maxMs` passed (then it reads open). */
  async wait(stopId: string, maxMs = Infinity): Promise<LiveWait> {
    const until = this.now() + maxMs;
    for (let pause = FIRST_POLL_MS; ; pause = Math.min(LAST_POLL_MS, pause * 1.5)) {
      const seen = this.look(stopId);
      if (seen.settled || this.now() >= until) return seen;
      await sleep(Math.min(pause, Math.max(1, until - this.now())));
    }
  }

  /**
   * ask + waitSync: the stop (with the edits to apply when the debugger resumed with some, and how long the agent
   * was held: `heldMs`, on this gate's clock); undefined when no debugger was asked.
   */
  checkSync(point: LiveStopPoint, beat?: () => void): LiveCheck | undefined {
    const askedAt = this.now();
    const stopId = this.ask(point);
    if (stopId === undefined) return undefined;
    const done = this.waitSync(stopId, Infinity, beat);
    return checked(stopId, done, this.now() - askedAt);
  }

  /** ask + wait: as checkSync, without blocking the event loop. */
  async check(point: LiveStopPoint): Promise<LiveCheck | undefined> {
    const askedAt = this.now();
    const stopId = this.ask(point);
    if (stopId === undefined) return undefined;
    const done = await this.wait(stopId);
    return checked(stopId, done, this.now() - askedAt);
  }
}

/** What a stop asked and waited on came to: the edits to apply (when resumed with some) and how long it held. */
export interface LiveCheck {
  stopId: string;
  edits?: LiveEdits;
  heldMs: number;
}

function checked(stopId: string, done: LiveWait, heldMs: number): LiveCheck {
  return { stopId, ...(done.settled && done.edits ? { edits: done.edits } : {}), heldMs: Math.max(0, heldMs) };
}

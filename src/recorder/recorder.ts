/**
 * The recorder SDK's entry point: open a Recorder on a store and start runs.
 *
 *   const recorder = openRecorder({ store: '.ocdb/runs.db' });
 *   const run = recorder.startRun({ agentId: 'support-bot', runtimeContext });
 *   ...
 *   run.end();
 *   recorder.close();
 */
import { errorMessage, OcdbError, parseWith } from '../model';
import { isPostgresLocation, openRunStore, resolveStorePath, type RunStore } from '../store';
import { TeamShipper, teamCachePath } from '../team/teamShipper';
import { AgentProgramFork, forkRequestFromEnv, type ForkModeOptions } from '../fork/agentProgramMode';
import { LiveGate, RunWriter, timeOrderedId } from '../writer';
import { StartRunInputSchema, runCreationOf, type StartRunInput } from './inputs';
import {
  DEFAULT_STORE_LOCK_RETRIES,
  RunRecorder,
  isCallerError,
  retryLocked,
  storeFailure,
  type RecorderEnv,
} from './runRecorder';

export interface RecorderOptions {
  /** Path of the store file; default: OCDB_STORE, else `.ocdb/runs.db` under the working directory. */
  store?: string;
  /** An already open store (tests, embedding); `store` is ignored then and close() leaves it open. */
  runStore?: RunStore;
  /** What a failed store write does: 'throw' (default) raises in the agent; 'disable' reports to onError once and stops recording. */
  onStoreError?: 'throw' | 'disable';
  onError?: (error: OcdbError) => void;
  /**
   * How many more times a write that met another process's lock (StoreLocked, after the store's 5 s busy
   * timeout) is tried, with a short pause between, before the recorder gives up as for any store failure.
   * Default 3 (about 20 s in all); 0 gives up at the first lock.
   */
  storeLockRetries?: number;
  /** Clock (ms since epoch); default Date.now. */
  now?: () => number;
  /** Id generator; default random UUIDs. */
  newId?: (kind: 'run' | 'checkpoint' | 'toolCall') => string;
  /** The process recorded as the runs' owner for crash detection; default this process. */
  ownerPid?: number;
  /** Heartbeat period while a run is open, so a dead recorder shows as crashed; 0 disables. Default 5000. */
  heartbeatMs?: number;
  /**
   * Agent-program mode: the fork request this process executes (default $OCDB_FORK; false ignores it).
   * startRun() then attaches to the fork run instead of starting a new one (see forkMode.ts).
   */
  fork?: string | false;
  forkMode?: ForkModeOptions;
  /**
   * Live debugging (default true): at each checkpoint the SDK makes one cheap check whether a debugger is attached
   * to the run or its agent id, and when one is, waits while it holds the agent there (async calls await; the
   * synchronous `checkpoint`, `beginTool` and `finishTool` block), then applies its edits. false: never asked.
   */
  liveDebugging?: boolean;
  /**
   * Group commit (default true; SQLite): the calls of one event-loop turn commit together, when the turn ends (an
   * agent awaiting its model or any I/O ends it), before a tool runs (it may block the turn), after at most 64
   * writes or 20 ms, and at once at `end()`, `close()`, a live debugger's stop and the process's exit. Another
   * process sees a checkpoint within that turn; a process killed outright (SIGKILL) loses at most the calls of its
   * last turn, never part of one. false: every call commits before it returns. Applies to the store this recorder
   * opens (`store`), not to a `runStore` passed in (open that with `openRunStore(path, { groupCommit })`).
   */
  groupCommit?: boolean;
  /**
   * For a `postgres://` store (a team store): `local-first` records into a local SQLite store on this machine
   * (`~/.ocdb/stores/<hash>/cache.db`, the one VS Code's cache of that store is) and ships each run to the team
   * store in the background once it ends (`shipped()` confirms it); `direct` writes every call to it, a round trip
   * on this thread each. Default $OCDB_TEAM_STORE, else `local-first` — but `direct` for a fork's agent program
   * (OCDB_FORK): its fork request and source run are in the team store.
   */
  teamStore?: 'direct' | 'local-first';
  /**
   * A local-first recorder confirms its run in the team store before a `write` or `external_irreversible` tool runs
   * (`beginTool`, `tool()`, a `before_tool_call` checkpoint of such a call), at `end()` and at `close()`: it ships the
   * run as it stands and waits, on the agent's thread, until the team store holds it — at most `shipTimeoutMs`
   * (default 30000). Not confirmed in time: the error (StoreUnavailable, naming the run and where it is kept) is
   * thrown (`onStoreError: 'throw'`, so the tool does not run unless the agent catches it) or given to `onError`
   * ('disable'); recording goes on locally either way. `confirmShipped: false` ships in the background only.
   */
  shipTimeoutMs?: number;
  /** See shipTimeoutMs; default true. */
  confirmShipped?: boolean;
}

/** How long a local-first recorder waits for the team store to confirm a run (RecorderOptions.shipTimeoutMs). */
export const DEFAULT_SHIP_TIMEOUT_MS = 30_000;

/** How long a check that found no live debugger holds for a run (LiveGate.recheckMs). */
export const LIVE_RECHECK_MS = 50;
/** The code of the process warning a recorder without `onError` gives when live debugging goes on without its debugger. */
export const LIVE_WARNING_CODE = 'OCDB_LIVE_DEBUGGING';

export class Recorder {
  private readonly env: Omit<RecorderEnv, 'live'> & { liveDebugging: boolean };
  private readonly owned: boolean;
  private readonly ownerPid: number | undefined;
  private readonly runs = new Set<RunRecorder>();
  private readonly fork: string | undefined;
  private readonly forkMode: ForkModeOptions | undefined;
  private readonly shipper: TeamShipper | undefined;
  private readonly shipTimeoutMs: number;
  private readonly confirmShipped: boolean;
  private warned = false;

  constructor(options: RecorderOptions = {}) {
    this.owned = options.runStore === undefined;
    this.ownerPid = options.ownerPid;
    this.fork = options.fork === false ? undefined : (options.fork ?? forkRequestFromEnv());
    this.forkMode = options.forkMode;
    // the agent's commits never stall on a WAL checkpoint: those run in a thread of the store's own
    const location = options.runStore ? undefined : resolveStorePath(options.store);
    const fromEnv = process.env.OCDB_TEAM_STORE;
    const mode =
      options.teamStore ??
      (fromEnv === 'direct' || fromEnv === 'local-first' ? fromEnv : this.fork ? 'direct' : 'local-first');
    const localFirst = location !== undefined && isPostgresLocation(location) && mode === 'local-first';
    const store =
      options.runStore ??
      openRunStore(localFirst ? teamCachePath(location) : (location as string), {
        backgroundCheckpoints: true,
        groupCommit: options.groupCommit !== false,
      });
    // the network is the shipper's thread's: this thread records to its own disk
    this.shipper = localFirst ? new TeamShipper(location, teamCachePath(location)) : undefined;
    this.shipTimeoutMs = options.shipTimeoutMs ?? DEFAULT_SHIP_TIMEOUT_MS;
    this.confirmShipped = options.confirmShipped !== false;
    this.env = {
      store,
      now: options.now ?? Date.now,
      newId: options.newId ?? timeOrderedId,
      onStoreError: options.onStoreError ?? 'throw',
      onError: options.onError,
      storeLockRetries: options.storeLockRetries ?? DEFAULT_STORE_LOCK_RETRIES,
      heartbeatMs: options.heartbeatMs ?? 5000,
      liveDebugging: options.liveDebugging !== false,
    };
  }

  /**
   * Resolves once every run this recorder ended is in its team store (a local-first recorder; others at once);
   * rejects after `timeoutMs` naming the runs that are not (they stay in the local store and ship later).
   */
  shipped(timeoutMs = this.shipTimeoutMs): Promise<void> {
    return this.shipper ? this.shipper.shipped(timeoutMs) : Promise.resolve();
  }

  /** The store this recorder writes to. */
  get store(): RunStore {
    return this.env.store;
  }

  /** Starts a run (status `running`) and returns its recorder. */
  startRun(input: StartRunInput): RunRecorder {
    const data = parseWith(StartRunInputSchema, input, 'startRun');
    // Every input a RunRecorder hands its writer is parsed as it comes in (inputs.ts; a tool's arguments and result by
    // the store's tool-call table, which the ledger records and tool messages are then built from): the store does
    // not parse the checkpoints again (WriterOptions.validated).
    const writerOptions = {
      now: this.env.now,
      newId: this.env.newId,
      heartbeatMs: this.env.heartbeatMs,
      validated: true,
    };
    const retries = this.env.storeLockRetries;
    if (this.fork) {
      // Agent-program mode: continue the fork run; the agent reads its starting state from the returned run.
      const fork = this.fork;
      const attached = retryLocked(
        () => AgentProgramFork.attach(this.env.store, fork, { ...writerOptions, ...this.forkMode }),
        retries,
      );
      const forked = new RunRecorder(this.runEnv(), attached.writer, attached.fork);
      this.runs.add(forked);
      return forked;
    }
    const creation = runCreationOf(data, this.ownerPid !== undefined ? { ownerPid: this.ownerPid } : {});
    let writer: RunWriter;
    try {
      // the run's creation waits out another process's lock as every later write of the run does
      writer = retryLocked(() => RunWriter.create(this.env.store, creation, writerOptions), retries);
    } catch (e) {
      if (isCallerError(e)) throw e;
      const err = storeFailure(e, `Starting a run of ${data.agentId} failed`, { agentId: data.agentId });
      if (this.env.onStoreError === 'throw') throw err;
      this.env.onError?.(err);
      return this.unrecorded(creation, writerOptions, err);
    }
    const run = new RunRecorder(this.runEnv(), writer);
    this.runs.add(run);
    return run;
  }

  /**
   * The run an agent goes on with when its store failed at the start (`onStoreError: 'disable'`): its state lives
   * in its writer alone, every write of it is skipped, and no debugger is asked.
   */
  private unrecorded(
    creation: Parameters<typeof RunWriter.create>[1],
    writerOptions: Parameters<typeof RunWriter.create>[2],
    err: OcdbError,
  ): RunRecorder {
    const writer = RunWriter.unrecorded(this.env.store, creation, writerOptions);
    const { liveDebugging: _liveDebugging, ...env } = this.env;
    const run = new RunRecorder(env, writer, undefined, err);
    this.runs.add(run);
    return run;
  }

  /**
   * A run's environment: its own LiveGate (a check that found no debugger holds 50 ms; a new run checks at its
   * first checkpoint, so "debug the next run of this agent" never misses its start). The lease is the debugger's
   * wall clock, never the run's `now` (a test clock must not keep an agent waiting).
   */
  private runEnv(): RecorderEnv {
    const { liveDebugging, ...rest } = this.env;
    const shipper = this.shipper;
    const timeoutMs = this.shipTimeoutMs;
    const env: RecorderEnv = shipper
      ? {
          ...rest,
          onEnded: (runId) => shipper.runEnded(runId),
          ...(this.confirmShipped
            ? { confirmShipped: (runId: string, when: string) => shipper.confirm([runId], timeoutMs, when) }
            : {}),
        }
      : rest;
    if (!liveDebugging) return env;
    const onError = this.env.onError;
    return {
      ...env,
      live: new LiveGate(env.store, {
        recheckMs: LIVE_RECHECK_MS,
        onError: (message) => {
          const error = new OcdbError('StoreUnavailable', `Live debugging went on without the debugger: ${message}`);
          if (onError) onError(error);
          else this.warnOnce(error);
        },
      }),
    };
  }

  /**
   * Said once per recorder when no `onError` was given: an agent that goes on without the debugger it was attached
   * to must not do so silently (a process warning: `--no-warnings` hides it).
   */
  private warnOnce(error: OcdbError): void {
    if (this.warned) return;
    this.warned = true;
    process.emitWarning(error.message, { code: LIVE_WARNING_CODE });
  }

  /** Stops heartbeats and closes the store (when the recorder opened it). Runs not ended stay `running` and will show as crashed. */
  close(): void {
    for (const run of this.runs) run.dispose();
    this.runs.clear();
    const shipper = this.shipper;
    let unshipped: OcdbError | undefined;
    if (shipper) {
      // the ended runs not confirmed yet (a failed confirmation, or confirmShipped: false) are confirmed now,
      // bounded; then the shipper's threads end with this call: nothing of the recorder outlives close()
      try {
        if (this.confirmShipped) shipper.confirm(shipper.unshipped, this.shipTimeoutMs, 'when the recorder closed');
      } catch (e) {
        unshipped = e instanceof OcdbError ? e : new OcdbError('StoreUnavailable', errorMessage(e));
      } finally {
        shipper.close();
      }
    }
    try {
      // what the last turn wrote goes in now (a runStore passed in stays open, its writes committed all the same)
      if (this.owned) this.env.store.close();
      else this.env.store.flush();
    } catch (e) {
      const err =
        e instanceof OcdbError
          ? e
          : new OcdbError('StoreUnavailable', `Closing the recorder failed: ${errorMessage(e)}`, {}, { cause: e });
      if (this.env.onStoreError === 'throw') throw err;
      this.env.onError?.(err);
    }
    if (unshipped) {
      if (this.env.onStoreError === 'throw') throw unshipped;
      this.env.onError?.(unshipped);
    }
  }
}

/** Opens a recorder (see RecorderOptions). */
export function openRecorder(options: RecorderOptions = {}): Recorder {
  return new Recorder(options);
}

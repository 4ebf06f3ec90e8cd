/**
 * Ingest for agents in any language: the recorder SDK's semantics over HTTP
 * bodies — start a run, add checkpoints (state omitted carries over from the
 * run's last checkpoint; runId, stepIndex, the ledger snapshot and createdAt
 * are filled in), begin / finish tool calls (with before/after_tool_call
 * checkpoints and the tool message, like the SDK), record artifacts (the
 * content in the body: text, or base64 bytes), end the run. Each call is
 * one store transaction through the one RunWriter (src/writer), the same
 * write path as the SDK; bodies are the SDK's input schemas, zod-validated
 * with the field path. Live debugging: a checkpoint, tool-begin or
 * tool-finish request of a run under a debugger asks the same LiveGate as the
 * SDK and waits at most `waitMs` (default 25 s, at most 60 s); still stopped,
 * it answers 202 with the stop and a retry URL (`waitStop` waits again); once
 * resumed, the answer carries the edits the agent must apply (they are
 * recorded in the run as it gets them). A run recorded over HTTP has no
 * owner process the store can watch (the server outlives its agents): it is
 * judged on its heartbeat, which every request that writes to it (and every
 * wait on a stop) beats; one no request touched for HEARTBEAT_STALE_MS reads
 * crashed. Depends on model/, the store contract, the writer and the SDK's
 * input schemas.
 */
import {
  ArtifactBodySchema,
  CheckpointInputSchema,
  EndRunInputSchema,
  StartRunInputSchema,
  ToolOptionsSchema,
  runCreationOf,
} from '../recorder/inputs';
import { z } from 'zod';
import {
  CheckpointBoundarySchema,
  MAX_LIVE_LEASE_MS,
  OcdbError,
  ToolOutcomeSchema,
  artifactTooLarge,
  decodeContent,
  MAX_ARTIFACT_BYTES,
  parseWith,
  type ArtifactRef,
  type LiveEdits,
} from '../model';
import type { CheckpointSummary, RunStore, RunSummary } from '../store';
import { LiveGate, RunWriter, type LiveWait, type WriterOptions } from '../writer';

/** The SDK's startRun input plus an optional start time. */
export const CreateRunBodySchema = StartRunInputSchema.extend({ startedAt: z.number().optional() });

/** The SDK's checkpoint input (state omitted carries over) plus the boundary and an optional time. */
export const CheckpointBodySchema = CheckpointInputSchema.extend({
  boundary: CheckpointBoundarySchema,
  createdAt: z.number().optional(),
});

/** beginTool / finishTool of the SDK as one body: `phase` says which. */
export const ToolCallBodySchema = z.discriminatedUnion('phase', [
  ToolOptionsSchema.extend({
    phase: z.literal('begin'),
    toolName: z.string().min(1),
    args: z.unknown(),
  }),
  z.object({
    phase: z.literal('finish'),
    toolCallId: z.string().min(1),
    outcome: ToolOutcomeSchema,
    result: z.unknown().optional(),
    error: z.unknown().optional(),
    checkpoints: ToolOptionsSchema.shape.checkpoints,
  }),
]);

/** The SDK's end input. */
export const EndRunBodySchema = EndRunInputSchema;

/** How long a request of a stopped agent waits before it answers 202 (the `waitMs` query parameter). */
export const DEFAULT_LIVE_WAIT_MS = 25_000;
export const MAX_LIVE_WAIT_MS = MAX_LIVE_LEASE_MS;

/** `?waitMs=` of a checkpoint / tool-call request and of the stop's retry URL. */
export const LiveWaitQuerySchema = z.object({
  waitMs: z.coerce.number().int().min(0).max(MAX_LIVE_WAIT_MS).default(DEFAULT_LIVE_WAIT_MS),
});

/** What a request that may stop answers: done (201/200, with the edits to apply or null) or still stopped (202). */
export type LiveAnswer<T> =
  | { stopped: false; body: T & { edits: LiveEdits | null } }
  | {
      stopped: true;
      /** What the request wrote (as a done answer has it, without edits), the stop and the URL to wait on. */
      body: T & { stopped: { stopId: string; checkpointId: string; reason: string | null }; retry: string };
    };

/** Open runs whose writer the server keeps (the least recently used beyond it is picked up from the store again). */
const KEPT_WRITERS = 256;

/**
 * One RunWriter per open run this server has seen, so the state given at POST /runs reaches the first checkpoint;
 * a run another process (or an earlier server) wrote to since is picked up again from the store.
 */
export class IngestService {
  private readonly writers = new Map<string, RunWriter>();
  /** The debugger's lease is wall-clock time, whatever clock the runs are written with. */
  private readonly gate: LiveGate;

  constructor(
    private readonly store: RunStore,
    private readonly now: () => number = Date.now,
  ) {
    this.gate = new LiveGate(store);
  }

  /** The writer of `runId`, continued from the store when this server's copy is not the run's latest state. */
  private writerOf(runId: string): RunWriter {
    const known = this.writers.get(runId);
    const run = this.store.getRun(runId);
    const writer =
      known && known.checkpointCount === run.checkpointCount && known.toolCallCount === run.toolCallCount
        ? known
        : RunWriter.resume(this.store, runId, this.writerOptions());
    this.keep(writer);
    return writer;
  }

  /**
   * Every body is parsed with the SDK's input schemas as it arrives (a tool's arguments and result then stored by the
   * tool-call table first), as in the SDK: the store does not parse the checkpoints again (WriterOptions.validated).
   */
  private writerOptions(): WriterOptions {
    return { now: this.now, validated: true };
  }

  private keep(writer: RunWriter): void {
    this.writers.delete(writer.runId);
    this.writers.set(writer.runId, writer);
    if (this.writers.size > KEPT_WRITERS) {
      const oldest = this.writers.keys().next().value;
      if (oldest !== undefined) this.writers.delete(oldest);
    }
  }

  createRun(body: unknown): RunSummary {
    const data = parseWith(CreateRunBodySchema, body, 'body');
    const writer = RunWriter.create(this.store, runCreationOf(data), this.writerOptions());
    this.keep(writer);
    // the agent is elsewhere: not this server's pid, but the requests' heartbeat tells whether it lives
    this.store.setRunOwner(writer.runId, null);
    return this.store.getRun(writer.runId);
  }

  /** A writer that can take a checkpoint: after a restart the first checkpoint must bring the runtime context. */
  private stateful(runId: string, input: { runtimeContext?: unknown }): RunWriter {
    const writer = this.writerOf(runId);
    if (!writer.state && input.runtimeContext === undefined) {
      throw new OcdbError(
        'InvalidInput',
        'body.runtimeContext: the first checkpoint of this run must carry runtimeContext (the server no longer holds the one given at POST /runs)',
        { path: 'runtimeContext' },
      );
    }
    return writer;
  }

  appendCheckpoint(runId: string, body: unknown): CheckpointSummary {
    const { boundary, ...input } = parseWith(CheckpointBodySchema, body, 'body');
    return this.stateful(runId, input).checkpoint(boundary, input);
  }

  /** appendCheckpoint, then the live debugger's stop there (if one is attached), waiting at most `waitMs`. */
  async appendCheckpointLive(runId: string, body: unknown, waitMs: number): Promise<LiveAnswer<CheckpointSummary>> {
    const summary = this.appendCheckpoint(runId, body);
    return this.stopAt(summary, summary, waitMs);
  }

  /** toolCall, then the live debugger's stop at its checkpoint (if one is attached), waiting at most `waitMs`. */
  async toolCallLive(
    runId: string,
    body: unknown,
    waitMs: number,
  ): Promise<LiveAnswer<{ toolCallId: string; checkpoint?: CheckpointSummary }>> {
    const done = this.toolCall(runId, body);
    return this.stopAt(done.checkpoint, done, waitMs);
  }

  /** GET /runs/:runId/stops/:stopId: waits again (at most `waitMs`) for the stop a 202 named. */
  async waitStop(runId: string, stopId: string, waitMs: number): Promise<LiveAnswer<{ resumed: true }>> {
    const stop = this.store.getLiveStop(stopId);
    if (stop.runId !== runId) {
      throw new OcdbError('LiveStopNotFound', `Stop ${stopId} is not a stop of run ${runId}.`, { stopId, runId });
    }
    // an agent held at a breakpoint asks again and again: it lives
    this.beat(runId);
    const wait = await this.gate.wait(stopId, waitMs);
    this.beat(runId);
    return this.settle(runId, wait, { resumed: true }, stop.checkpointId);
  }

  /** The run's heartbeat, for a request that wrote no checkpoint (a waited stop, an artifact, a call without one). */
  private beat(runId: string): void {
    if (this.store.getRun(runId).status === 'running') this.store.heartbeat(runId, Date.now());
  }

  private async stopAt<T extends object>(
    checkpoint: CheckpointSummary | undefined,
    body: T,
    waitMs: number,
  ): Promise<LiveAnswer<T>> {
    if (!checkpoint || checkpoint.boundary === 'agent_end') return { stopped: false, body: { ...body, edits: null } };
    const stopId = this.gate.ask({
      runId: checkpoint.runId,
      agentId: this.store.getRun(checkpoint.runId).agentId,
      checkpointId: checkpoint.checkpointId,
      boundary: checkpoint.boundary,
      ...(checkpoint.toolCallId !== undefined ? { toolCallId: checkpoint.toolCallId } : {}),
    });
    if (stopId === undefined) return { stopped: false, body: { ...body, edits: null } };
    return this.settle(checkpoint.runId, await this.gate.wait(stopId, waitMs), body, checkpoint.checkpointId);
  }

  /** A wait's answer: resumed (the edits applied to the run and returned, once) or still stopped (202). */
  private settle<T extends object>(runId: string, wait: LiveWait, body: T, checkpointId: string): LiveAnswer<T> {
    if (!wait.settled) {
      return {
        stopped: true,
        body: {
          ...body,
          stopped: { stopId: wait.stopId, checkpointId, reason: wait.reason ?? null },
          retry: `/runs/${encodeURIComponent(runId)}/stops/${encodeURIComponent(wait.stopId)}?waitMs=${DEFAULT_LIVE_WAIT_MS}`,
        },
      };
    }
    this.noteHold(runId, wait.stopId);
    if (!wait.edits) return { stopped: false, body: { ...body, edits: null } };
    const recorded = this.store.listLiveEdits(runId).find((e) => e.stopId === wait.stopId);
    if (recorded) return { stopped: false, body: { ...body, edits: recorded.edits } };
    const stop = this.store.getLiveStop(wait.stopId);
    const applied = this.writerOf(runId).applyLiveEdits(
      {
        stopId: stop.stopId,
        checkpointId: stop.checkpointId,
        boundary: stop.boundary,
        ...(stop.toolCallId !== undefined ? { toolCallId: stop.toolCallId } : {}),
      },
      wait.edits,
    );
    return { stopped: false, body: { ...body, edits: applied ?? null } };
  }

  /**
   * A settled stop held the agent from its question to now (the gate's clock: wall time): before a tool ran, the
   * call's finish records it apart from the tool's own time (ToolCallRecord.heldMs); elsewhere (a model call's
   * stops), the next checkpoint does (Checkpoint.heldMs).
   */
  private noteHold(runId: string, stopId: string): void {
    const stop = this.store.getLiveStop(stopId);
    const ms = Date.now() - stop.askedAt;
    if (stop.boundary === 'before_tool_call' && stop.toolCallId !== undefined)
      this.writerOf(runId).held(stop.toolCallId, ms);
    else if (stop.boundary !== 'before_tool_call') this.writerOf(runId).heldAtStop(stop.checkpointId, ms);
  }

  /** Begins or finishes a tool call (phase 'begin' | 'finish'). */
  toolCall(runId: string, body: unknown): { toolCallId: string; checkpoint?: CheckpointSummary } {
    const data = parseWith(ToolCallBodySchema, body, 'body');
    const checkpoint = data.checkpoints === false ? false : {};
    if (data.phase === 'begin') {
      const done = this.stateful(runId, {}).beginTool(
        {
          ...(data.toolCallId !== undefined ? { toolCallId: data.toolCallId } : {}),
          toolName: data.toolName,
          args: data.args,
          sideEffectLevel: data.sideEffectLevel,
          ...(data.replayPolicy ? { replayPolicy: data.replayPolicy } : {}),
        },
        { checkpoint },
      );
      if (!done.checkpoint) this.beat(runId);
      return { toolCallId: done.record.toolCallId, ...(done.checkpoint ? { checkpoint: done.checkpoint } : {}) };
    }
    const value = data.outcome === 'success' ? data.result : data.error;
    const done = this.stateful(runId, {}).finishTool(data.toolCallId, data.outcome, value, { checkpoint });
    if (!done.checkpoint) this.beat(runId);
    return { toolCallId: data.toolCallId, ...(done.checkpoint ? { checkpoint: done.checkpoint } : {}) };
  }

  /** Records an artifact (run.artifact of the SDK): stored once, listed by the run, carried by the next checkpoint. */
  artifact(runId: string, body: unknown): ArtifactRef {
    const data = parseWith(ArtifactBodySchema, body, 'body');
    const content = decodeContent(data.content, data.encoding ?? 'utf8', 'content', 'body');
    if (content.byteLength > MAX_ARTIFACT_BYTES) throw artifactTooLarge(content.byteLength, 'content', 'body');
    this.beat(runId);
    return this.writerOf(runId).artifact({
      name: data.name,
      type: data.type,
      content,
      ...(data.metadata !== undefined ? { metadata: data.metadata } : {}),
      ...(data.createdAt !== undefined ? { createdAt: data.createdAt } : {}),
    });
  }

  endRun(runId: string, body: unknown): RunSummary {
    const data = parseWith(EndRunBodySchema, body ?? {}, 'body');
    const summary = this.stateful(runId, {}).end({
      ...(data.status !== undefined ? { status: data.status } : {}),
      ...(data.error !== undefined ? { error: data.error } : {}),
      ...(data.messages ? { checkpoint: { messages: data.messages } } : {}),
    });
    this.writers.delete(runId);
    return summary;
  }
}

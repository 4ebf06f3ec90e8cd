/**
 * What a RunWriter is given: its options and the inputs of each of its calls (a run to create, a tool call to begin
 * and finish, the run's end, an artifact, a live edit's place). Types only, apart from the writer so that it holds the
 * rules and these hold the shapes; `runWriter.ts` re-exports them.
 */
import type { ArtifactRef, CheckpointBoundary, RunEndStatus, RunMode, ToolCallRecord } from '../model';
import type { CheckpointSummary } from '../store';
import type { CheckpointInput, RunState, TimelineStart, ToolCallInput } from './runTimeline';

export type IdKind = 'run' | 'checkpoint' | 'toolCall';

export interface WriterOptions {
  /** Clock (ms since epoch); default Date.now. */
  now?: () => number;
  /** Id generator; default random UUIDs. */
  newId?: (kind: IdKind) => string;
  /** Heartbeat period while the run is written (crash detection); 0 or absent: none. */
  heartbeatMs?: number;
  /** Called after each checkpoint written (live progress). */
  onCheckpoint?: (summary: CheckpointSummary) => void;
  /**
   * Every state and outcome this writer is given was checked against the store's schemas as it came in (an
   * importer's plan: `importers/runPlan.ts` `storable`; the SDK's inputs: `recorder/inputs.ts`, a tool's arguments
   * and result stored by the tool-call table first): its checkpoints are appended `validated`, not parsed again by
   * the store.
   */
  validated?: boolean;
}

export interface CreateRunWrite {
  runId?: string;
  agentId: string;
  /** Default: the runtime context's conversation.sessionId. */
  sessionId?: string;
  /** Default: `fork` when parentRunId is given, else `live`. */
  mode?: RunMode;
  parentRunId?: string;
  forkFromCheckpointId?: string;
  startedAt?: number;
  metadata?: Record<string, unknown>;
  artifactRefs?: ArtifactRef[];
  /** The recording process (crash detection); default this process. */
  ownerPid?: number;
  /** The state the first checkpoint starts from; promptVersion defaults to the context's. */
  state: Omit<RunState, 'messages'> & { messages?: RunState['messages'] };
  /** A fork's position at its fork point: step, last boundary and inherited ledger. */
  start?: Omit<TimelineStart, 'state' | 'checkpointCount' | 'begun'>;
  /**
   * The stored checkpoint whose message list and ledger snapshot `state.messages` and `start.ledger` are (a fork's
   * source checkpoint): the first checkpoint reuses its list nodes for them instead of hashing them again.
   */
  listsFrom?: string;
}

export interface ResumeOptions extends WriterOptions {
  /** Where the next checkpoint continues (default: after the run's last checkpoint). */
  position?: { stepIndex: number; lastBoundary?: CheckpointBoundary };
  /**
   * The state and inherited ledger to start from when the run has no checkpoint left (an imported run reopened
   * from its very start, `RunStore.reopenRun` with keepCheckpoints 0); ignored otherwise.
   */
  start?: { state: RunState; ledger?: ToolCallRecord[] };
}

/** A tool call to open; the id is generated when absent. */
export type BeginToolWrite = Omit<ToolCallInput, 'toolCallId' | 'startedAt'> & {
  toolCallId?: string;
  startedAt?: number;
};

export interface ToolWriteOptions {
  /** The checkpoint taken with the call (before_tool_call / after_tool_call) and its state; false: none. */
  checkpoint?: CheckpointInput | false;
}

export interface FinishToolOptions extends ToolWriteOptions {
  /** Append the `tool` message with the outcome to the conversation (default true). */
  appendMessage?: boolean;
  endedAt?: number;
  /** How long a live debugger held the call before it ran (default: what `RunWriter.held` noted). */
  heldMs?: number;
}

export interface EndRunWrite {
  /** Default: failed when an error is given, else completed. */
  status?: RunEndStatus;
  error?: unknown;
  /** The state of the agent_end checkpoint (default: carried over). */
  checkpoint?: CheckpointInput;
  endedAt?: number;
  /** The run's metadata from now on (an importer that wrote the run while reading its trace knows it only now). */
  metadata?: Record<string, unknown>;
}

/** An artifact to record: its content as bytes (text is its UTF-8). */
export interface ArtifactWrite {
  /** The artifact's name: its artifactId; a second artifact of the same name is its next version. */
  name: string;
  type: string;
  content: Uint8Array;
  metadata?: Record<string, unknown>;
  createdAt?: number;
}

export interface ToolWrite {
  record: ToolCallRecord;
  checkpoint?: CheckpointSummary;
}

/** Where a live edit is applied: the stop the debugger answered, at the checkpoint the agent wrote. */
export interface LiveEditAt {
  stopId: string;
  checkpointId: string;
  boundary: CheckpointBoundary;
  toolCallId?: string;
}

/**
 * The recorded model turns of a fork's source, shared by the built-in runner
 * and agent-program mode: the turns after the fork point (prompt checkpoint
 * and answer checkpoint), the check of a rendered prompt against a turn's
 * recorded prompt, and the recorded answer a captured turn re-emits (usage
 * marked captured: no tokens spent). Reads the store only.
 */
import type { Checkpoint, Message } from '../model';
import type { RunStore } from '../store';
import { findDivergence, type Divergence } from './divergence';
import type { ChatResult } from './modelClient';

/** A recorded model turn after the fork point: the prompt checkpoint and the answer checkpoint. */
export interface RecordedTurn {
  readonly before: Checkpoint;
  readonly beforeIndex: number;
  readonly after?: Checkpoint;
}

/** A turn whose checkpoints are read when first used, as views (a long recording is not loaded up front). */
class StoredTurn implements RecordedTurn {
  private beforeView: Checkpoint | undefined;
  private afterView: Checkpoint | undefined;

  constructor(
    private readonly store: RunStore,
    private readonly beforeId: string,
    readonly beforeIndex: number,
    readonly afterId: string | undefined,
  ) {}

  get before(): Checkpoint {
    return (this.beforeView ??= this.store.getCheckpointView(this.beforeId));
  }

  get after(): Checkpoint | undefined {
    if (this.afterId === undefined) return undefined;
    return (this.afterView ??= this.store.getCheckpointView(this.afterId));
  }
}

/** The recorded model turns of `sourceRunId` from the fork point on (the turn starting at the fork point included). */
export function recordedTurns(store: RunStore, sourceRunId: string, fromIndex: number): RecordedTurn[] {
  const summaries = store.listCheckpoints(sourceRunId, { offset: fromIndex });
  const turns: { beforeId: string; beforeIndex: number; afterId?: string }[] = [];
  let open: (typeof turns)[0] | undefined;
  summaries.forEach((s) => {
    if (s.boundary === 'before_model_call') {
      open = { beforeId: s.checkpointId, beforeIndex: s.index };
      turns.push(open);
    } else if (s.boundary === 'after_model_call' && open && open.afterId === undefined) {
      open.afterId = s.checkpointId;
    }
  });
  return turns.map((t) => new StoredTurn(store, t.beforeId, t.beforeIndex, t.afterId));
}

/** The message a recorded turn answered with (undefined when the recorded call failed). */
export function recordedAnswer(turn: RecordedTurn): Message | undefined {
  const after = turn.after;
  return after && after.messages.length > turn.before.messages.length ? after.messages.at(-1) : undefined;
}

/** Where `turn` is in the source run (for divergence reports). */
export function turnLocation(turn: RecordedTurn) {
  return {
    stepIndex: turn.before.stepIndex,
    sourceCheckpointIndex: turn.beforeIndex,
    sourceCheckpointId: turn.before.checkpointId,
  };
}

/**
 * The first difference between the prompt about to be sent and the one `turn` recorded, if any. `shared`: how many
 * leading messages the two are known to share (the store's word, `sharedMessageCount`): only the others are
 * compared, so a turn late in a long conversation costs what it adds, not the conversation.
 */
export function compareWithTurn(
  rendered: { systemPrompt?: string; messages: readonly Message[] },
  turn: RecordedTurn,
  shared = 0,
): Divergence | undefined {
  const recorded = { systemPrompt: turn.before.systemPrompt, messages: turn.before.messages };
  const longest = Math.max(rendered.messages.length, recorded.messages.length);
  const from = Math.min(shared, rendered.messages.length, recorded.messages.length);
  const rest = Array.from({ length: Math.max(0, longest - from) }, (_, k) => from + k);
  return findDivergence(rendered, recorded, turnLocation(turn), shared > 0 ? rest : undefined);
}

/** The recorded answer of `turn` as a model result, usage marked captured; Error when the recorded call failed. */
export function recordedResponse(turn: RecordedTurn): ChatResult {
  const after = turn.after;
  const answer = recordedAnswer(turn);
  if (!after || !answer) {
    throw new Error(
      `the recorded model call at step ${turn.before.stepIndex} failed (finishReason ${after?.finishReason ?? 'none'})`,
    );
  }
  const response: ChatResult = { message: answer };
  if (after.finishReason !== undefined) response.finishReason = after.finishReason;
  if (after.usage) response.usage = { ...after.usage, captured: true };
  if (after.model) response.model = after.model;
  return response;
}

/**
 * Captured replay: walks the source run's checkpoints after the fork point and
 * re-records each into the fork run from the fork's own state — the recorded
 * model turns re-emitted (usage marked captured), tools answered by policy
 * from the cassette or mocks, the runtime context of each step with the fork's
 * patch applied. Before every model turn the prompt rendered from the fork's
 * state is compared with the recorded one; the first divergence stops the walk
 * (or hands over to the real model when the config asks; in the `recorded`
 * model mode it is reported and the recorded turns go on under the fork's own
 * prompt, the tools answered as the gate decides). No UI, no network.
 */
import { OcdbError, messageToolCalls, type Checkpoint, type Message, type ToolCallRecord } from '../model';
import { extendList } from '../store';
import { storedValue, toolResultMessage, type CheckpointInput } from '../writer';
import type { CassetteAnswer } from './cassette';
import { diverged } from './forkErrors';
import { forkStartState } from './forkPlan';
import { findDivergence, type Divergence } from './divergence';
import { promptTemplateFor, renderTemplate } from './promptRender';
import { answerTool, checkAborted, sameContent, type RunContext, type StepsOutcome } from './runContext';

export interface WalkResult extends StepsOutcome {
  /** Set when the walk stopped at a divergence and the config asks to continue with the real model. */
  continueReal?: boolean;
  /** The state of the recording's agent_end (what the fork's agent_end carries). */
  endState?: CheckpointInput;
}

/** Checkpoint summaries read at a time. */
const WALK_PAGE = 256;

/** The record of `toolCallId` in a checkpoint's ledger, searched from the end (a view reads only what it passes). */
function ledgerRecord(cp: Checkpoint, toolCallId: string): ToolCallRecord | undefined {
  const ledger = cp.toolLedgerSnapshot;
  for (let i = ledger.length - 1; i >= 0; i--) {
    const r = ledger[i] as ToolCallRecord;
    if (r.toolCallId === toolCallId) return r;
  }
  return undefined;
}

/** The tool call part `toolCallId` of the latest assistant message that has it. */
function toolCallPart(messages: readonly Message[], toolCallId: string) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role !== 'assistant') continue;
    const part = messageToolCalls(m).find((c) => c.toolCallId === toolCallId);
    if (part) return part;
  }
  return undefined;
}

/**
 * The fork's conversation at each recorded checkpoint: the recorded messages with the fork's own differing ones
 * (`overrides`, by index) in place. Kept from one checkpoint to the next: the store says how many messages a
 * checkpoint shares with the previous one, so only the new ones are read from the checkpoint's view, and the
 * shared ones stay the same objects (which the writer and the store recognise by identity).
 */
class ForkConversation {
  private readonly overrides = new Map<number, Message>();
  private list: Message[];
  private at: string;

  constructor(
    private readonly store: RunContext['store'],
    start: { checkpointId: string; messages: readonly Message[] },
  ) {
    this.at = start.checkpointId;
    this.list = start.messages as Message[]; // never changed: each checkpoint's list is a new one
  }

  /** The indices where the fork's conversation differs from the recording, in order. */
  get overridden(): number[] {
    return [...this.overrides.keys()].sort((a, b) => a - b);
  }

  /** Puts the fork's own `message` in place of the recorded one at `index` (from this checkpoint on). */
  override(index: number, message: Message): void {
    this.overrides.set(index, message);
    if (index < this.list.length) {
      this.list = [...this.list];
      this.list[index] = message;
    }
  }

  /** The fork's conversation at `cp` (a view of a recorded checkpoint). */
  messagesAt(cp: Checkpoint): Message[] {
    const recorded = cp.messages;
    if (cp.checkpointId !== this.at) {
      const shared = Math.min(this.store.sharedMessageCount(this.at, cp.checkpointId), this.list.length);
      const added: Message[] = [];
      for (let i = shared; i < recorded.length; i++) added.push(this.overrides.get(i) ?? (recorded[i] as Message));
      // Made from the list before (store extendList): the writer and the store take the shared part by identity.
      this.list = extendList(this.list, added, shared);
      this.at = cp.checkpointId;
    }
    return this.list;
  }
}

/** Walks the recording from the fork point; returns how it ended. Throws OcdbError for policy failures. */
export async function capturedWalk(ctx: RunContext): Promise<WalkResult> {
  const { store, plan, config, writer } = ctx;
  const conversation = new ForkConversation(store, {
    checkpointId: plan.sourceCheckpointId,
    messages: writer.state?.messages ?? [],
  });
  const answers = new Map<string, CassetteAnswer>();
  const started = new Set<string>();
  // The recording's checkpoints after the fork point, a page at a time (a walk may stop early).
  const summaries = (function* () {
    for (let offset = plan.sourceCheckpointIndex + 1; ; offset += WALK_PAGE) {
      const page = store.listCheckpoints(plan.sourceRunId, { offset, limit: WALK_PAGE });
      yield* page;
      if (page.length < WALK_PAGE) return;
    }
  })();
  // `recorded` model mode: the recorded turns are re-emitted under the fork's own prompt; a divergence is reported.
  const recordedOutputs = plan.modelMode === 'recorded';
  let firstDivergence: Divergence | undefined;
  const withDivergence = (result: WalkResult): WalkResult =>
    firstDivergence ? { ...result, divergence: firstDivergence } : result;

  const stateAt = (cp: Checkpoint): CheckpointInput => {
    const start = forkStartState(cp, config);
    const template = promptTemplateFor(ctx.metadata, start.promptVersion);
    const systemPrompt = template
      ? renderTemplate(template, start.runtimeContext, start.promptVersion)
      : cp.systemPrompt;
    const next: CheckpointInput = {
      messages: conversation.messagesAt(cp),
      runtimeContext: start.runtimeContext,
      stepIndex: cp.stepIndex,
    };
    if (systemPrompt !== undefined) next.systemPrompt = systemPrompt;
    if (start.model ?? cp.model) next.model = start.model ?? cp.model;
    if (start.promptVersion !== undefined) next.promptVersion = start.promptVersion;
    if (cp.artifactRefs) next.artifactRefs = cp.artifactRefs;
    return next;
  };

  /** Opens a recorded call in the fork (with its before_tool_call checkpoint when the recording has one). */
  const beginCall = (cp: Checkpoint, toolCallId: string, checkpoint: CheckpointInput | false): { toolName: string } => {
    const record = ledgerRecord(cp, toolCallId);
    const part = toolCallPart(writer.state?.messages ?? [], toolCallId);
    const toolName = part?.toolName ?? record?.toolName;
    if (!toolName) {
      throw new OcdbError(
        'Internal',
        `checkpoint ${cp.checkpointId} names tool call ${toolCallId}, which the recording does not describe`,
        {
          checkpointId: cp.checkpointId,
        },
      );
    }
    const args = part ? part.args : record?.args;
    const facts = ctx.gate.facts(toolName, record);
    const { answer, policy } = answerTool(ctx, toolName, args, facts);
    writer.beginTool(
      { toolCallId, toolName, args, sideEffectLevel: facts.level, replayPolicy: policy },
      { checkpoint },
    );
    answers.set(toolCallId, answer);
    started.add(toolCallId);
    return { toolName };
  };

  let i = -1;
  for (const summary of summaries) {
    i++;
    // Let the event loop breathe (an HTTP server or the debugger shares it; Cancel must get through).
    if (i % 16 === 15) await new Promise<void>((resolve) => setImmediate(resolve));
    checkAborted(ctx.signal);
    // A view: what the walk reads of its messages and ledger is what is new since the previous checkpoint.
    const cp = store.getCheckpointView(summary.checkpointId);
    switch (cp.boundary) {
      case 'before_prompt_build':
        writer.checkpoint('before_prompt_build', stateAt(cp));
        break;
      case 'before_model_call': {
        const next = stateAt(cp);
        const written = writer.checkpoint('before_model_call', next);
        if (firstDivergence && recordedOutputs) break; // reported once; the recorded outputs go on
        // The fork's conversation is the recorded one but where it put its own messages: only those can differ.
        const found = findDivergence(
          { systemPrompt: next.systemPrompt, messages: next.messages ?? [] },
          { systemPrompt: cp.systemPrompt, messages: cp.messages },
          { stepIndex: cp.stepIndex, sourceCheckpointIndex: summary.index, sourceCheckpointId: cp.checkpointId },
          conversation.overridden,
        );
        if (found) {
          const divergence: Divergence = { ...found, forkCheckpointId: written.checkpointId };
          if (recordedOutputs) {
            firstDivergence = divergence;
            break;
          }
          if (config.onDivergence === 'continue_real') return { status: 'completed', divergence, continueReal: true };
          throw diverged(divergence);
        }
        break;
      }
      case 'after_model_call': {
        writer.checkpoint('after_model_call', {
          ...stateAt(cp),
          ...(cp.finishReason !== undefined ? { finishReason: cp.finishReason } : {}),
          ...(cp.usage ? { usage: { ...cp.usage, captured: true } } : {}),
        });
        break;
      }
      case 'before_tool_call': {
        const toolCallId = cp.toolCallId ?? '';
        const checkpoint = { ...stateAt(cp), toolCallId };
        if (!started.has(toolCallId)) beginCall(cp, toolCallId, checkpoint);
        else writer.checkpoint('before_tool_call', checkpoint);
        break;
      }
      case 'after_tool_call': {
        const toolCallId = cp.toolCallId ?? '';
        const { toolName } = started.has(toolCallId)
          ? { toolName: writer.tool(toolCallId)?.toolName ?? '' }
          : beginCall(cp, toolCallId, false);
        const answer = answers.get(toolCallId) as CassetteAnswer;
        const index = cp.messages.findLastIndex((m) => m.role === 'tool' && m.toolCallId === toolCallId);
        const recordedMessage = cp.messages[index];
        if (recordedMessage) {
          const mine = toolResultMessage(
            toolCallId,
            toolName,
            answer.outcome,
            storedValue(answer.outcome, answer.value),
          );
          if (!sameContent(mine.content, recordedMessage.content)) {
            conversation.override(index, { ...recordedMessage, content: mine.content });
          }
        }
        // The recording's conversation (with the fork's own results in place) rather than a new tool message.
        writer.finishTool(toolCallId, answer.outcome, answer.value, {
          checkpoint: { ...stateAt(cp), toolCallId },
          appendMessage: false,
        });
        break;
      }
      case 'agent_end':
        return withDivergence({ ...sourceOutcome(ctx), endState: stateAt(cp) });
      default: {
        const unreachable: never = cp.boundary;
        throw new Error(`unknown boundary ${String(unreachable)}`);
      }
    }
  }
  return withDivergence(sourceOutcome(ctx));
}

/** The fork ends the way the recording did; a recording that stops without agent_end is reported as incomplete. */
function sourceOutcome(ctx: RunContext): WalkResult {
  const source = ctx.store.getRun(ctx.plan.sourceRunId);
  if (source.status === 'running') {
    return {
      status: 'failed',
      error: {
        code: 'source_incomplete',
        message: `The recording of ${source.runId} stops here (${source.crashed ? 'its process crashed' : 'it is still running'}); the replay reproduced every recorded checkpoint.`,
      },
    };
  }
  return source.error === undefined ? { status: source.status } : { status: source.status, error: source.error };
}

/**
 * Divergence: where a fork's prompt (or a real model's answer) first differs
 * from the recording — the shape the fork engine stores in a diverged run's
 * error (`{ code: 'diverged', message, divergence }`) and the one wording
 * every reader shows it with ("diverged at step 5 · system prompt"). Pure.
 */
import { z } from 'zod';

/**
 * What differed. Prompt fields (a captured fork stops there): `systemPrompt`, and of one message `role`,
 * `content`, `toolCallId`, `toolName`, or the number of messages (`messageCount`). Answer fields (a real model
 * answered differently from the recorded turn; reported, not fatal): `response`, `toolCalls`.
 */
export const DIVERGENCE_FIELDS = [
  'systemPrompt',
  'role',
  'content',
  'toolCallId',
  'toolName',
  'messageCount',
  'response',
  'toolCalls',
] as const;
export const DivergenceFieldSchema = z.enum(DIVERGENCE_FIELDS);
export type DivergenceField = z.infer<typeof DivergenceFieldSchema>;

export const DivergenceSchema = z.object({
  stepIndex: z.number().int(),
  /** Index of the recorded before_model_call checkpoint in the source run. */
  sourceCheckpointIndex: z.number().int(),
  sourceCheckpointId: z.string(),
  /** The fork's own checkpoint holding the prompt it rendered (the right side of "Show prompt difference"). */
  forkCheckpointId: z.string().optional(),
  /** -1: the system prompt. */
  messageIndex: z.number().int(),
  /** The role of the recorded message that differs (a `tool` message: a tool result changed). */
  messageRole: z.string().optional(),
  field: DivergenceFieldSchema,
  /** The two texts, clipped (the whole prompts are in the two checkpoints). */
  recorded: z.string(),
  rendered: z.string(),
});
export type Divergence = z.infer<typeof DivergenceSchema>;

/** What differed, in a user's words: "system prompt", "tool result", "messages", "model output", "tool calls". */
export function divergenceWhat(d: Pick<Divergence, 'field' | 'messageRole'>): string {
  switch (d.field) {
    case 'systemPrompt':
      return 'system prompt';
    case 'content':
      return d.messageRole === 'tool' ? 'tool result' : 'messages';
    case 'role':
    case 'toolCallId':
    case 'toolName':
      return 'messages';
    case 'messageCount':
      return 'message count';
    case 'response':
      return 'model output';
    case 'toolCalls':
      return 'tool calls';
    default: {
      const unreachable: never = d.field;
      return String(unreachable);
    }
  }
}

/** The one short line every reader shows: "diverged at step 5 · system prompt". */
export function divergenceSummary(d: Pick<Divergence, 'stepIndex' | 'field' | 'messageRole'>): string {
  return `diverged at step ${d.stepIndex} · ${divergenceWhat(d)}`;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * The divergence a stored error carries (`{ code: 'diverged', divergence }`, or an OcdbError `Diverged` as JSON
 * with `details.divergence`); undefined when the error is another or the shape is not a divergence.
 */
export function divergenceOfError(error: unknown): Divergence | undefined {
  const err = record(error);
  const code = typeof err?.code === 'string' ? err.code.toLowerCase() : undefined;
  if (code !== 'diverged' && err?.name !== 'Diverged') return undefined;
  const parsed = DivergenceSchema.safeParse(err?.divergence ?? record(err?.details)?.divergence);
  return parsed.success ? parsed.data : undefined;
}

/**
 * How a run's status reads everywhere (tree, `ocdb show`, `ocdb runs`, HTTP `statusText`): "crashed" for a
 * running run whose process died, "diverged at step 5 · system prompt" for a diverged run, else the status.
 */
export function runStatusText(run: { status: string; crashed?: boolean; error?: unknown }): string {
  if (run.crashed) return 'crashed';
  if (run.status === 'diverged') {
    const d = divergenceOfError(run.error);
    return d ? divergenceSummary(d) : 'diverged';
  }
  return run.status;
}

/**
 * Model-graded assertions of a what-if batch: a yes/no question about a run's end (its conversation and tool
 * calls, as text) put to the configured OpenAI-compatible endpoint, answered pass / fail with a reason. The
 * verdict is read from a JSON object (or a leading PASS / FAIL); anything else is a clear per-run error, never a
 * pass. After a few endpoint failures in a row the grader stops asking and says why, so a batch over hundreds of
 * runs does not wait out every retry against an endpoint that is down. What grading would cost is estimated
 * from the transcripts' length before the batch starts. The key never appears: the client redacts it.
 */
import { z } from 'zod';
import { OcdbError, errorMessage, isOcdbError, redactText } from '../model';
import type { ChatModel } from '../fork/modelClient';
import type { EvalState } from '../replay/evaluate';

/** The endpoint and model a batch grades with. */
export interface Grader {
  chatModel: ChatModel;
  /** The model asked when an assertion names none. */
  model: string;
}

export interface Verdict {
  passed: boolean;
  reason: string;
  /** Tokens the endpoint reported for this question (input + output). */
  tokens: number;
  inputTokens: number;
  outputTokens: number;
}

/** Transcripts longer than this keep their end (where the answer is) and say what was left out. */
const MAX_TRANSCRIPT = 24_000;
/** The grader stops asking after this many endpoint failures in a row. */
const MAX_FAILURES_IN_A_ROW = 3;
/** What one answer costs in output tokens, for the estimate (a verdict and a sentence). */
const ANSWER_TOKENS = 80;

const SYSTEM_PROMPT = [
  "You grade the end of an AI agent's run against one yes/no question.",
  'You are given the question, then the run: its conversation and the tool calls it made (name, arguments, result).',
  'Answer only with a JSON object: {"verdict": "pass" or "fail", "reason": "<one sentence>"}.',
  '"pass" means the answer to the question is yes for this run.',
].join('\n');

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The run's end as the grader reads it: every message, then every tool call with its arguments and result. */
export function transcriptOf(state: EvalState): string {
  const lines: string[] = [];
  if (state.systemPrompt) lines.push(`system: ${state.systemPrompt}`);
  for (const m of state.messages as { role?: unknown; content?: unknown; toolName?: unknown }[]) {
    const who = m.role === 'tool' && typeof m.toolName === 'string' ? `tool ${m.toolName}` : String(m.role);
    lines.push(`${who}: ${text(m.content ?? '')}`);
  }
  if (state.toolLedger.length > 0) lines.push('', 'Tool calls:');
  for (const c of state.toolLedger) {
    const outcome = c.error !== undefined ? `error ${text(c.error)}` : text(c.result ?? null);
    lines.push(`- ${c.toolName}(${text(c.args ?? {})}) → ${outcome}`);
  }
  const all = lines.join('\n');
  if (all.length <= MAX_TRANSCRIPT) return all;
  return `[… the first ${all.length - MAX_TRANSCRIPT} characters left out …]\n${all.slice(-MAX_TRANSCRIPT)}`;
}

/** The messages of the question about `state`. */
function questionOf(question: string, state: EvalState): string {
  return `Question: ${question}\n\nThe run (${state.runId}):\n${transcriptOf(state)}`;
}

/** Tokens one question about `state` is expected to take: about four characters a token, and the answer. */
export function estimateTokens(question: string, state: EvalState): { input: number; output: number } {
  return { input: Math.ceil((SYSTEM_PROMPT.length + questionOf(question, state).length) / 4), output: ANSWER_TOKENS };
}

const VerdictSchema = z.object({
  verdict: z.string().optional(),
  pass: z.boolean().optional(),
  passed: z.boolean().optional(),
  reason: z.string().optional(),
});

/** Reads a verdict from the model's answer: a JSON object (maybe fenced), or PASS / FAIL first; else throws. */
export function readVerdict(answer: string): { passed: boolean; reason: string } {
  const trimmed = answer.trim();
  const json = /\{[\s\S]*\}/.exec(trimmed)?.[0];
  if (json !== undefined) {
    try {
      const parsed = VerdictSchema.safeParse(JSON.parse(json));
      if (parsed.success) {
        const v = parsed.data;
        const word = v.verdict?.trim().toLowerCase();
        const passed =
          word === 'pass' || word === 'yes' ? true : word === 'fail' || word === 'no' ? false : (v.pass ?? v.passed);
        if (passed !== undefined) return { passed, reason: (v.reason ?? '').trim() };
      }
    } catch {
      // not JSON after all: try the words below
    }
  }
  const word = /^\W*(pass|fail|yes|no)\b[\s:.,—-]*([\s\S]*)$/i.exec(trimmed);
  if (word) {
    const w = (word[1] as string).toLowerCase();
    return { passed: w === 'pass' || w === 'yes', reason: (word[2] as string).trim() };
  }
  const shown = redactText(trimmed).slice(0, 120);
  throw new OcdbError(
    'ModelEndpointError',
    `the grader answered no verdict (expected {"verdict": "pass"|"fail", "reason": …}): ${shown ? JSON.stringify(shown) : 'an empty answer'}`,
  );
}

/** Asks the questions of one batch; shared by its runs so endpoint failures in a row are counted across them. */
export class BatchGrader {
  private failuresInARow = 0;
  private lastFailure = '';

  constructor(private readonly grader: Grader) {}

  /** The model a question naming `model` (or none) is put to. */
  modelOf(model?: string): string {
    return model ?? this.grader.model;
  }

  /** The verdict of `question` over `state`; throws with a message fit for the run's result. */
  async grade(question: string, state: EvalState, model?: string, signal?: AbortSignal): Promise<Verdict> {
    if (this.failuresInARow >= MAX_FAILURES_IN_A_ROW) {
      throw new OcdbError(
        'ModelEndpointError',
        `not asked: the grader's endpoint failed ${this.failuresInARow} times in a row (last: ${this.lastFailure})`,
      );
    }
    let result;
    try {
      result = await this.grader.chatModel.complete(
        {
          systemPrompt: SYSTEM_PROMPT,
          messages: [{ role: 'user', content: questionOf(question, state) }],
          model: { provider: 'openai', model: this.modelOf(model), temperature: 0 },
          tools: [],
        },
        signal,
      );
    } catch (e) {
      if (isOcdbError(e) && e.code === 'Cancelled') throw e;
      this.failuresInARow++;
      this.lastFailure = redactText(errorMessage(e)).slice(0, 300);
      throw new OcdbError('ModelEndpointError', `the grader's endpoint failed: ${this.lastFailure}`);
    }
    this.failuresInARow = 0;
    const inputTokens = result.usage?.inputTokens ?? 0;
    const outputTokens = result.usage?.outputTokens ?? 0;
    const verdict = readVerdict(text(result.message.content ?? ''));
    return { ...verdict, inputTokens, outputTokens, tokens: inputTokens + outputTokens };
  }
}

/**
 * Prompt rendering and divergence detection for replays and forks. A run may
 * keep its system-prompt template in metadata (`promptTemplates` by prompt
 * version, or one `promptTemplate`) with `{{path}}` placeholders over the
 * runtime context (`{{user.roleId}}`, `{{runtimeContext.task.taskId}}`,
 * `{{promptVersion}}`); without one the recorded system prompt stands. Before
 * a captured model turn is re-emitted, the prompt rendered from the fork's
 * state is compared with the recorded one; the first difference is the
 * divergence (step, message index, field). Pure.
 */
import { canonicalJson, messageText, type Message, type RuntimeContextSnapshot } from '../model';

/** Where a fork's prompt first differs from the recording. messageIndex -1 means the system prompt. */
export interface Divergence {
  stepIndex: number;
  /** Index of the recorded before_model_call checkpoint in the source run. */
  sourceCheckpointIndex: number;
  sourceCheckpointId: string;
  messageIndex: number;
  field: 'systemPrompt' | 'role' | 'content' | 'toolCallId' | 'toolName' | 'messageCount';
  recorded: string;
  rendered: string;
}

export interface RenderedPrompt {
  systemPrompt?: string;
  messages: readonly Message[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The template of `promptVersion` in run metadata, else the run's single template, else undefined. */
export function promptTemplateFor(
  metadata: Record<string, unknown>,
  promptVersion: string | undefined,
): string | undefined {
  const byVersion = metadata.promptTemplates;
  if (isRecord(byVersion) && promptVersion !== undefined && typeof byVersion[promptVersion] === 'string') {
    return byVersion[promptVersion];
  }
  return typeof metadata.promptTemplate === 'string' ? metadata.promptTemplate : undefined;
}

/** Renders `{{path}}` placeholders over the runtime context; strings as is, other values as JSON, missing as ''. */
export function renderTemplate(template: string, context: RuntimeContextSnapshot, promptVersion?: string): string {
  return template.replace(/\{\{\s*([\w.$-]+)\s*\}\}/g, (_m, path: string) => {
    if (path === 'promptVersion') return promptVersion ?? context.model.promptVersion;
    const keys = path.split('.');
    if (keys[0] === 'runtimeContext') keys.shift();
    let cur: unknown = context;
    for (const key of keys) cur = isRecord(cur) ? cur[key] : undefined;
    if (cur === undefined || cur === null) return '';
    return typeof cur === 'string' ? cur : JSON.stringify(cur);
  });
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** The first difference between the rendered and the recorded prompt, or undefined when they agree. */
export function findDivergence(
  rendered: RenderedPrompt,
  recorded: RenderedPrompt,
  where: { stepIndex: number; sourceCheckpointIndex: number; sourceCheckpointId: string },
): Divergence | undefined {
  const at = (messageIndex: number, field: Divergence['field'], rec: string, ren: string): Divergence => ({
    ...where,
    messageIndex,
    field,
    recorded: clip(rec),
    rendered: clip(ren),
  });
  if ((rendered.systemPrompt ?? '') !== (recorded.systemPrompt ?? '')) {
    return at(-1, 'systemPrompt', recorded.systemPrompt ?? '', rendered.systemPrompt ?? '');
  }
  const n = Math.min(rendered.messages.length, recorded.messages.length);
  for (let i = 0; i < n; i++) {
    const a = rendered.messages[i] as Message;
    const b = recorded.messages[i] as Message;
    if (a.role !== b.role) return at(i, 'role', b.role, a.role);
    if ((a.toolCallId ?? '') !== (b.toolCallId ?? ''))
      return at(i, 'toolCallId', b.toolCallId ?? '', a.toolCallId ?? '');
    if ((a.toolName ?? '') !== (b.toolName ?? '')) return at(i, 'toolName', b.toolName ?? '', a.toolName ?? '');
    if (canonicalJson(a.content) !== canonicalJson(b.content)) {
      const text = (m: Message) => (typeof m.content === 'string' ? m.content : canonicalJson(m.content));
      return at(i, 'content', text(b) || messageText(b), text(a) || messageText(a));
    }
  }
  if (rendered.messages.length !== recorded.messages.length) {
    return at(n, 'messageCount', String(recorded.messages.length), String(rendered.messages.length));
  }
  return undefined;
}

/** One line for CLI output and logs. */
export function describeDivergence(d: Divergence): string {
  const where = d.messageIndex < 0 ? 'the system prompt' : `message ${d.messageIndex} (${d.field})`;
  return `step ${d.stepIndex}, before_model_call #${d.sourceCheckpointIndex}: ${where} differs — recorded ${JSON.stringify(d.recorded)}, rendered ${JSON.stringify(d.rendered)}`;
}

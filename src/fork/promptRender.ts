/**
 * Prompt rendering for replays and forks. A run may
 * keep its system-prompt template in metadata (`promptTemplates` by prompt
 * version, or one `promptTemplate`) with `{{path}}` placeholders over the
 * runtime context (`{{user.roleId}}`, `{{runtimeContext.task.taskId}}`,
 * `{{promptVersion}}`); without one the recorded system prompt stands. Before
 * a captured model turn is re-emitted, the prompt rendered from the fork's
 * state is compared with the recorded one (divergence.ts). Pure.
 */
import type { RuntimeContextSnapshot } from '../model';

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

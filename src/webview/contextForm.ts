/**
 * The runtime context as an editable form: one text field per known path
 * (strings, comma lists, JSON), a JSON field for every other key, parsing and
 * validation with the field's own error, the changed-field marks, and the
 * minimal contextPatch that turns the original into the edited context.
 * Pure (no DOM, no vscode): the page renders it, unit tests check it.
 */
import { RuntimeContextSnapshotSchema, type RuntimeContextSnapshot } from '../model/context';

export type FieldKind = 'string' | 'optionalString' | 'list' | 'json';

export interface FieldDef {
  /** Dotted path in the runtime context; `extra` holds every key not listed. */
  path: string;
  label: string;
  kind: FieldKind;
  section: 'user' | 'conversation' | 'project' | 'task' | 'tools' | 'model' | 'extra';
}

export const FIELDS: readonly FieldDef[] = [
  { path: 'user.userId', label: 'User id', kind: 'string', section: 'user' },
  { path: 'user.roleId', label: 'Role', kind: 'string', section: 'user' },
  { path: 'user.permissions', label: 'Permissions (comma-separated)', kind: 'list', section: 'user' },
  { path: 'conversation.sessionId', label: 'Session id', kind: 'string', section: 'conversation' },
  { path: 'conversation.summary', label: 'Summary', kind: 'optionalString', section: 'conversation' },
  { path: 'project.projectId', label: 'Project id', kind: 'string', section: 'project' },
  { path: 'project.reportId', label: 'Report id', kind: 'optionalString', section: 'project' },
  { path: 'task.taskId', label: 'Task id', kind: 'string', section: 'task' },
  { path: 'task.workflowId', label: 'Workflow id', kind: 'string', section: 'task' },
  { path: 'task.stepStates', label: 'Step states (JSON object)', kind: 'json', section: 'task' },
  { path: 'tools.availableTools', label: 'Available tools (comma-separated)', kind: 'list', section: 'tools' },
  { path: 'tools.toolMocks', label: 'Tool mocks (JSON object, optional)', kind: 'json', section: 'tools' },
  { path: 'model.provider', label: 'Provider', kind: 'string', section: 'model' },
  { path: 'model.model', label: 'Model', kind: 'string', section: 'model' },
  { path: 'model.promptVersion', label: 'Prompt version', kind: 'string', section: 'model' },
  { path: 'extra', label: 'Other keys (JSON object)', kind: 'json', section: 'extra' },
];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function getPath(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const key of path.split('.')) {
    if (!isObj(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

function setPath(root: Obj, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur: Obj = root;
  for (const key of keys.slice(0, -1)) {
    const next = cur[key];
    if (!isObj(next)) cur[key] = {};
    cur = cur[key] as Obj;
  }
  const last = keys[keys.length - 1] as string;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

/** The context without the listed fields: what the `extra` JSON shows. */
export function extraKeys(context: RuntimeContextSnapshot): Obj {
  const copy = structuredClone(context) as Obj;
  for (const f of FIELDS) if (f.path !== 'extra') setPath(copy, f.path, undefined);
  for (const key of Object.keys(copy))
    if (isObj(copy[key]) && Object.keys(copy[key] as Obj).length === 0) delete copy[key];
  return copy;
}

/** The text a field shows for a context value. */
export function fieldText(def: FieldDef, context: RuntimeContextSnapshot): string {
  const value = def.path === 'extra' ? extraKeys(context) : getPath(context, def.path);
  switch (def.kind) {
    case 'string':
    case 'optionalString':
      return typeof value === 'string' ? value : '';
    case 'list':
      return Array.isArray(value) ? value.map(String).join(', ') : '';
    case 'json':
      return value === undefined ? '' : JSON.stringify(value, null, 2);
    default: {
      const unreachable: never = def.kind;
      return unreachable;
    }
  }
}

/** All field texts of a context (the form's initial values). */
export function formValues(context: RuntimeContextSnapshot): Record<string, string> {
  return Object.fromEntries(FIELDS.map((f) => [f.path, fieldText(f, context)]));
}

/** Parses one field's text; `error` says what is wrong in words. */
export function parseField(def: FieldDef, text: string): { value?: unknown; error?: string } {
  switch (def.kind) {
    case 'string':
      return { value: text };
    case 'optionalString':
      return text === '' ? { value: undefined } : { value: text };
    case 'list':
      return {
        value: text
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
      };
    case 'json': {
      if (text.trim() === '')
        return def.path === 'tools.toolMocks' || def.path === 'extra'
          ? { value: undefined }
          : { error: 'a JSON object is required' };
      try {
        const value: unknown = JSON.parse(text);
        if (!isObj(value)) return { error: 'must be a JSON object ({ ... })' };
        return { value };
      } catch (e) {
        return { error: `not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
      }
    }
    default: {
      const unreachable: never = def.kind;
      return unreachable;
    }
  }
}

export interface FormResult {
  /** Errors by field path (a field's own parse error, or the schema's complaint about its value). */
  errors: Record<string, string>;
  /** The edited context when every field is valid. */
  context?: RuntimeContextSnapshot;
  /** Paths of the fields whose text differs from the original. */
  changed: string[];
}

/** Builds and validates the edited context from the field texts. */
export function readForm(original: RuntimeContextSnapshot, values: Readonly<Record<string, string>>): FormResult {
  const initial = formValues(original);
  const changed = FIELDS.filter((f) => (values[f.path] ?? initial[f.path]) !== initial[f.path]).map((f) => f.path);
  const errors: Record<string, string> = {};
  // Start from the original minus listed fields, so keys the form does not know survive.
  let next: Obj = {};
  const extra = FIELDS.find((f) => f.path === 'extra') as FieldDef;
  const extraParsed = parseField(extra, values.extra ?? initial.extra ?? '');
  if (extraParsed.error) errors.extra = extraParsed.error;
  else next = structuredClone((extraParsed.value as Obj | undefined) ?? {});
  for (const f of FIELDS) {
    if (f.path === 'extra') continue;
    const parsed = parseField(f, values[f.path] ?? initial[f.path] ?? '');
    if (parsed.error) errors[f.path] = parsed.error;
    else setPath(next, f.path, parsed.value);
  }
  const checked = RuntimeContextSnapshotSchema.safeParse(next);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const path = issue.path.map(String).join('.');
      const field = FIELDS.find((f) => f.path !== 'extra' && (path === f.path || path.startsWith(`${f.path}.`)));
      const key = field ? field.path : 'extra';
      errors[key] ??= path === '' || field ? issue.message : `${path}: ${issue.message}`;
    }
  }
  if (Object.keys(errors).length > 0 || !checked.success) return { errors, changed };
  return { errors, changed, context: checked.data };
}

/**
 * The minimal patch (objects recurse, arrays and scalars replace, `null`
 * removes) that deepMerge turns `before` into `after` with. Empty when equal.
 */
export function diffPatch(before: unknown, after: unknown): Obj {
  const patch: Obj = {};
  if (!isObj(before) || !isObj(after)) return patch;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[key];
    const b = after[key];
    if (b === undefined) {
      if (a !== undefined) patch[key] = null;
    } else if (isObj(a) && isObj(b)) {
      const inner = diffPatch(a, b);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      patch[key] = b;
    }
  }
  return patch;
}

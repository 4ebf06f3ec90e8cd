/**
 * Streamed Chat Completions (`chat.completion.chunk` records, one a line or
 * in an array) assembled into the `chat.completion` they stream: content
 * deltas concatenated, tool calls by `index` (id and name from their first
 * delta, arguments concatenated), the last finish_reason, the usage of the
 * final chunk (`stream_options.include_usage`). Pure.
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for one streamed chunk of a chat completion. */
export function isChunk(value: unknown): value is Obj {
  if (!isObj(value)) return false;
  if (value.object === 'chat.completion.chunk') return true;
  return Array.isArray(value.choices) && value.choices.some((c) => isObj(c) && 'delta' in c);
}

interface CallDraft {
  id: string;
  name: string;
  arguments: string;
}

/** Collects the chunks of one streamed response; `completion()` answers it as a chat.completion. */
export class ChunkAssembler {
  readonly id: string | undefined;
  private content = '';
  private hasContent = false;
  private readonly calls = new Map<number, CallDraft>();
  private finishReason: string | undefined;
  private usage: unknown;
  private model: string | undefined;
  private created: number | undefined;
  private role = 'assistant';

  constructor(first: Obj) {
    this.id = typeof first.id === 'string' ? first.id : undefined;
    this.add(first);
  }

  /** True when `chunk` belongs to this response (same id, or neither has one). */
  accepts(chunk: Obj): boolean {
    return (typeof chunk.id === 'string' ? chunk.id : undefined) === this.id;
  }

  add(chunk: Obj): void {
    if (typeof chunk.model === 'string') this.model ??= chunk.model;
    if (typeof chunk.created === 'number') this.created ??= chunk.created;
    if (isObj(chunk.usage)) this.usage = chunk.usage;
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isObj(choice) || (typeof choice.index === 'number' && choice.index !== 0)) continue;
      if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
      const delta = isObj(choice.delta) ? choice.delta : {};
      if (typeof delta.role === 'string') this.role = delta.role;
      if (typeof delta.content === 'string') {
        this.content += delta.content;
        this.hasContent = true;
      }
      for (const [i, tc] of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []).entries()) {
        if (!isObj(tc)) continue;
        const index = typeof tc.index === 'number' ? tc.index : i;
        const draft = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
        if (typeof tc.id === 'string' && tc.id !== '') draft.id = tc.id;
        const fn = isObj(tc.function) ? tc.function : {};
        if (typeof fn.name === 'string') draft.name += fn.name;
        if (typeof fn.arguments === 'string') draft.arguments += fn.arguments;
        this.calls.set(index, draft);
      }
    }
  }

  completion(): Obj {
    const calls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    const message: Obj = { role: this.role, content: this.hasContent ? this.content : null };
    if (calls.length > 0) {
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      }));
    }
    const out: Obj = {
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: this.finishReason ?? null }],
    };
    if (this.id !== undefined) out.id = this.id;
    if (this.model !== undefined) out.model = this.model;
    if (this.created !== undefined) out.created = this.created;
    if (this.usage !== undefined) out.usage = this.usage;
    return out;
  }
}

/** Replaces every run of chunks in `records` (and a `response` that is an array of chunks) by its completion. */
export function assembleChunks<T extends { value: unknown; where: string }>(records: T[]): T[] {
  const out: T[] = [];
  let open: { asm: ChunkAssembler; rec: T } | undefined;
  const flush = () => {
    if (open) out.push({ ...open.rec, value: open.asm.completion() });
    open = undefined;
  };
  for (const rec of records) {
    const v = rec.value;
    if (isChunk(v)) {
      if (open?.asm.accepts(v)) open.asm.add(v);
      else {
        flush();
        open = { asm: new ChunkAssembler(v), rec };
      }
      continue;
    }
    flush();
    if (isObj(v) && Array.isArray(v.response) && v.response.length > 0 && v.response.every(isChunk)) {
      const [first, ...rest] = v.response as Obj[];
      const asm = new ChunkAssembler(first as Obj);
      for (const c of rest) asm.add(c);
      out.push({ ...rec, value: { ...v, response: asm.completion() } });
    } else out.push(rec);
  }
  flush();
  return out;
}

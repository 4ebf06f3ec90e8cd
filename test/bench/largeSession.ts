/**
 * A large Claude Code session for the session-files bench, made from the real session of test/fixtures/importers
 * (claude-code/7f3c2a10-…): its own records — the user prompt, the assistant's tool_use turns for Read, Edit, Bash and
 * Task, their tool_result records with their toolUseResult copies — cloned with new ids, times, inputs and results,
 * never a format of our own. The session reads `files` files, then edits them (each Edit replaces one line by two,
 * so every file's text is known and every edit applies), runs a shell step every `shellEvery` calls, reads a file
 * again every `readEvery` calls (the import checks its rebuilt text against it), and starts its sub-agent once (the
 * fixture's sub-agent file, nested under the session as Claude Code keeps it). `records()` gives the lines; the
 * caller writes all of them, or a part and then the rest (a session that grew).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURE = join(__dirname, '..', 'fixtures', 'importers', 'claude-code');
const SOURCE_ID = '7f3c2a10-5d4e-4b8a-9c1f-2e6d8b0a4c11';
const SOURCE_CWD = '/home/dev/projects/calendar-kit';
export const SESSION_ID = '5e551000-2b2b-4c3c-8d4d-0e0e0e0e0e0e';
export const CWD = '/home/dev/projects/big-app';

type Rec = Record<string, unknown> & { message?: { content?: unknown } };

/** The fixture's records: the first user prompt and the first tool_use / tool_result pair of each tool. */
function templates(): { prompt: Rec; use: Map<string, Rec>; result: Map<string, Rec> } {
  const recs = readFileSync(join(FIXTURE, `${SOURCE_ID}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l.replaceAll(SOURCE_CWD, CWD).replaceAll(SOURCE_ID, SESSION_ID)) as Rec);
  const prompt = recs.find((r) => r.type === 'user' && typeof r.message?.content === 'string') as Rec;
  const use = new Map<string, Rec>();
  const result = new Map<string, Rec>();
  const ids = new Map<string, string>();
  for (const r of recs) {
    const content = Array.isArray(r.message?.content) ? (r.message.content as Record<string, unknown>[]) : [];
    for (const c of content) {
      if (r.type === 'assistant' && c.type === 'tool_use' && !use.has(String(c.name))) {
        use.set(String(c.name), r);
        ids.set(String(c.id), String(c.name));
      }
      const name = ids.get(String(c.tool_use_id));
      if (r.type === 'user' && c.type === 'tool_result' && name && !result.has(name)) result.set(name, r);
    }
  }
  for (const tool of ['Read', 'Edit', 'Bash', 'Task'])
    if (!use.has(tool) || !result.has(tool)) throw new Error(`the fixture has no ${tool} pair`);
  return { prompt, use, result };
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const numbered = (text: string) =>
  text
    .split('\n')
    .map((l, i) => `${String(i + 1).padStart(6)}\u2192${l}`)
    .join('\n');

export interface SessionShape {
  toolCalls: number;
  files: number;
  linesPerFile: number;
  shellEvery: number;
  readEvery: number;
}

export const LARGE: SessionShape = { toolCalls: 2000, files: 50, linesPerFile: 120, shellEvery: 20, readEvery: 100 };

/** The session's records, one JSON line each, in order; and the sub-agent file's. */
export function records(shape: SessionShape): { lines: string[]; subagent: string; edits: number } {
  const t = templates();
  const files = Array.from({ length: shape.files }, (_, f) =>
    Array.from({ length: shape.linesPerFile }, (_, k) => `export const v_${f}_${k} = ${k};`),
  );
  const pathOf = (f: number) => `${CWD}/src/module${f}.ts`;
  const lines: string[] = [];
  let n = 0;
  let parent: string | null = null;
  const start = Date.parse('2026-03-02T09:00:00.000Z');
  const stamp = (r: Rec) => {
    n++;
    const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    r.uuid = uuid;
    r.parentUuid = parent;
    r.timestamp = new Date(start + n * 1000).toISOString();
    parent = uuid;
    lines.push(JSON.stringify(r));
    return uuid;
  };
  const prompt = (text: string) => {
    const r = clone(t.prompt);
    (r.message as { content: unknown }).content = text;
    stamp(r);
  };
  const call = (
    tool: string,
    i: number,
    input: Record<string, unknown>,
    output: unknown,
    toolUseResult: unknown,
    isError = false,
  ) => {
    const id = `toolu_big${String(i).padStart(5, '0')}`;
    const u = clone(t.use.get(tool) as Rec);
    const m = u.message as Record<string, unknown>;
    m.id = `msg_big${i}`;
    m.content = [{ type: 'tool_use', id, name: tool, input }];
    u.requestId = `req_big${i}`;
    const from = stamp(u);
    const res = clone(t.result.get(tool) as Rec);
    (res.message as { content: unknown }).content = [
      { tool_use_id: id, type: 'tool_result', content: output, is_error: isError },
    ];
    res.toolUseResult = toolUseResult;
    if ('sourceToolAssistantUUID' in res) res.sourceToolAssistantUUID = from;
    stamp(res);
  };
  prompt('Rename every exported constant of src/ and keep the build green.');
  let edits = 0;
  for (let i = 0; i < shape.toolCalls; i++) {
    if (i > 0 && i % 100 === 0) prompt(`Go on with the next modules (${i} calls so far).`);
    if (i < shape.files || (i % shape.readEvery === 0 && i > 0)) {
      const f = i < shape.files ? i : (i / shape.readEvery) % shape.files;
      const text = (files[f] as string[]).join('\n') + '\n';
      call('Read', i, { file_path: pathOf(f) }, numbered(text), {
        type: 'text',
        file: {
          filePath: pathOf(f),
          content: text,
          numLines: text.split('\n').length,
          startLine: 1,
          totalLines: text.split('\n').length,
        },
      });
    } else if (i === 60) {
      // the sub-agent, started and answered as the fixture's Task call was
      const use = ((t.use.get('Task') as Rec).message as { content: { input: Record<string, unknown> }[] }).content;
      const res = ((t.result.get('Task') as Rec).message as { content: { content: unknown }[] }).content;
      call('Task', i, use[0]?.input ?? {}, res[0]?.content, (t.result.get('Task') as Rec).toolUseResult);
    } else if (i % shape.shellEvery === 0) {
      call('Bash', i, { command: 'npm run build', description: 'Build' }, `built in ${i % 7}.${i % 10}s`, {
        stdout: `built in ${i % 7}.${i % 10}s`,
        stderr: '',
        interrupted: false,
        isImage: false,
      });
    } else {
      const f = (i * 7) % shape.files;
      const body = files[f] as string[];
      const at = (i * 13) % body.length;
      const old = body[at] as string;
      const added = [`${old} // edited at ${i}`, `export const extra_${f}_${i} = ${i};`];
      body.splice(at, 1, ...added);
      edits++;
      call(
        'Edit',
        i,
        { file_path: pathOf(f), old_string: old, new_string: added.join('\n') },
        `The file ${pathOf(f)} has been updated.`,
        { filePath: pathOf(f), oldString: old, newString: added.join('\n') },
      );
    }
  }
  const subagent = readFileSync(join(FIXTURE, SOURCE_ID, 'subagents', 'agent-a7e1c2d.jsonl'), 'utf8')
    .replaceAll(SOURCE_CWD, CWD)
    .replaceAll(SOURCE_ID, SESSION_ID);
  return { lines, subagent, edits };
}

/** Writes the session (its first `count` lines, all by default) and its sub-agent under `dir`; the session's file. */
export function writeSession(dir: string, all: readonly string[], subagent: string, count = all.length): string {
  const file = join(dir, `${SESSION_ID}.jsonl`);
  writeFileSync(file, all.slice(0, count).join('\n') + '\n');
  mkdirSync(join(dir, SESSION_ID, 'subagents'), { recursive: true });
  writeFileSync(join(dir, SESSION_ID, 'subagents', 'agent-a7e1c2d.jsonl'), subagent);
  return file;
}

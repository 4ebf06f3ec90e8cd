/**
 * A large Codex rollout for the session-files bench and the tail-import tests, made from the real Codex 0.60.1
 * rollout of test/fixtures/importers (codex/rollout-2025-11-22T21-45-35-019aad50-…): its own records — the
 * session_meta, the injected environment context, the prompt (as an item and as an event), the turn context, and
 * the records of its first shell call (the reasoning event, the token count, the encrypted reasoning item, the
 * `shell_command` call and its output, the next turn context and the repeated count) — cloned with new call ids,
 * times, commands, outputs and growing token totals, never a format of our own. `rolloutRecords()` gives the
 * lines; the caller writes all of them, or a part and then the rest (a rollout that grew).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURE = join(
  __dirname,
  '..',
  'fixtures',
  'importers',
  'codex',
  'rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl',
);
export const ROLLOUT_ID = '019aad50-a7e6-7422-b7a8-0b384290624f';
export const ROLLOUT_RUN = `codex-${ROLLOUT_ID}`;
export const ROLLOUT_NAME = `rollout-2025-11-22T21-45-35-${ROLLOUT_ID}.jsonl`;

type Rec = Record<string, unknown> & { payload: Record<string, unknown> };

/** The rollout's lines, one JSON record each: its first six as published, then `calls` shell calls. */
export function rolloutRecords(calls: number): string[] {
  const recs = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Rec);
  const head = recs.slice(0, 6);
  // the first call's records: agent_reasoning, token_count, reasoning, function_call, its output, turn_context, repeat
  const call = recs.slice(7, 14);
  const lines = head.map((r) => JSON.stringify(r));
  const start = Date.parse('2025-11-22T20:48:45.000Z');
  let input = 0;
  let cached = 0;
  let output = 0;
  for (let i = 0; i < calls; i++) {
    const at = (k: number) => new Date(start + i * 4000 + k * 100).toISOString();
    const id = `call_${String(i).padStart(6, '0')}bench${'x'.repeat(8)}`;
    const command = `sed -n '${i + 1},${i + 40}p' src/board${i % 25}.ts`;
    const out = Array.from({ length: 30 }, (_, k) => `  const cell_${i}_${k} = board[${k % 8}][${(i + k) % 8}];`).join(
      '\n',
    );
    input += 3500 + (i % 300);
    cached += 3072;
    output += 30 + (i % 7);
    const total = {
      input_tokens: input,
      cached_input_tokens: cached,
      output_tokens: output,
      reasoning_output_tokens: 0,
      total_tokens: input + output,
    };
    const last = { input_tokens: 3500 + (i % 300), cached_input_tokens: 3072, output_tokens: 30 + (i % 7) };
    call.forEach((template, k) => {
      const r = JSON.parse(JSON.stringify(template)) as Rec;
      r.timestamp = at(k);
      const p = r.payload;
      if (p.type === 'token_count' && p.info)
        p.info = { ...(p.info as object), total_token_usage: total, last_token_usage: last };
      if (p.type === 'agent_reasoning') p.text = `**Reading board ${i}**`;
      if (p.type === 'reasoning') p.summary = [{ type: 'summary_text', text: `**Reading board ${i}**` }];
      if (p.type === 'function_call') {
        p.call_id = id;
        p.arguments = JSON.stringify({ command, workdir: '.', timeout_ms: 120000 });
      }
      if (p.type === 'function_call_output') {
        p.call_id = id;
        p.output = `Exit code: 0\nWall time: 0 seconds\nOutput:\n${out}\n`;
      }
      lines.push(JSON.stringify(r));
    });
  }
  return lines;
}

/** Writes the first `upTo` lines (all by default) as the rollout `dir/<ROLLOUT_NAME>`; answers its path. */
export function writeRollout(dir: string, lines: readonly string[], upTo = lines.length): string {
  const file = join(dir, ROLLOUT_NAME);
  writeFileSync(file, lines.slice(0, upTo).join('\n') + '\n');
  return file;
}

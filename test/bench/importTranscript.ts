/**
 * Writes a synthetic Claude Code transcript of about `bytes` bytes for the
 * import benchmark: rounds of a split assistant response (text + tool_use),
 * hook progress lines and a tool_result with its structured toolUseResult
 * copy (as real transcripts carry), a user prompt every 40 rounds and an
 * auto-compaction every 200. With `screenshotEvery`, every so many rounds' tool
 * reads a screenshot instead: its result an image block of base64 data (a
 * different ~300 KB picture each time, incompressible as PNG data is) and its
 * toolUseResult the image again, as Claude Code writes a Read of a PNG. Streams
 * to disk; never holds the file.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const TOOLS = ['Read', 'Grep', 'Bash', 'Edit', 'Glob'];

function fileBody(i: number, size: number): string {
  const lines: string[] = [];
  let n = 0;
  for (let k = 1; n < size; k++) {
    const line = `${String(k).padStart(6)}\u2192export function helper${i}_${k}(value: number): number { return value * ${k} + ${i}; }`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n');
}

/** `bytes` of deterministic incompressible data (xorshift), as base64: a screenshot's PNG stands in. */
function pictureBase64(seed: number, bytes: number): string {
  const buf = Buffer.alloc(bytes);
  let x = (seed * 2654435761 + 1) >>> 0 || 1;
  for (let i = 0; i < bytes; i += 4) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    buf.writeUInt32LE(x, i);
  }
  return buf.toString('base64');
}

export async function writeTranscript(
  file: string,
  bytes: number,
  options: { screenshotEvery?: number } = {},
): Promise<{ lines: number; bytes: number }> {
  const out = createWriteStream(file);
  const sessionId = '0b5e0000-1111-4222-8333-444455556666';
  const env = {
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/big-project',
    sessionId,
    version: '2.1.50',
    gitBranch: 'main',
  };
  let written = 0;
  let lines = 0;
  let uuidN = 0;
  let parent: string | null = null;
  let t = Date.UTC(2026, 0, 5, 9, 0, 0);
  const uuid = () => `00000000-0000-4000-8000-${String(++uuidN).padStart(12, '0')}`;
  const ts = () => new Date((t += 1500)).toISOString();
  const emit = async (obj: Record<string, unknown>) => {
    const text = JSON.stringify(obj) + '\n';
    written += Buffer.byteLength(text);
    lines++;
    if (!out.write(text)) await once(out, 'drain');
  };
  const node = async (obj: Record<string, unknown>) => {
    const id = uuid();
    await emit({ parentUuid: parent, ...env, ...obj, uuid: id, timestamp: ts() });
    parent = id;
    return id;
  };
  await node({
    type: 'user',
    message: { role: 'user', content: 'Refactor the helpers module and keep the tests green.' },
  });
  for (let round = 0; written < bytes; round++) {
    const msgId = `msg_${round}`;
    const tool = TOOLS[round % TOOLS.length] as string;
    const toolId = `toolu_${round}`;
    const usage = {
      input_tokens: 3,
      cache_creation_input_tokens: 400,
      cache_read_input_tokens: 20000 + round,
      output_tokens: 60,
    };
    await node({
      type: 'assistant',
      requestId: `req_${round}`,
      message: {
        model: 'claude-sonnet-4-5-20250929',
        id: msgId,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: `Step ${round}: checking helper ${round}.` }],
        stop_reason: null,
        usage,
      },
    });
    const toolLine = await node({
      type: 'assistant',
      requestId: `req_${round}`,
      message: {
        model: 'claude-sonnet-4-5-20250929',
        id: msgId,
        type: 'message',
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: toolId,
            name: tool,
            input: { file_path: `/home/dev/big-project/src/helpers${round}.ts` },
          },
        ],
        stop_reason: 'tool_use',
        usage,
      },
    });
    await node({
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'PreToolUse', hookName: `PreToolUse:${tool}`, command: 'audit.sh' },
      toolUseID: toolId,
      parentToolUseID: toolId,
    });
    parent = toolLine;
    const every = options.screenshotEvery;
    if (every !== undefined && round % every === every - 1) {
      const data = pictureBase64(round, 200_000 + (round % 5) * 40_000);
      await node({
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              tool_use_id: toolId,
              type: 'tool_result',
              content: [{ type: 'image', source: { type: 'base64', data, media_type: 'image/png' } }],
            },
          ],
        },
        toolUseResult: {
          type: 'image',
          file: {
            base64: data,
            type: 'image/png',
            originalSize: (data.length * 3) / 4,
            dimensions: { originalWidth: 1400, originalHeight: 900, displayWidth: 1400, displayHeight: 900 },
          },
        },
      });
    } else {
      const body = fileBody(round, 3000 + (round % 7) * 900);
      await node({
        type: 'user',
        message: {
          role: 'user',
          content: [{ tool_use_id: toolId, type: 'tool_result', content: body, is_error: round % 53 === 0 }],
        },
        toolUseResult: {
          type: 'text',
          file: {
            filePath: `/home/dev/big-project/src/helpers${round}.ts`,
            content: body,
            numLines: 40,
            startLine: 1,
            totalLines: 40,
          },
        },
      });
    }
    await node({
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: `PostToolUse:${tool}`, command: 'audit.sh' },
      toolUseID: toolId,
      parentToolUseID: toolId,
    });
    if (round % 40 === 39) {
      await node({
        type: 'assistant',
        requestId: `req_${round}e`,
        message: {
          model: 'claude-sonnet-4-5-20250929',
          id: `${msgId}e`,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: 'Done with this batch.' }],
          stop_reason: 'end_turn',
          usage,
        },
      });
      await node({ type: 'user', message: { role: 'user', content: `Continue with batch ${round + 1}.` } });
    }
    if (round % 200 === 199) {
      const boundary = uuid();
      await emit({
        parentUuid: null,
        logicalParentUuid: parent,
        ...env,
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        uuid: boundary,
        timestamp: ts(),
      });
      parent = boundary;
      await node({
        type: 'user',
        isCompactSummary: true,
        message: {
          role: 'user',
          content: `This session is being continued from a previous conversation. Summary: helpers 0..${round} refactored.`,
        },
      });
    }
  }
  await node({
    type: 'assistant',
    requestId: 'req_end',
    message: {
      model: 'claude-sonnet-4-5-20250929',
      id: 'msg_end',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'All helpers refactored.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 9 },
    },
  });
  out.end();
  await once(out, 'finish');
  return { lines, bytes: written };
}

/**
 * Where an import of a Claude Code session file stopped, kept with its run (`metadata.source.tail`) so that the next
 * import of the grown file reads only from there (tailImport.ts): the byte offset of the first line to map again
 * and the mapper's state before it (the lines of the response still being assembled and the results held behind
 * it, by position; the calls still open), the run's digest chain and resume marks there, the session's facts, the
 * SHA-256 state of every byte read, and what proves the bytes before the offset unchanged (a hash of the file's
 * first bytes and of the window before the end) and the sub-agent files unchanged (their sizes and times).
 * `TailRecorder` picks the offset while the whole file is mapped: the last line boundary of the run where no op
 * waits for a checkpoint (the state there is the store's at its last checkpoint) and every later line of the
 * session's conversation belongs to the run. Reads files; writes nothing.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { byteChecks, type ByteRange, type FileTail } from '../fileTail';
import type { StreamedResume } from '../planDigest';
import type { Sha256State } from '../resumableSha256';
import type { Entry, SessionFacts } from './entries';
import type { SessionMapper } from './sessionMapper';

/** A line by where it is: start and length in bytes (without its LF), and its number. */
export type TailLine = [start: number, length: number, lineNo: number];

/** The session's facts as JSON (`toolNames` a list). */
export type StoredFacts = Omit<SessionFacts, 'toolNames'> & { toolNames: string[] };

/** The generic resume point (fileTail.ts) and the Claude Code mapper's state there. */
export interface SessionTail extends FileTail {
  pending?: { messageId?: string; requestId?: string; lines: TailLine[] };
  deferred: TailLine[];
  open: [string, string[]][];
  compactions: number;
  apiError?: string;
  facts: StoredFacts;
  /** The session's sub-agent files when it was read: name, size, mtime (ms). */
  subagents: [string, number, number][];
}

export function storedFacts(facts: SessionFacts): StoredFacts {
  return { ...facts, toolNames: [...facts.toolNames], models: [...facts.models], summaries: [...facts.summaries] };
}

export function sessionFacts(facts: StoredFacts): SessionFacts {
  return {
    ...facts,
    toolNames: new Set(facts.toolNames),
    models: [...facts.models],
    summaries: facts.summaries.map((s) => ({ ...s })),
  };
}

/** A session's sub-agent files now: name, size, mtime. */
export function subagentStats(files: readonly string[]): [string, number, number][] {
  return files.map((f) => {
    const st = statSync(f);
    return [basename(f), st.size, st.mtimeMs];
  });
}

type Candidate = Omit<SessionTail, 'facts' | 'sha' | 'head' | 'window' | 'subagents' | 'v'>;

/**
 * Follows the mapping of a session's run (its branch 0) and keeps the last line boundary a later import may take
 * it up again from. `lastOther`: the last line number of the session's conversation outside the run (another
 * branch, a fork's branch point): the boundary comes after it.
 */
export class TailRecorder {
  private candidate: Candidate | undefined;
  /** The lowest first byte of the lines a candidate maps again or holds (the window checked starts there). */
  private from = 0;

  constructor(
    private readonly positionOf: (e: Entry) => { start: number; length: number } | undefined,
    private readonly lastOther: number,
    private readonly resume: StreamedResume,
  ) {}

  /**
   * A line boundary of the run: before `next`, or at the end of the lines read (`next` undefined: `end` is the
   * byte and the number of the line after the last).
   */
  boundary(mapper: SessionMapper, next: Entry | undefined, end: { at: number; atLine: number }): void {
    if (next !== undefined && next.lineNo <= this.lastOther) return;
    const chain = this.resume.state();
    if (!chain || chain.checkpoints < 1) return;
    let at = end;
    if (next !== undefined) {
      const p = this.positionOf(next);
      if (!p) return;
      at = { at: p.start, atLine: next.lineNo };
    }
    const state = mapper.state();
    const lines: TailLine[] = [];
    const line = (e: Entry): TailLine | undefined => {
      const p = this.positionOf(e);
      if (!p) return undefined;
      const l: TailLine = [p.start, p.length, e.lineNo];
      lines.push(l);
      return l;
    };
    const pending = state.pending?.entries.map(line);
    const deferred = state.deferred.map(line);
    if (pending?.includes(undefined) || deferred.includes(undefined)) return;
    this.from = Math.min(at.at, ...lines.map((l) => l[0]));
    this.candidate = {
      ...at,
      keep: chain.checkpoints,
      link: chain.link,
      marks: chain.marks,
      lastAt: mapper.builder.lastTimestamp,
      ...(state.pending
        ? {
            pending: {
              ...(state.pending.messageId !== undefined ? { messageId: state.pending.messageId } : {}),
              ...(state.pending.requestId !== undefined ? { requestId: state.pending.requestId } : {}),
              lines: pending as TailLine[],
            },
          }
        : {}),
      deferred: deferred as TailLine[],
      open: state.open,
      compactions: state.compactions,
      ...(state.apiError !== undefined ? { apiError: state.apiError } : {}),
    };
  }

  /** The tail to keep, once the file's bytes are known to be those read (undefined: none to keep). */
  result(input: {
    read: ByteRange;
    bytes: number;
    facts: SessionFacts;
    sha: Sha256State | undefined;
    subagentFiles: readonly string[];
  }): SessionTail | undefined {
    if (!this.candidate || !input.sha) return undefined;
    const checks = byteChecks(input.read, input.bytes, this.from);
    if (!checks) return undefined;
    return {
      v: 1,
      ...this.candidate,
      facts: storedFacts(input.facts),
      sha: input.sha,
      ...checks,
      subagents: subagentStats(input.subagentFiles),
    };
  }
}

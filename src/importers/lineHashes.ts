/**
 * The hashes an importer takes of a JSON Lines session as it reads its lines, in one pass: the sha256 of its lines as
 * text (each line's UTF-8, a trailing CR dropped, then an LF: what names a run's content, `contentHash`), the sha256
 * of its bytes (what proves the file unchanged, `metadata.source.sha256`), and — when the two agree and every line
 * ends with an LF — the resumable state of that hash, which the next import of the grown file goes on from
 * (fileTail.ts). They agree on a file of LF-ended lines of valid UTF-8, the usual one; the bytes get a hash of their
 * own from the first line where they part (CR LF, bytes that are not UTF-8). One SHA-256 pass over the usual file.
 */
import type { FileLine } from './lineReader';
import { ResumableSha256, type Sha256State } from './resumableSha256';

const LF = Buffer.from('\n');
const CR = Buffer.from('\r');

export class LineHashes {
  /** The bytes' own hash, from the first line where they part from the text. */
  private raw: ResumableSha256 | undefined;
  /** The text's LF after the last line fed: hashed when the next line comes (the file may end without it). */
  private pendingLf = false;
  private lastHadLf = true;

  private constructor(
    private readonly text: ResumableSha256,
    private readonly spare: ResumableSha256,
  ) {}

  static async create(): Promise<LineHashes> {
    return new LineHashes(await ResumableSha256.create(), await ResumableSha256.create());
  }

  line(line: FileLine): void {
    const crDropped = line.length !== line.bytes.length;
    this.flushLf();
    if (!this.raw && (crDropped || line.invalidUtf8)) this.raw = this.text.copyTo(this.spare);
    this.text.update(line.invalidUtf8 ? Buffer.from(line.text) : line.bytes);
    this.pendingLf = true;
    this.lastHadLf = line.bytesRead > line.start + line.length;
    if (this.raw) {
      this.raw.update(line.bytes);
      if (crDropped) this.raw.update(CR);
      if (this.lastHadLf) this.raw.update(LF);
    }
  }

  private flushLf(): void {
    if (this.pendingLf) this.text.update(LF);
    this.pendingLf = false;
  }

  /** Both digests (hex) of the lines fed; more lines may follow. */
  digests(): { text: string; raw: string } {
    // in agreement but for a last line without its LF: the bytes' hash is the text's before that LF
    const raw = this.raw ? this.raw.hex() : this.lastHadLf ? undefined : this.text.hex();
    this.flushLf();
    const text = this.text.hex();
    return { text, raw: raw ?? text };
  }

  /** The bytes' hash state, when a later import may go on from it: every line LF-ended UTF-8 without CR. */
  state(): Sha256State | undefined {
    if (this.raw || !this.lastHadLf) return undefined;
    this.flushLf();
    return this.text.state();
  }
}

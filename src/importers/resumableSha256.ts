/**
 * SHA-256 whose state can be kept and taken up again later (node:crypto's cannot leave its process): what lets a
 * grown session file's digest be continued from the bytes it was last read to, reading only the new ones. The hash is
 * hash-wasm's (its `save()` / `load()` are made for this). The state is kept at the last whole 64-byte block: it
 * holds no byte of the file (a block not yet full would), so the import that continues feeds again the bytes from
 * `length` on, which it reads anyway (the window checked before the old end). A state another build of hash-wasm
 * wrote does not load: the caller reads the file whole.
 */
import { createSHA256, type IHasher } from 'hash-wasm';

/** What `ResumableSha256.state` gives and `from` takes: plain JSON. */
export interface Sha256State {
  /** hash-wasm's saved state after `length` bytes, base64. */
  saved: string;
  /** Bytes hashed into `saved`: a multiple of 64, at most 63 short of the bytes fed. */
  length: number;
}

const BLOCK = 64;

export class ResumableSha256 {
  /** The bytes fed after the last whole block (the first `pendingLength` of them), not yet given to the hasher. */
  private readonly pending = Buffer.alloc(BLOCK);
  private pendingLength = 0;
  private hashed = 0;

  private constructor(private readonly hasher: IHasher) {}

  static async create(): Promise<ResumableSha256> {
    return new ResumableSha256((await createSHA256()).init());
  }

  /**
   * This hash set to `state`, as kept: it goes on from `state.length` bytes. Throws on a state it cannot load.
   * Synchronous (only `create` waits, for the WebAssembly): a caller loads it between store reads.
   */
  resume(state: Sha256State): this {
    if (!Number.isSafeInteger(state.length) || state.length < 0 || state.length % BLOCK !== 0)
      throw new Error('a kept SHA-256 state ends on a whole block');
    this.hasher.load(Buffer.from(state.saved, 'base64'));
    this.hashed = state.length;
    this.pendingLength = 0;
    return this;
  }

  /** Bytes fed so far (`state().length` and the bytes after it). */
  get length(): number {
    return this.hashed + this.pendingLength;
  }

  update(data: Uint8Array): this {
    let rest = data;
    if (this.pendingLength > 0 || rest.length < BLOCK) {
      // the block begun: filled from the data first, in place (a line and its LF a call: no allocation)
      const take = Math.min(BLOCK - this.pendingLength, rest.length);
      this.pending.set(rest.subarray(0, take), this.pendingLength);
      this.pendingLength += take;
      rest = rest.subarray(take);
      if (this.pendingLength < BLOCK) return this;
      this.hasher.update(this.pending);
      this.hashed += BLOCK;
      this.pendingLength = 0;
    }
    const whole = rest.length - (rest.length % BLOCK);
    if (whole > 0) this.hasher.update(rest.subarray(0, whole));
    this.hashed += whole;
    this.pending.set(rest.subarray(whole), 0);
    this.pendingLength = rest.length - whole;
    return this;
  }

  /** Sets `target` to this hash as it stands (both go on on their own). */
  copyTo(target: ResumableSha256): ResumableSha256 {
    target.hasher.load(this.hasher.save());
    target.hashed = this.hashed;
    this.pending.copy(target.pending);
    target.pendingLength = this.pendingLength;
    return target;
  }

  state(): Sha256State {
    return { saved: Buffer.from(this.hasher.save()).toString('base64'), length: this.hashed };
  }

  /** The digest (hex) of what was fed; the hash itself can go on being fed. */
  hex(): string {
    const kept = this.hasher.save();
    const digest = this.hasher.update(this.pending.subarray(0, this.pendingLength)).digest('hex');
    this.hasher.load(kept);
    return digest;
  }
}

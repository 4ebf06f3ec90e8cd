/**
 * SHA-256 whose state can be kept and taken up again later (node:crypto's cannot leave its process): what lets a
 * grown session file's digest be continued from the bytes it was last read to, reading only the new ones. The
 * state is the eight chaining words, the bytes of the block not yet full and the length: a few hundred characters
 * of JSON. Its digests equal node:crypto's (checked by its test). Pure.
 */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** What `ResumableSha256.state` gives and `from` takes: plain JSON. */
export interface Sha256State {
  /** The chaining words, as unsigned numbers. */
  h: number[];
  /** The bytes of the block not yet full, as hex. */
  tail: string;
  /** Bytes hashed so far. */
  length: number;
}

export class ResumableSha256 {
  private readonly h = new Int32Array(INITIAL);
  private readonly w = new Int32Array(64);
  private readonly block = Buffer.alloc(64);
  private filled = 0;
  private length = 0;

  static from(state: Sha256State): ResumableSha256 {
    const s = new ResumableSha256();
    if (state.h.length !== 8) throw new Error('a SHA-256 state has eight words');
    state.h.forEach((v, i) => (s.h[i] = v | 0));
    const tail = Buffer.from(state.tail, 'hex');
    tail.copy(s.block);
    s.filled = tail.length;
    s.length = state.length;
    return s;
  }

  update(data: Uint8Array): this {
    let i = 0;
    this.length += data.length;
    if (this.filled > 0) {
      const take = Math.min(64 - this.filled, data.length);
      this.block.set(data.subarray(0, take), this.filled);
      this.filled += take;
      i = take;
      if (this.filled < 64) return this;
      this.compress(this.block, 0);
      this.filled = 0;
    }
    for (; i + 64 <= data.length; i += 64) this.compress(data, i);
    if (i < data.length) {
      this.block.set(data.subarray(i), 0);
      this.filled = data.length - i;
    }
    return this;
  }

  state(): Sha256State {
    return {
      h: Array.from(this.h, (v) => v >>> 0),
      tail: this.block.subarray(0, this.filled).toString('hex'),
      length: this.length,
    };
  }

  /** The digest (hex) of what was hashed; the hash itself can go on being fed. */
  hex(): string {
    const copy = ResumableSha256.from(this.state());
    const bits = copy.length * 8;
    const pad = Buffer.alloc((copy.filled < 56 ? 56 : 120) - copy.filled + 8);
    pad[0] = 0x80;
    pad.writeUInt32BE(Math.floor(bits / 0x100000000), pad.length - 8);
    pad.writeUInt32BE(bits >>> 0, pad.length - 4);
    copy.update(pad);
    return Array.from(copy.h, (v) => (v >>> 0).toString(16).padStart(8, '0')).join('');
  }

  private compress(data: Uint8Array, at: number): void {
    const w = this.w;
    for (let t = 0; t < 16; t++) {
      const j = at + t * 4;
      w[t] =
        ((data[j] as number) << 24) |
        ((data[j + 1] as number) << 16) |
        ((data[j + 2] as number) << 8) |
        (data[j + 3] as number);
    }
    for (let t = 16; t < 64; t++) {
      const a = w[t - 15] as number;
      const b = w[t - 2] as number;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) | 0;
    }
    const h = this.h;
    let a = h[0] as number;
    let b = h[1] as number;
    let c = h[2] as number;
    let d = h[3] as number;
    let e = h[4] as number;
    let f = h[5] as number;
    let g = h[6] as number;
    let hh = h[7] as number;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + (K[t] as number) + (w[t] as number)) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = ((h[0] as number) + a) | 0;
    h[1] = ((h[1] as number) + b) | 0;
    h[2] = ((h[2] as number) + c) | 0;
    h[3] = ((h[3] as number) + d) | 0;
    h[4] = ((h[4] as number) + e) | 0;
    h[5] = ((h[5] as number) + f) | 0;
    h[6] = ((h[6] as number) + g) | 0;
    h[7] = ((h[7] as number) + hh) | 0;
  }
}

/**
 * The SHA-256 a grown session's import continues (its state kept with the run as JSON) gives node:crypto's digest
 * of the same bytes, whatever the cut between the part hashed before and the part hashed after the state was kept;
 * the kept state holds no byte of what was hashed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { describe, it } from 'node:test';
import { ResumableSha256, type Sha256State } from '../../../src/importers/resumableSha256';
import { REAL_FILE } from './helpers';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('ResumableSha256', () => {
  it("gives node:crypto's digest, continued from a kept state at any cut", async () => {
    const bytes = fs.readFileSync(REAL_FILE);
    const want = sha(bytes);
    for (const cut of [0, 1, 55, 56, 63, 64, 65, 119, 120, 4096, bytes.length - 1, bytes.length]) {
      const first = (await ResumableSha256.create()).update(bytes.subarray(0, cut));
      assert.equal(first.hex(), sha(bytes.subarray(0, cut)), `prefix ${cut}`);
      const kept = JSON.parse(JSON.stringify(first.state())) as Sha256State;
      assert.ok(kept.length <= cut && cut - kept.length < 64, `cut ${cut}: kept at the last whole block`);
      // the continuing import feeds again what the state did not take
      const again = (await ResumableSha256.create()).resume(kept).update(bytes.subarray(kept.length));
      assert.equal(again.hex(), want, `cut ${cut}`);
      assert.equal(again.length, bytes.length);
    }
    assert.equal((await ResumableSha256.create()).hex(), sha(Buffer.alloc(0)));
  });

  it('a kept state holds none of the bytes hashed, and one it cannot load is refused', async () => {
    const secret = Buffer.from(`${'x'.repeat(64)}sk-live-0123456789abcdef0123456789abcdef\n`);
    const kept = (await ResumableSha256.create()).update(secret).state();
    const saved = Buffer.from(kept.saved, 'base64');
    assert.equal(saved.includes(Buffer.from('sk-live')), false);
    assert.equal(saved.includes(Buffer.from('x'.repeat(16))), false);
    const blank = await ResumableSha256.create();
    assert.throws(() => blank.resume({ saved: Buffer.from('not a state').toString('base64'), length: 0 }));
    assert.throws(() => blank.resume({ ...kept, length: 65 }), /whole block/);
  });
});

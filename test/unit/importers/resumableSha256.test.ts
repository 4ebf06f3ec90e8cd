/**
 * The SHA-256 a grown session's import continues (its state kept with the run as JSON) gives node:crypto's digest
 * of the same bytes, whatever the cut between the part hashed before and the part hashed after the state was kept.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { describe, it } from 'node:test';
import { ResumableSha256 } from '../../../src/importers/resumableSha256';
import { REAL_FILE } from './helpers';

describe('ResumableSha256', () => {
  it("gives node:crypto's digest, continued from a kept state at any cut", () => {
    const bytes = fs.readFileSync(REAL_FILE);
    const want = createHash('sha256').update(bytes).digest('hex');
    for (const cut of [0, 1, 55, 56, 63, 64, 65, 119, 120, 4096, bytes.length - 1, bytes.length]) {
      const first = new ResumableSha256().update(bytes.subarray(0, cut));
      const kept = JSON.parse(JSON.stringify(first.state())) as ReturnType<ResumableSha256['state']>;
      const again = ResumableSha256.from(kept).update(bytes.subarray(cut));
      assert.equal(again.hex(), want, `cut ${cut}`);
      assert.equal(first.hex(), createHash('sha256').update(bytes.subarray(0, cut)).digest('hex'), `prefix ${cut}`);
    }
    assert.equal(new ResumableSha256().hex(), createHash('sha256').digest('hex'));
  });
});

/**
 * A store URL whose password holds `/`, `#`, `?` or `@` unencoded does not parse: one clear error naming what to
 * do, without the password and without a stack trace (`ocdb runs`, `ocdb serve` print an OcdbError as one line).
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { OcdbError } from '../../../src/model';
import { openRunStore } from '../../../src/store';

for (const password of ['pa/ss#w', 'pa#ss', 's?cret/1', 'x/y@z']) {
  test(`a password like ${password} unencoded: InvalidInput without the password`, () => {
    const url = `postgres://ocdb:${password}@127.0.0.1:5432/runs`;
    assert.throws(
      () => openRunStore(url, { create: false }),
      (e: unknown) => {
        assert.ok(e instanceof OcdbError, `an OcdbError, not ${String(e)}`);
        assert.equal(e.code, 'InvalidInput');
        assert.match(e.message, /is not a valid URL: percent-encode/);
        assert.match(e.message, /127\.0\.0\.1:5432\/runs/, 'names the server');
        assert.ok(!e.message.includes(password), `the password is not shown: ${e.message}`);
        return true;
      },
    );
  });
}

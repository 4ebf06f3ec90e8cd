import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { HEARTBEAT_STALE_MS, isCrashed, PID_REUSE_STALE_MS, THIS_HOST } from '../../../src/store/liveness';

const now = 1_800_000_000_000;
const deadPid = spawnSync(process.execPath, ['-e', '0']).pid as number;
const livePid = process.ppid; // the test runner: alive, not this process

test('only running runs can be crashed', () => {
  assert.equal(isCrashed('completed', deadPid, THIS_HOST, 0, now), false);
  assert.equal(isCrashed('failed', null, null, null, now), false);
});

test('on this host the pid decides: dead is crashed, alive is not even with a minute-old heartbeat', () => {
  assert.equal(isCrashed('running', deadPid, THIS_HOST, now, now), true);
  assert.equal(isCrashed('running', livePid, THIS_HOST, now - 5 * HEARTBEAT_STALE_MS, now), false);
  assert.equal(isCrashed('running', livePid, THIS_HOST, now - PID_REUSE_STALE_MS - 1, now), true, 'pid reuse guard');
});

test('for another host, or no owner, the heartbeat decides', () => {
  assert.equal(isCrashed('running', deadPid, 'elsewhere', now - 1000, now), false);
  assert.equal(isCrashed('running', deadPid, 'elsewhere', now - HEARTBEAT_STALE_MS - 1, now), true);
  assert.equal(isCrashed('running', null, null, now - HEARTBEAT_STALE_MS - 1, now), true);
  assert.equal(isCrashed('running', null, null, null, now), false, 'a waiting fork with no owner and no heartbeat');
});

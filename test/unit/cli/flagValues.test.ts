/**
 * The values the CLI's enum flags accept come from the schemas: a wrong
 * --status / --mode / --on-divergence / --format or a --patch that is not an
 * object exits 2 naming the flag and the allowed values, and the help texts
 * list the same values (in-process runCli on a demo store).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT, type CliIo } from '../../../src/cli/cliCommand';
import { runCli } from '../../../src/cli/main';
import { writeDemoStore } from '../../../src/demo';
import { IMPORT_FORMAT_OPTIONS } from '../../../src/importers';
import { ON_DIVERGENCE_CHOICES, REPLAY_POLICIES, RUN_MODES, RUN_STATUSES } from '../../../src/model';
import { openRunStore } from '../../../src/store';

let dir: string;
let storePath: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocdb-cli-flags-'));
  storePath = path.join(dir, 'runs.db');
  const store = openRunStore(storePath);
  writeDemoStore(store);
  store.close();
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function ocdb(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t), isTty: false, env: {}, cwd: dir };
  const code = await runCli([...args, '--store', storePath], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI enum flags', () => {
  it('ocdb runs --status / --mode filter, and a wrong value exits 2 listing the allowed ones', async () => {
    const failed = await ocdb(['runs', '--status', 'failed', '--json']);
    assert.equal(failed.code, EXIT.ok, failed.err);
    const runs = JSON.parse(failed.out) as { status: string }[];
    assert.ok(runs.length > 0 && runs.every((r) => r.status === 'failed'));

    const status = await ocdb(['runs', '--status', 'done']);
    assert.equal(status.code, EXIT.usage);
    assert.match(status.err, /--status/);
    for (const s of RUN_STATUSES) assert.match(status.err, new RegExp(`"${s}"`));

    const mode = await ocdb(['runs', '--mode', 'rerun']);
    assert.equal(mode.code, EXIT.usage);
    for (const m of RUN_MODES) assert.match(mode.err, new RegExp(`"${m}"`));

    const help = await ocdb(['runs', '--help']);
    assert.match(help.out, new RegExp(RUN_STATUSES.join(' \\| ')));
    assert.match(help.out, new RegExp(RUN_MODES.join(' \\| ')));
  });

  it('ocdb fork: a wrong --on-divergence or a --patch that is not an object exits 2 naming the flag', async () => {
    const divergence = await ocdb(['fork', 'demo-support-refund', '3', '--plan', '--on-divergence', 'retry']);
    assert.equal(divergence.code, EXIT.usage);
    assert.match(divergence.err, /--on-divergence retry/);
    for (const c of ON_DIVERGENCE_CHOICES) assert.match(divergence.err, new RegExp(c));

    const patchFile = path.join(dir, 'patch.json');
    fs.writeFileSync(patchFile, '["user.roleId", "auditor"]');
    const patch = await ocdb(['fork', 'demo-support-refund', '3', '--plan', '--patch', patchFile]);
    assert.equal(patch.code, EXIT.usage);
    assert.match(patch.err, /--patch .*patch\.json/);
    assert.match(patch.err, /expected record/);

    const help = await ocdb(['fork', '--help']);
    assert.match(help.out, new RegExp(REPLAY_POLICIES.join(', ')));
  });

  it('ocdb import --format lists the formats of the importers', async () => {
    const r = await ocdb(['import', path.join(dir, 'none.jsonl'), '--format', 'langsmith']);
    assert.equal(r.code, EXIT.usage);
    assert.match(r.err, new RegExp(`expected ${IMPORT_FORMAT_OPTIONS.join(', ')}`));
    const help = await ocdb(['import', '--help']);
    assert.match(help.out, new RegExp(IMPORT_FORMAT_OPTIONS.join('\\|')));
  });
});

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../../src/cli/main';
import { openRecorder } from '../../../src/recorder';
import { testContext } from '../../helpers/context';
import { linkEnv } from '../../helpers/linkEnv';
import { tmpDir } from '../../helpers/tmp';

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');

function ocdb(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('the built ocdb exists (npm install / npm run build made it)', () => {
  assert.ok(existsSync(CLI), `${CLI} missing: run npm run build`);
});

test('the built bundles are ASCII (V8 holds their source at one byte a character) and still run', () => {
  for (const name of ['cli', 'extension', 'recorder', 'pgWorker']) {
    const text = readFileSync(join(dirname(CLI), `${name}.js`), 'utf8');
    // eslint-disable-next-line no-control-regex -- the complement of ASCII
    const at = text.search(/[^\x00-\x7f]/);
    assert.equal(at, -1, `dist/${name}.js has a non-ASCII character: ${text.slice(at - 60, at + 20)}`);
  }
  // a string the source holds with a non-ASCII character reaches the user as that character
  const help = ocdb(['--help']);
  assert.match(help.out, /ocdb — time-travel debugging/);
});

test("ocdb run as npm's link runs it (the file itself, through its #! line) imports a real transcript", () => {
  const store = join(tmpDir(), 'link.db');
  const transcript = join(
    ROOT,
    'test',
    'fixtures',
    'importers',
    'claude-code-real',
    '4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  );
  const env = linkEnv();
  // a #! line env cannot run can spin instead of failing (coreutils 9 given `env node --flag` as one word): time out
  const imported = spawnSync(CLI, ['import', transcript, '--store', store], { encoding: 'utf8', env, timeout: 60_000 });
  assert.equal(imported.status, 0, imported.stderr || String(imported.error));
  const runs = spawnSync(CLI, ['runs', '--json', '--store', store], { encoding: 'utf8', env });
  assert.equal(runs.status, 0, runs.stderr);
  const [run] = JSON.parse(runs.stdout) as { runId: string; checkpointCount: number }[];
  assert.equal(run?.runId, 'cc-4d5611e5-241a-462a-8d15-5122611a9569');
  assert.ok((run?.checkpointCount ?? 0) > 0, 'the run has its checkpoints');
});

test('ocdb demo then ocdb runs lists the demo runs; --json has the summary fields', () => {
  const store = join(tmpDir(), 'd.db');
  const demo = ocdb(['demo', '--store', store]);
  assert.equal(demo.code, 0, demo.err);
  const table = ocdb(['runs', '--store', store]);
  assert.equal(table.code, 0, table.err);
  assert.match(table.out, /demo-support-refund\s+support-desk\s+completed/);
  assert.match(table.out, /demo-research-crashed\s+research-scout\s+crashed/);
  const json = ocdb(['runs', '--json', '--store', store]);
  const runs = JSON.parse(json.out) as Record<string, unknown>[];
  assert.equal(runs.length, 7);
  for (const key of [
    'runId',
    'agentId',
    'sessionId',
    'status',
    'mode',
    'startedAt',
    'checkpointCount',
    'toolCallCount',
  ]) {
    assert.ok(
      runs.every((r) => key in r),
      `every summary has ${key}`,
    );
  }
  const fork = runs.find((r) => r.mode === 'fork');
  assert.equal(fork?.parentRunId, 'demo-support-refund');
  const filtered = JSON.parse(ocdb(['runs', '--json', '--agent', 'code-fixer', '--store', store]).out) as unknown[];
  assert.equal(filtered.length, 2);
  const viaEnv = ocdb(['runs', '--json'], { OCDB_STORE: store });
  assert.equal((JSON.parse(viaEnv.out) as unknown[]).length, 7, 'OCDB_STORE names the store');
});

test('ocdb show prints the checkpoints and the tool ledger', () => {
  const store = join(tmpDir(), 'd.db');
  ocdb(['demo', '--store', store]);
  const show = ocdb(['show', 'demo-support-refund', '--store', store]);
  assert.equal(show.code, 0, show.err);
  assert.match(show.out, /checkpoints 48/);
  assert.match(show.out, /issue_refund\s+external_irreversible\s+forbid_replay/);
  assert.match(show.out, /ERROR .*UpstreamTimeout/);
  const missing = ocdb(['show', 'no-such-run', '--store', store]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.err, /No run no-such-run/);
});

test('export -> load into a fresh store -> export is byte-identical', () => {
  const dir = tmpDir();
  const a = join(dir, 'a.db');
  const b = join(dir, 'b.db');
  ocdb(['demo', '--store', a]);
  const first = ocdb(['export', 'demo-support-refund-auditor', '--store', a]);
  assert.equal(first.code, 0, first.err);
  writeFileSync(join(dir, 'run.json'), first.out);
  // a fork needs its parent in the store (its ledger is the fork's cassette): refused alone, loaded after it
  const alone = ocdb(['load', join(dir, 'run.json'), '--store', b]);
  assert.equal(alone.code, 2);
  assert.match(
    alone.err,
    /run\.json: parentRunId: the parent run demo-support-refund is not in this store: load it first/,
  );
  writeFileSync(join(dir, 'parent.json'), ocdb(['export', 'demo-support-refund', '--store', a]).out);
  assert.equal(ocdb(['load', join(dir, 'parent.json'), '--store', b]).code, 0);
  const load = ocdb(['load', join(dir, 'run.json'), '--store', b]);
  assert.equal(load.code, 0, load.err);
  const second = ocdb(['export', 'demo-support-refund-auditor', '--store', b]);
  assert.equal(second.out, first.out);
});

test('ocdb load of a file with an unknown boundary fails naming the field path and leaves the store unchanged', () => {
  const dir = tmpDir();
  const store = join(dir, 'd.db');
  ocdb(['demo', '--store', store]);
  const run = JSON.parse(ocdb(['export', 'demo-coding-fix', '--store', store]).out);
  run.runId = 'edited';
  run.checkpoints.forEach((c: { runId: string; checkpointId: string }) => {
    c.runId = 'edited';
    c.checkpointId = `edited-${c.checkpointId}`;
  });
  run.checkpoints[3].boundary = 'before_coffee';
  writeFileSync(join(dir, 'bad.json'), JSON.stringify(run));
  const before = ocdb(['runs', '--json', '--store', store]).out;
  const load = ocdb(['load', join(dir, 'bad.json'), '--store', store]);
  assert.notEqual(load.code, 0);
  assert.match(load.err, /checkpoints\[3\]\.boundary/);
  assert.equal(ocdb(['runs', '--json', '--store', store]).out, before);
});

test('ocdb --help lists every command, each of which answers its own --help (each loads when asked for)', async () => {
  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), isTty: false, env: {}, cwd: tmpDir() };
  assert.equal(await runCli(['--help'], io), 0);
  const names = [...out.join('\n').matchAll(/^ {2}(\S+) {2,}\S/gm)].map((m) => m[1] as string);
  assert.ok(names.length >= 15 && names.includes('import') && names.includes('dap'), names.join(' '));
  for (const name of names) {
    out.length = 0;
    assert.equal(await runCli([name, '--help'], io), 0, name);
    assert.ok(out.join('\n').startsWith(`Usage: ocdb ${name}`), `${name}: ${out.join('\n')}`);
  }
});

test('usage errors and unknown commands say so on stderr with a non-zero code', () => {
  const unknown = ocdb(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown command 'frobnicate'/);
  const badFlag = ocdb(['runs', '--bogus']);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.err, /bogus/);
  const help = ocdb(['show', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /Usage: ocdb show <runId>/);
  const noStore = ocdb(['runs', '--store', join(tmpDir(), 'missing.db')]);
  assert.equal(noStore.code, 1);
  assert.match(noStore.err, /No run store at/);
});

test("the README's recording example records a run that ocdb show prints", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const match = /<!-- recording-example -->\s*```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(match, 'README has a ```js block after <!-- recording-example -->');
  // Inside the package folder, `agent-time-travel/recorder` resolves to this package (self-reference via exports).
  const dir = join(ROOT, '.cache');
  const file = join(dir, `readme-example-${process.pid}.js`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, match[1] as string);
  const store = join(tmpDir(), 'example.db');
  try {
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8', env: { ...process.env, OCDB_STORE: store } });
    assert.equal(r.status, 0, r.stderr);
    const runs = JSON.parse(ocdb(['runs', '--json', '--store', store]).out) as { runId: string; status: string }[];
    assert.equal(runs.length, 1);
    assert.equal(runs[0]?.status, 'completed');
    const show = ocdb(['show', runs[0]!.runId, '--store', store]);
    assert.equal(show.code, 0, show.err);
    assert.match(show.out, /lookup_order/);
  } finally {
    rmSync(file, { force: true });
  }
});

test('ocdb show tells a cancelled tool call from a failed one', () => {
  const store = join(tmpDir(), 'c.db');
  const recorder = openRecorder({ store, heartbeatMs: 0, fork: false });
  const run = recorder.startRun({ runId: 'cancel-1', agentId: 'a', runtimeContext: testContext() });
  const deploy = run.beginTool('deploy', { service: 'api' }, { sideEffectLevel: 'write' });
  run.finishTool(deploy, 'cancelled', 'the user pressed stop');
  const probe = run.beginTool('probe', {}, { sideEffectLevel: 'read_only' });
  run.finishTool(probe, 'error', new Error('probe timed out'));
  run.end();
  recorder.close();
  const shown = ocdb(['show', 'cancel-1', '--store', store]);
  assert.equal(shown.code, 0, shown.err);
  assert.match(shown.out, /deploy .*CANCELLED the user pressed stop/);
  assert.match(shown.out, /probe .*ERROR .*probe timed out/);
});

test('ocdb show | head: a reader that goes away ends ocdb quietly, without an EPIPE stack trace', async () => {
  const store = join(tmpDir(), 'pipe.db');
  assert.equal(ocdb(['demo', '--store', store]).code, 0);
  for (const args of [['show', 'demo-support-refund'], ['runs'], ['export', 'demo-support-refund']]) {
    const child = spawn(process.execPath, [CLI, ...args, '--store', store], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before ocdb writes its first line
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    assert.doesNotMatch(err, /EPIPE|\n\s+at /, `${args.join(' ')}: ${err}`);
    assert.equal(code, 0, `${args.join(' ')}: ${err}`);
  }
});

/**
 * The extension on a shared PostgreSQL store, as a team member uses it: `agentTimeTravel.storePath` set to a
 * `postgres://` URL without password, then Set Store Password… (the secret goes to SecretStorage): the runs tree
 * lists the runs `ocdb demo` wrote there, above them the URL without password; "Replay agent run" on the URL
 * copies the run to this machine and replays the copy; a fork made in this window is shipped to the database,
 * and a fork another process makes (another developer's window) appears in the tree without a reload.
 * The server is reached through a delay proxy (20 ms round trip, then unreachable, then hung): the extension
 * host's event loop is measured throughout (its longest block stays short) and the tree says offline.
 * Needs the PostgreSQL server of OCDB_TEST_PG_URL (runTests.ts starts a throwaway one); a fresh database is made
 * for the test and dropped after. The setting is restored for the files that follow.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DEBUG_TYPE, EXTENSION_ID, LAUNCH_CONFIG_NAME, SETTINGS, SETTINGS_SECTION } from '../../../src/extension/ids';
import { startDelayProxy } from '../../support/delayProxy';
import { extensionApi, stopAllSessions } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const SERVER = process.env.OCDB_TEST_PG_URL;

function root(): string {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, 'the extension is installed');
  return ext.extensionPath;
}

/** Runs `sql` on the test server's admin database with node-postgres (a child process, as psql would). */
function adminSql(sql: string): void {
  const script = `const { Client } = require('pg'); const c = new Client({ connectionString: process.env.URL });
    c.connect().then(() => c.query(process.env.SQL)).then(() => c.end(), (e) => { console.error(e.message); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-e', script], {
    cwd: root(),
    encoding: 'utf8',
    env: { ...process.env, URL: SERVER, SQL: sql, ELECTRON_RUN_AS_NODE: '1' },
  });
  assert.equal(r.status, 0, `${sql}: ${r.stderr}`);
}

function ocdb(args: string[]): string {
  const r = spawnSync(process.execPath, [path.join(root(), 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  assert.equal(r.status, 0, `ocdb ${args[0]}: ${r.stderr}`);
  return r.stdout;
}

type Frames = DebugProtocol.StackTraceResponse['body'];

/**
 * Watches this thread's event loop — the extension host's: the suite runs inside it — with Node's own histogram of
 * event-loop delays (perf_hooks.monitorEventLoopDelay): its max is the longest the loop was kept from a turn.
 * `phase` closes a stretch of the test under a name, so a failure says which step blocked.
 */
function blockMeter(): { phase(name: string): void; worst(): { name: string; ms: number }; stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const phases: { name: string; ms: number }[] = [];
  return {
    phase(name) {
      phases.push({ name, ms: histogram.max / 1e6 });
      histogram.reset();
    },
    worst: () => phases.reduce((a, b) => (b.ms > a.ms ? b : a), { name: 'nothing', ms: 0 }),
    stop: () => histogram.disable(),
  };
}

/**
 * The block the loaded test machine tolerates (2 cores shared by several suites: a garbage collection or the first
 * load of the debugger's code alone can take a few hundred ms there). A synchronous wait on the network is far
 * above it: copying the demo run is ~100 queries at a 20 ms round trip (2 s), a hung server's bound 15 s.
 */
const BLOCK_BUDGET_MS = 1000;

/** Fails naming the step when any step so far kept the extension host's event loop busy over the budget. */
function assertResponsive(meter: ReturnType<typeof blockMeter>, what: string): void {
  const worst = meter.worst();
  assert.ok(
    worst.ms <= BLOCK_BUDGET_MS,
    `${what}: ${worst.name} blocked the extension host ${Math.round(worst.ms)} ms (budget ${BLOCK_BUDGET_MS} ms)`,
  );
}

export const tests: VTest[] = [
  {
    name: 'on a postgres:// store with its password in SecretStorage: tree, replay, a fork here and one from elsewhere',
    timeoutMs: 180_000,
    async run() {
      assert.ok(
        SERVER,
        'OCDB_TEST_PG_URL names no PostgreSQL server: runTests.ts starts one with test/support/pgCluster.sh (apt-get install postgresql)',
      );
      const server = new URL(SERVER);
      const password = decodeURIComponent(server.password);
      const db = `ocdb_vt_${randomBytes(4).toString('hex')}`;
      const proxy = await startDelayProxy({ host: server.hostname, port: Number(server.port) }, 10);
      const shared = new URL(proxy.urlFor(SERVER));
      shared.pathname = `/${db}`;
      shared.password = '';
      shared.search = '';
      const direct = new URL(SERVER);
      direct.pathname = `/${db}`;
      const withPassword = direct;
      const api = await extensionApi();
      const meter = blockMeter();
      const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
      adminSql(`CREATE DATABASE ${db}`);
      try {
        ocdb(['demo', '--store', withPassword.toString()]);
        await config.update(SETTINGS.storePath, shared.toString(), vscode.ConfigurationTarget.Workspace);
        await waitFor('the connection on the URL', () => api.ctx.connection.path === shared.toString());
        assert.ok(
          api.treeView.description?.startsWith(shared.toString()),
          'the tree says which store, without password',
        );
        // Set Store Password… after its input box: the secret goes to SecretStorage and the store reopens
        meter.phase('opening the store setting');
        await api.ctx.connection.setPassword(password);
        await waitFor('connected', () => api.treeView.description === shared.toString(), 30_000);
        const stored = await api.ctx.vscodeContext.secrets.get(`agentTimeTravel.storePassword:${shared.toString()}`);
        assert.equal(stored, password, 'kept in SecretStorage');
        const settingsText = JSON.stringify(config.inspect(SETTINGS.storePath));
        assert.ok(!settingsText.includes(password), 'the password is not in the settings');

        const roots = await waitFor(
          'the shared demo runs in the tree',
          () => {
            const r = api.tree.getChildren();
            return r.some((n) => n.kind === 'run' && n.runId === 'demo-support-refund') && r;
          },
          30_000,
        );
        assert.ok(roots.some((n) => n.kind === 'run' && n.runId === 'demo-research-crashed'));
        meter.phase('connecting and listing the team runs');

        // replay: the launch configuration names the URL without password; the adapter opens it with the secret
        await stopAllSessions();
        const started = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], {
          type: DEBUG_TYPE,
          request: 'launch',
          name: LAUNCH_CONFIG_NAME,
          runId: 'demo-support-refund',
          store: shared.toString(),
          stopOnEntry: true,
        });
        assert.equal(started, true, 'the replay session started');
        const session = await waitFor('the agent-replay session', () => vscode.debug.activeDebugSession);
        const first = await waitFor(
          'paused at the first checkpoint',
          async () => {
            const f = (await session.customRequest('stackTrace', { threadId: 1, startFrame: 0, levels: 20 })) as Frames;
            return /^step 0 · before_prompt_build/.test(f.stackFrames[0]?.name ?? '') && f;
          },
          30_000,
        );
        assert.match(first.stackFrames[0]?.source?.path ?? '', /demo-support-refund\.transcript$/);
        meter.phase('copying the team run and starting its replay');
        await session.customRequest('next', { threadId: 1 });
        await session.customRequest('stackTrace', { threadId: 1, startFrame: 0, levels: 20 });
        meter.phase('a step on the copied run');
        await stopAllSessions();

        meter.phase('stopping the replay');
        // a fork made in this window is in the database
        const store = api.ctx.connection.getOrCreate();
        const at = store.listCheckpoints('demo-support-refund').find((c) => c.stepIndex === 2);
        assert.ok(at, 'a checkpoint at step 2');
        const forkId = api.editor.fork(
          {
            sourceRunId: 'demo-support-refund',
            sourceCheckpointId: at.checkpointId,
            contextPatch: { user: { roleId: 'supervisor' } },
            toolPolicyMap: { '*': 'reuse_result' },
          },
          [],
        );
        assert.ok(forkId, 'the fork was created');
        await waitFor(
          'the fork under its parent',
          () =>
            api.tree
              .getChildren(api.tree.runNode('demo-support-refund'))
              .some((n) => n.kind === 'run' && n.runId === forkId),
          30_000,
        );
        // shipped once it settled: another process sees the fork made here
        await waitFor(
          'the fork made here in the team store',
          () =>
            (JSON.parse(ocdb(['runs', '--json', '--store', withPassword.toString()])) as { runId: string }[]).some(
              (r) => r.runId === forkId,
            ),
          60_000,
        );

        meter.phase('forking the copied run and shipping the fork');
        // another developer forks the same run elsewhere: it appears here without a refresh
        const other = JSON.parse(
          ocdb([
            'fork',
            'demo-coding-fix',
            '#3',
            '--policy',
            '*=reuse_result',
            '--run',
            '--json',
            '--store',
            withPassword.toString(),
          ]),
        ) as { runId: string };
        await waitFor(
          "the other developer's fork in the tree",
          () =>
            api.tree
              .getChildren(api.tree.runNode('demo-coding-fix'))
              .some((n) => n.kind === 'run' && n.runId === other.runId),
          30_000,
        );

        meter.phase("listing another process's fork");
        assertResponsive(meter, 'on a team store 20 ms round trip away');
        // the host goes away: the tree says offline, the event loop stays free, the cached runs still replay
        proxy.setMode('down');
        api.ctx.connection.team?.reconnect();
        await waitFor(
          'offline in the tree',
          () => /· offline, retrying in/.test(api.treeView.description ?? ''),
          30_000,
        );
        assert.ok(
          api.tree.getChildren().some((n) => n.kind === 'run' && n.runId === 'demo-support-refund'),
          'the copied run is still listed',
        );
        // a server that stops answering: a bounded wait in the team store's thread, not in this one
        proxy.setMode('hang');
        api.ctx.connection.team?.reconnect();
        await waitFor('offline again', () => /· offline, retrying in/.test(api.treeView.description ?? ''), 60_000);
        meter.phase('the host unreachable, then hung');
        assertResponsive(meter, 'with the team store unreachable or hung');
        proxy.setMode('forward');
      } finally {
        meter.stop();
        await proxy.close();
        await stopAllSessions();
        await config.update(SETTINGS.storePath, undefined, vscode.ConfigurationTarget.Workspace);
        await waitFor('the connection back on the demo file', () => !api.ctx.connection.isUrl);
        adminSql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      }
    },
  },
];

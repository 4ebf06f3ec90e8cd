/**
 * The team store's connection states as a user sees them, in the Runs view's description and the status bar:
 * a store set while its host is unreachable reads `offline, retrying in N s` (the seconds count down) and comes to
 * connected by its own retry once the host is back (no user action); a refused password reads `wrong password`,
 * the status bar item then opens Set Store Password…, and nothing retries meanwhile (no connection storm: the
 * proxy counts the connections); the right password connects again.
 * Needs the PostgreSQL server of OCDB_TEST_PG_URL (runTests.ts starts a throwaway one): a database of its own
 * holds a run store (a server that answers but holds no store there is not the offline this test is about); the
 * setting is restored and the database dropped.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS, EXTENSION_ID, SETTINGS, SETTINGS_SECTION } from '../../../src/extension/ids';
import { startDelayProxy } from '../../support/delayProxy';
import { extensionApi } from './extensionApi';
import { waitFor, type VTest } from './vtest';

const SERVER = process.env.OCDB_TEST_PG_URL;

/** The extension's folder (its bundle, its node_modules). */
function root(): string {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, 'the extension is installed');
  return ext.extensionPath;
}

/** Runs node (the extension host's own) with `args` in a child process, `env` added; rejects with its stderr. */
function node(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      args,
      { cwd: root(), encoding: 'utf8', env: { ...process.env, ...env, ELECTRON_RUN_AS_NODE: '1' } },
      (e, _out, err) => (e ? reject(new Error(`${args[0]}: ${err || e.message}`)) : resolve()),
    ),
  );
}

/** Runs `sql` on the server's own database (CREATE / DROP DATABASE). */
function adminSql(sql: string): Promise<void> {
  const script = `const { Client } = require('pg'); const c = new Client({ connectionString: process.env.URL });
    c.connect().then(() => c.query(process.env.SQL)).then(() => c.end(), (e) => { console.error(e.message); process.exit(1); });`;
  return node(['-e', script], { URL: SERVER ?? '', SQL: sql });
}

export const tests: VTest[] = [
  {
    name: 'team store connection: offline counts down and reconnects by itself; a wrong password says so, once',
    timeoutMs: 180_000,
    async run() {
      assert.ok(SERVER, 'OCDB_TEST_PG_URL names no PostgreSQL server (runTests.ts starts one)');
      const server = new URL(SERVER);
      const password = decodeURIComponent(server.password);
      const db = `ocdb_vt_${randomBytes(4).toString('hex')}`;
      await adminSql(`CREATE DATABASE ${db}`);
      const direct = new URL(SERVER);
      direct.pathname = `/${db}`;
      // a run store there (`ocdb demo` writes its runs), made with the extension's own CLI
      await node([path.join(root(), 'dist', 'cli.js'), 'demo', '--store', direct.toString()], {});
      const proxy = await startDelayProxy({ host: server.hostname, port: Number(server.port) }, 0);
      const shared = new URL(proxy.urlFor(SERVER));
      shared.pathname = `/${db}`;
      shared.password = '';
      shared.search = '';
      const api = await extensionApi();
      const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
      const description = () => api.treeView.description ?? '';
      try {
        proxy.setMode('down');
        await config.update(SETTINGS.storePath, shared.toString(), vscode.ConfigurationTarget.Workspace);
        await waitFor('the connection on the URL', () => api.ctx.connection.path === shared.toString());
        await api.ctx.connection.setPassword(password);
        await waitFor('offline in the tree', () => /· offline, retrying in \d+ s$/.test(description()), 30_000);
        assert.match(api.teamStatus.text, /team store offline, retrying in \d+ s/, 'the status bar says it too');
        // the back-off doubles (1 s, 2 s, 4 s, …); a wait of several seconds counts down: 4, 3, … a lower number
        const first = await waitFor(
          'a retry several seconds away',
          () => {
            const m = /· offline, retrying in (\d+) s$/.exec(description());
            return m !== null && Number(m[1]) >= 3 && m;
          },
          60_000,
        );
        const counted = await waitFor(
          'the countdown to the next retry',
          () => {
            const m = /· offline, retrying in (\d+) s$/.exec(description());
            return m !== null && Number(m[1]) < Number(first[1]) && m;
          },
          60_000,
        );
        assert.ok(Number(counted[1]) >= 1);

        // the host comes back: the next retry connects, with no command from the user
        proxy.setMode('forward');
        const t0 = Date.now();
        const seen: string[] = [];
        const stop = api.ctx.connection.onDidChangeTeam(() =>
          seen.push(`${Date.now() - t0} ms ${JSON.stringify(api.ctx.connection.team?.state)} «${description()}»`),
        );
        try {
          await waitFor('connected by its own retry', () => description() === shared.toString(), 90_000);
        } catch (e) {
          throw new Error(
            `${(e as Error).message}; accepted ${proxy.accepted()}; now «${description()}» ${JSON.stringify(api.ctx.connection.team?.state)}; seen:\n${seen.join('\n')}`,
          );
        } finally {
          stop.dispose();
        }
        assert.equal(api.teamStatus.text, '$(cloud) team store');

        // a refused password: said in the tree and the status bar, which offers Set Store Password…
        await api.ctx.connection.setPassword(`${password}-wrong`);
        await waitFor('wrong password in the tree', () => /· wrong password/.test(description()), 30_000);
        assert.match(api.teamStatus.text, /wrong password/);
        assert.equal(api.teamStatus.command, COMMANDS.setStorePassword.id);
        // nothing retries a refused password: the connections stay as they were while the window goes on
        const accepted = proxy.accepted();
        await api.ctx.connection.setPassword(`${password}-wrong`); // the same refused secret, stored again
        await waitFor('still wrong password', () => /· wrong password/.test(description()), 30_000);
        const afterRetype = proxy.accepted();
        assert.ok(
          afterRetype - accepted <= 2,
          `a re-entered password tries once (${afterRetype - accepted} connections)`,
        );
        await new Promise((r) => setTimeout(r, 3000)); // room for a retry timer, had there been one
        assert.equal(proxy.accepted(), afterRetype, 'no retry of a refused password');

        await api.ctx.connection.setPassword(password);
        await waitFor('connected with the right password', () => description() === shared.toString(), 30_000);
      } finally {
        await config.update(SETTINGS.storePath, undefined, vscode.ConfigurationTarget.Workspace);
        await waitFor('the connection back on the demo file', () => !api.ctx.connection.isUrl);
        await proxy.close();
        await adminSql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      }
    },
  },
];

/**
 * `ocdb mcp --print-config <client>`: the one-line setup of each client starts this server on this store — the
 * command line splits back into the same words, the file entries parse — and an unknown client is a usage error
 * naming the clients.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from '../../../src/cli/main';
import type { CliIo } from '../../../src/cli/cliCommand';
import { MCP_CLIENTS, clientConfig, shellWord } from '../../../src/mcp/clientConfig';

const LAUNCH = {
  command: '/usr/bin/node',
  args: ['/opt/ocdb/dist/cli.js', 'mcp', '--store', "/home/me/my runs/it's.db"],
};

/** The words of a POSIX command line of plain and single-quoted words (what shellWord writes). */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line))
    out.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : (m[2] as string));
  return out;
}

function io(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (t) => lines.push(t),
    err: (t) => errors.push(t),
    isTty: false,
    env: {},
    cwd: '/work/project',
  };
}

describe('ocdb mcp --print-config', () => {
  it('quotes a word only when a shell would split or expand it', () => {
    assert.equal(shellWord('/usr/bin/node'), '/usr/bin/node');
    assert.equal(shellWord('a b'), "'a b'");
    assert.equal(shellWord("it's"), "'it'\\''s'");
    assert.equal(shellWord('$HOME'), "'$HOME'");
  });

  for (const client of MCP_CLIENTS) {
    it(`${client}: the printed setup starts ocdb mcp on the store`, () => {
      const text = clientConfig(client, LAUNCH);
      const command = text.split('\n').find((l) => l.length > 0 && !l.startsWith('#') && !l.startsWith('{'));
      if (client !== 'cursor') {
        assert.ok(command, text);
        const w = words(command);
        const at = w.indexOf(LAUNCH.command);
        assert.ok(at > 0 || client === 'vscode', text);
        if (client === 'vscode') {
          const json = JSON.parse(w[2] ?? '') as { name: string; command: string; args: string[] };
          assert.deepEqual([json.name, json.command, json.args], ['ocdb', LAUNCH.command, LAUNCH.args]);
        } else {
          assert.deepEqual(
            w.slice(at + 1).filter((x) => x !== '--'),
            LAUNCH.args,
          );
        }
      }
      const jsonStart = text.indexOf('\n{');
      if (jsonStart >= 0) {
        const entry = JSON.parse(text.slice(jsonStart)) as Record<
          string,
          Record<string, { command: string; args: string[] }>
        >;
        const servers = entry.mcpServers ?? entry.servers;
        assert.deepEqual(servers?.ocdb?.args, LAUNCH.args);
      } else {
        assert.match(text, /\[mcp_servers\.ocdb\]\ncommand = "\/usr\/bin\/node"\nargs = \[/);
      }
    });
  }

  it('prints it from the command line with the resolved store, and refuses an unknown client', async () => {
    const ok = io();
    assert.equal(await runCli(['mcp', '--print-config', 'claude', '--store', 'runs.db'], ok), 0);
    assert.match(ok.lines.join('\n'), /claude mcp add ocdb -- .* mcp --store \/work\/project\/runs\.db/);
    const bad = io();
    assert.equal(await runCli(['mcp', '--print-config', 'emacs'], bad), 2);
    assert.match(bad.errors.join('\n'), /expected one of claude, codex, cursor, gemini, vscode/);
    const cap = io();
    assert.equal(await runCli(['mcp', '--max-answer-chars', '10'], cap), 2);
    assert.match(cap.errors.join('\n'), /--max-answer-chars 10: expected a whole number ≥ 4000/);
  });
});

/**
 * `ocdb acp -- <agent command…>`: sits between an editor and an Agent Client Protocol agent over stdio. Starts
 * the agent, passes every byte of both directions through unchanged (the editor's stdin to the agent, the agent's
 * stdout to the editor; the agent's stderr stays its own), and records each ACP session as a run from a copy of
 * each line (recorder/acpSessions.ts). Nothing but the agent's output is written to stdout; warnings go to stderr.
 * Exits with the agent's exit code.
 */
import { spawn } from 'node:child_process';
import { OcdbError } from '../../model';
import { AcpSessions } from '../../recorder/acpSessions';
import { openRecorder } from '../../recorder';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';

/** Splits a byte stream into lines (LF; a CR before it is dropped by the reader's trim), calling `onLine` for each. */
function lineSplitter(onLine: (line: string, lineNo: number) => void): { push(chunk: Buffer): void; end(): void } {
  let rest = '';
  let n = 0;
  const decoder = new TextDecoder();
  return {
    push(chunk) {
      rest += decoder.decode(chunk, { stream: true });
      let i: number;
      while ((i = rest.indexOf('\n')) >= 0) {
        onLine(rest.slice(0, i), ++n);
        rest = rest.slice(i + 1);
      }
    },
    end() {
      rest += decoder.decode();
      if (rest.trim() !== '') onLine(rest, ++n);
      rest = '';
    },
  };
}

export const acpCommand: CliCommand = {
  name: 'acp',
  summary: 'record the sessions of an ACP agent while an editor talks to it',
  help: [
    'Usage: ocdb acp [--agent-id <id>] [--store <path>] -- <agent command> [args...]',
    '',
    'Runs the Agent Client Protocol agent <agent command> and passes the editor’s stdio through to',
    'it unchanged, recording each session (session/new, session/load) as a run: prompts, message',
    'and thought chunks, tool calls and their updates, plans, session/request_permission as',
    'manual_confirm with the option the editor chose, usage where the agent reports it.',
    'Point the editor’s agent command at `ocdb acp -- <the agent command>`.',
    '  --agent-id <id>   agentId of the recorded runs (default: the agent command’s name)',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const dash = args.indexOf('--');
    const command = dash >= 0 ? args.slice(dash + 1) : [];
    const { values, positionals } = parseCommandArgs(dash >= 0 ? args.slice(0, dash) : args, {
      ...STORE_OPTION,
      'agent-id': { type: 'string' },
    });
    if (positionals.length > 0 || command.length === 0) {
      io.err(`ocdb acp: expected the agent command after --.\n\n${this.help}`);
      return EXIT.usage;
    }
    const [program, ...programArgs] = command as [string, ...string[]];
    const store = openStoreFor(io, values.store, true, true);
    const recorder = openRecorder({
      runStore: store,
      onStoreError: 'disable',
      onError: (e) => io.err(`ocdb acp: ${e.message}`),
    });
    const agentId = values['agent-id'] ?? (program.split(/[\\/]/).at(-1) || 'acp-agent');
    const sessions = new AcpSessions(recorder, {
      agentId,
      command,
      onWarning: (m) => io.err(`ocdb acp: warning: ${m}`),
    });
    const child = spawn(program, programArgs, { stdio: ['pipe', 'pipe', 'inherit'], env: io.env, cwd: io.cwd });
    const fromEditor = lineSplitter((line, n) => sessions.observe('editor', line, n));
    const fromAgent = lineSplitter((line, n) => sessions.observe('agent', line, n));
    const stdin = process.stdin;
    const onInput = (chunk: Buffer) => {
      child.stdin.write(chunk);
      fromEditor.push(chunk);
    };
    const onInputEnd = () => {
      fromEditor.end();
      child.stdin.end();
    };
    stdin.on('data', onInput);
    stdin.on('end', onInputEnd);
    child.stdin.on('error', () => {
      // the agent closed its stdin (it is exiting): its exit is reported below
    });
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      fromAgent.push(chunk);
    });
    try {
      const code = await new Promise<number>((resolve, reject) => {
        child.on('error', (e) =>
          reject(new OcdbError('InvalidInput', `ocdb acp: cannot start ${program}: ${e.message}`, { path: 'command' })),
        );
        child.on('close', (c, signal) => resolve(c ?? (signal ? 128 : EXIT.failed)));
      });
      fromAgent.end();
      const recorded = sessions.runIds;
      sessions.close(code === 0 ? undefined : { message: `the agent ${program} exited with code ${code}` });
      for (const [sessionId, runId] of recorded) io.err(`ocdb acp: session ${sessionId} recorded as run ${runId}`);
      return code;
    } finally {
      stdin.off('data', onInput);
      stdin.off('end', onInputEnd);
      stdin.pause();
      recorder.close();
      store.close();
    }
  },
};

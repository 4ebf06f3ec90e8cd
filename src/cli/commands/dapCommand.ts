/**
 * `ocdb dap`: the "Replay agent run" Debug Adapter over stdio, for any DAP
 * client (VS Code's executable adapter, nvim-dap, Emacs dap-mode). stdout
 * carries only DAP messages; the run, store and options come in the launch
 * or attach request; problems of the connection itself (a message that is not JSON)
 * go to stderr. Resolves when the client closes the connection.
 */
import { AgentReplaySession } from '../../debug/agentReplaySession';
import { EXIT, parseCommandArgs, type CliCommand } from '../cliCommand';

export const dapCommand: CliCommand = {
  name: 'dap',
  summary: 'run the Debug Adapter (DAP) over stdio for any DAP client',
  help: [
    'Usage: ocdb dap',
    '',
    'Speaks the Debug Adapter Protocol on stdin/stdout. Launch arguments (replay):',
    '  runId (required), store (default: $OCDB_STORE, else ./.ocdb/runs.db),',
    '  stopOnEntry (default true), checkpointId (optional start), transcriptDetail.',
    'Attach arguments (a running agent): runId (a running run) or agentId (its next',
    '  runs, one thread each), store, stopOnEntry (default false), stopBeforeModelCall.',
    'When the client goes away the attached agents go on (at once, or within the',
    '5 s lease if this process is killed).',
  ].join('\n'),
  async run({ args, io }) {
    parseCommandArgs(args, {}, false);
    const session = new AgentReplaySession(io.env, (line) => io.err(line));
    await new Promise<void>((resolve) => {
      process.stdin.on('close', resolve);
      process.stdin.on('end', resolve);
      session.start(process.stdin, process.stdout);
    });
    session.release(); // a client gone without disconnect: attached agents go on now, not after the lease
    return EXIT.ok;
  },
};

/**
 * Runs a fork with the agent's own program: marks the fork request
 * waiting_for_agent and starts the program (a shell command, e.g. the launch
 * configuration's `program`) with OCDB_FORK and OCDB_STORE set, so the
 * recorder SDK inside it attaches to the fork run. Used by `ocdb fork --program`,
 * the debugger's fork request and the extension. No UI.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { RunStore } from '../store';
import { runFork } from './runner';

export interface AgentProgramOptions {
  /** Shell command line of the agent (run with the shell, in `cwd`). */
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Default 'inherit' (the CLI); the extension passes 'pipe' and shows the output. */
  stdio?: StdioOptions;
}

export interface StartedAgentProgram {
  child: ChildProcess;
  /** Resolves with the program's exit code (1 when it could not start). */
  exited: Promise<number>;
}

/** Hands the fork request to the agent program and starts it. */
export async function startAgentProgram(
  store: RunStore,
  forkRequestId: string,
  options: AgentProgramOptions,
): Promise<StartedAgentProgram> {
  await runFork(store, forkRequestId, { agentProgram: true });
  const child = spawn(options.command, {
    shell: true,
    cwd: options.cwd,
    stdio: options.stdio ?? 'inherit',
    env: { ...(options.env ?? process.env), OCDB_FORK: forkRequestId, OCDB_STORE: store.path },
  });
  const exited = new Promise<number>((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
  return { child, exited };
}

/**
 * Runs a fork with the agent's own program: marks the fork request
 * waiting_for_agent and starts the program (a shell command, e.g. the launch
 * configuration's `program`) with OCDB_FORK and OCDB_STORE set, so the
 * recorder SDK inside it attaches to the fork run. Used by `ocdb fork --program`,
 * the debugger's fork request and the extension. A program that exits before it claimed the fork (it failed to
 * start, could not open the store, or never started recording) settles the request at once: failed, code
 * `agent_exited`, naming its exit code. No UI.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { RunStore } from '../store';
import { saveForkStatus } from './forkRequests';
import { runFork } from './runner';

export interface AgentProgramOptions {
  /** Shell command line of the agent (run with the shell, in `cwd`). */
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Default 'inherit' (the CLI); the extension passes 'pipe' and shows the output. */
  stdio?: StdioOptions;
  /**
   * The store as the program opens it (OCDB_STORE): a PostgreSQL URL with its password, which `store.path` never
   * shows. Default `store.path`.
   */
  storeLocation?: string;
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
    env: {
      ...(options.env ?? process.env),
      OCDB_FORK: forkRequestId,
      OCDB_STORE: options.storeLocation ?? store.path,
    },
  });
  const exited = new Promise<number>((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => {
      settleUnclaimed(store, forkRequestId, code, signal);
      resolve(code ?? 1);
    });
  });
  return { child, exited };
}

/** The program ended: a request it never claimed fails now, with how the program ended, rather than waiting. */
function settleUnclaimed(
  store: RunStore,
  forkRequestId: string,
  code: number | null,
  signal: NodeJS.Signals | null,
): void {
  try {
    store.transaction(() => {
      const request = store.getForkRequest(forkRequestId);
      if (request.status !== 'waiting_for_agent') return;
      const how = code !== null ? `exited with code ${code}` : `was killed by ${signal ?? 'a signal'}`;
      saveForkStatus(store, forkRequestId, 'failed', Date.now(), {
        code: 'agent_exited',
        message: `The agent program ${how} before it claimed fork ${request.forkRunId ?? forkRequestId}: it never started recording (it failed, or could not open the store ${store.path}). Its output says why.`,
        ...(code !== null ? { exitCode: code } : { signal }),
      });
    });
  } catch {
    // the store was closed or is failing: the request still settles, as `unclaimed`, within a minute
  }
}

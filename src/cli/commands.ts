/**
 * Every `ocdb` subcommand, in the order `ocdb --help` lists them. Add a command here and nowhere else. A command's
 * module loads when it is asked for (`load`), so `ocdb import` does not build the debugger's, the server's or the
 * ACP proxy's schemas and tables before it starts: each command starts in what its own modules take.
 */
import type { CliCommand } from './cliCommand';

export interface CommandEntry {
  /** The name typed after `ocdb` (the loaded command's own `name`). */
  name: string;
  load(): Promise<CliCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'runs', load: async () => (await import('./commands/runsCommand')).runsCommand },
  { name: 'show', load: async () => (await import('./commands/showCommand')).showCommand },
  { name: 'diff', load: async () => (await import('./commands/diffCommand')).diffCommand },
  { name: 'files', load: async () => (await import('./commands/filesCommand')).filesCommand },
  { name: 'view', load: async () => (await import('./commands/viewCommand')).viewCommand },
  { name: 'artifact', load: async () => (await import('./commands/artifactCommand')).artifactCommand },
  { name: 'export', load: async () => (await import('./commands/exportCommand')).exportCommand },
  { name: 'load', load: async () => (await import('./commands/loadCommand')).loadCommand },
  { name: 'push', load: async () => (await import('./commands/transferCommand')).pushCommand },
  { name: 'pull', load: async () => (await import('./commands/transferCommand')).pullCommand },
  { name: 'sessions', load: async () => (await import('./commands/sessionsCommand')).sessionsCommand },
  { name: 'import', load: async () => (await import('./commands/importCommand')).importCommand },
  { name: 'replay', load: async () => (await import('./commands/replayCommand')).replayCommand },
  { name: 'fork', load: async () => (await import('./commands/forkCommand')).forkCommand },
  { name: 'what-if', load: async () => (await import('./commands/whatIfCommand')).whatIfCommand },
  { name: 'compare', load: async () => (await import('./commands/compareCommand')).compareCommand },
  { name: 'serve', load: async () => (await import('./commands/serveCommand')).serveCommand },
  { name: 'demo', load: async () => (await import('./commands/demoCommand')).demoCommand },
  { name: 'dap', load: async () => (await import('./commands/dapCommand')).dapCommand },
  { name: 'acp', load: async () => (await import('./commands/acpCommand')).acpCommand },
  { name: 'mcp', load: async () => (await import('./commands/mcpCommand')).mcpCommand },
];

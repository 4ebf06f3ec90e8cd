/** Every `ocdb` subcommand, in the order `ocdb --help` lists them. Add a command here and nowhere else. */
import type { CliCommand } from './cliCommand';
import { acpCommand } from './commands/acpCommand';
import { artifactCommand } from './commands/artifactCommand';
import { dapCommand } from './commands/dapCommand';
import { demoCommand } from './commands/demoCommand';
import { diffCommand } from './commands/diffCommand';
import { exportCommand } from './commands/exportCommand';
import { forkCommand } from './commands/forkCommand';
import { importCommand } from './commands/importCommand';
import { loadCommand } from './commands/loadCommand';
import { replayCommand } from './commands/replayCommand';
import { runsCommand } from './commands/runsCommand';
import { serveCommand } from './commands/serveCommand';
import { showCommand } from './commands/showCommand';
import { pullCommand, pushCommand } from './commands/transferCommand';

export const COMMANDS: readonly CliCommand[] = [
  runsCommand,
  showCommand,
  diffCommand,
  artifactCommand,
  exportCommand,
  loadCommand,
  pushCommand,
  pullCommand,
  importCommand,
  replayCommand,
  forkCommand,
  serveCommand,
  demoCommand,
  dapCommand,
  acpCommand,
];

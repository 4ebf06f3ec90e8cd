/**
 * `ocdb artifact <runId> <name>`: an artifact's content — printed (text) or written to a file (`-o`): the newest
 * version the run holds, the one a checkpoint carries (`--checkpoint`), or a version (`--version`). Binary
 * content is never printed to a terminal. `ocdb artifact <runId>` lists the run's artifacts.
 * Exit codes: 0 done, 1 binary content for a terminal, 2 usage, 3 not found.
 */
import { writeFileSync } from 'node:fs';
import { OcdbError, byteSize, isTextContent } from '../../model';
import { artifactSize, findRunArtifact, runArtifacts } from '../../store';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
import { artifactTable } from '../format';

export const artifactCommand: CliCommand = {
  name: 'artifact',
  summary: "print or save an artifact's content (a report, a patch, an image) a run recorded",
  help: [
    'Usage: ocdb artifact <runId> [<name>] [--checkpoint <id>] [--version <n>] [-o <file>]',
    '',
    'With a name: its content — text to stdout, or to <file> with -o (binary content needs -o or a pipe).',
    'Without a name: the artifacts of the run (at --checkpoint: the ones that checkpoint carries).',
    '  --checkpoint <id>  the version this checkpoint of the run carries (default: the newest)',
    '  --version <n>      that version (1 is the first the run recorded under the name)',
    '  -o, --out <file>   write the content to <file>',
    STORE_HELP,
    '',
    'Exit codes: 0 done, 1 binary content for a terminal, 2 usage, 3 not found.',
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      checkpoint: { type: 'string' },
      version: { type: 'string' },
      out: { type: 'string', short: 'o' },
    });
    const [runId, name] = positionals;
    if (!runId || positionals.length > 2) {
      io.err(`ocdb artifact: expected a run id and an artifact name.\n\n${this.help}`);
      return EXIT.usage;
    }
    const version = values.version === undefined ? undefined : Number(values.version);
    if (version !== undefined && !(Number.isInteger(version) && version >= 1)) {
      throw new OcdbError('InvalidInput', `--version: expected a whole number from 1 (got ${values.version})`, {
        path: 'version',
      });
    }
    const store = openStoreFor(io, values.store, false);
    try {
      if (name === undefined) {
        const refs = runArtifacts(store, runId, values.checkpoint);
        io.out(refs.length === 0 ? '(no artifacts)' : artifactTable(refs, (h) => artifactSize(store, h)));
        return EXIT.ok;
      }
      const ref = findRunArtifact(store, runId, name, {
        ...(values.checkpoint !== undefined ? { checkpointId: values.checkpoint } : {}),
        ...(version !== undefined ? { version } : {}),
      });
      const content = store.getArtifactContent(ref.contentHash);
      if (values.out !== undefined) {
        writeFileSync(values.out, content);
        io.err(`wrote ${ref.artifactId} v${ref.version} (${byteSize(content.byteLength)}) to ${values.out}`);
        return EXIT.ok;
      }
      if (isTextContent(content)) {
        const text = content.toString('utf8');
        if (io.write) await io.write(text);
        else io.out(text.replace(/\n$/, ''));
        return EXIT.ok;
      }
      if (io.isTty || !io.writeBytes) {
        io.err(
          `ocdb artifact: ${ref.artifactId} is binary (${ref.type}, ${byteSize(content.byteLength)}): write it to a file with -o <file>, or pipe it.`,
        );
        return EXIT.failed;
      }
      await io.writeBytes(content);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};

/**
 * `ocdb fork <runId> <checkpoint>`: prints the fork plan (policies, hazards),
 * creates the fork through ForkService and, with --run, runs it (built-in
 * runner, or the agent program given with --program under OCDB_FORK).
 * Exit codes: 0 created / completed / waiting, 4 rejected (hazards), 5
 * diverged (the answer: where the prompt first differs), 1 stopped by another
 * failure, 2 usage, 3 not found.
 */
import {
  ForkConfigSchema,
  OcdbError,
  ON_DIVERGENCE_CHOICES,
  OnDivergenceSchema,
  REPLAY_POLICIES,
  ReplayPolicySchema,
  parseWith,
  readRunError,
  type ForkConfig,
  type ReplayPolicy,
} from '../../model';
import { startAgentProgram } from '../../fork/agentProgram';
import { ForkService } from '../../fork/forkService';
import { runFork } from '../../fork/runner';
import { resolveStorePath, type RunStore } from '../../store';
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
import {
  MODEL_HELP,
  MODEL_OPTIONS,
  chatModelFrom,
  printPlan,
  readJsonFile,
  reportOutcome,
  requireEndpoint,
} from './forkCliShared';

/** A checkpoint id of the run, or its index (`12` or `#12`). */
export function resolveCheckpoint(store: RunStore, runId: string, ref: string): string {
  const list = store.listCheckpoints(runId);
  if (list.some((c) => c.checkpointId === ref)) return ref;
  const m = /^#?(\d+)$/.exec(ref);
  const byIndex = m ? list[Number(m[1])] : undefined;
  if (byIndex) return byIndex.checkpointId;
  throw new OcdbError(
    'CheckpointNotFound',
    `Run ${runId} has no checkpoint ${ref} (ids or indexes 0-${list.length - 1}; \`ocdb show ${runId}\` lists them).`,
    { runId, checkpointId: ref },
  );
}

/** `tool=value` pairs of a repeatable flag (InvalidInput naming the flag otherwise). */
export function pairs(values: string[] | undefined, flag: string): [string, string][] {
  return (values ?? []).map((v) => {
    const eq = v.indexOf('=');
    if (eq <= 0 || eq === v.length - 1) {
      throw new OcdbError('InvalidInput', `${flag} ${v}: expected tool=value (e.g. ${flag} search_kb=reuse_result)`, {
        path: flag,
      });
    }
    return [v.slice(0, eq), v.slice(eq + 1)];
  });
}

/** The --model flag as a model override: captured, recorded, real or override:provider/model. */
export function modelOverride(spec: string | undefined): ForkConfig['modelOverride'] {
  if (spec === undefined || spec === 'captured') return spec === undefined ? undefined : { mode: 'captured' };
  if (spec === 'recorded') return { mode: 'recorded' };
  if (spec === 'real') return { mode: 'real' };
  const m = /^override:(?:([^/]+)\/)?(.+)$/.exec(spec);
  if (!m) {
    throw new OcdbError(
      'InvalidInput',
      `--model ${spec}: expected captured, recorded, real or override:provider/model`,
      {
        path: 'model',
      },
    );
  }
  return { mode: 'override', ...(m[1] ? { provider: m[1] } : {}), model: m[2] as string };
}

/** The flags a fork and a what-if batch share, declared once beside the function that reads them. */
export const FORK_EDIT_OPTIONS = {
  patch: { type: 'string' },
  policy: { type: 'string', multiple: true },
  mock: { type: 'string', multiple: true },
  model: { type: 'string' },
  'prompt-version': { type: 'string' },
} as const;

/** The flags a fork and a what-if batch share, as the fork configuration's edits (model, patch, policies, mocks). */
export function forkEditsFromFlags(
  values: { model?: string; patch?: string; policy?: string[]; mock?: string[]; 'prompt-version'?: string },
  cwd: string,
): Pick<ForkConfig, 'modelOverride' | 'contextPatch' | 'toolPolicyMap' | 'toolMockResults' | 'promptVersionOverride'> {
  const toolPolicyMap: Record<string, ReplayPolicy> = {};
  for (const [tool, policy] of pairs(values.policy, '--policy')) {
    toolPolicyMap[tool] = parseWith(ReplayPolicySchema, policy, `--policy ${tool}`);
  }
  const toolMockResults: Record<string, unknown> = {};
  for (const [tool, file] of pairs(values.mock, '--mock')) toolMockResults[tool] = readJsonFile(file, '--mock', cwd);
  const override = modelOverride(values.model);
  return {
    ...(override ? { modelOverride: override } : {}),
    ...(values.patch
      ? {
          contextPatch: parseWith(
            ForkConfigSchema.shape.contextPatch.unwrap(),
            readJsonFile(values.patch, '--patch', cwd),
            `--patch ${values.patch}`,
          ),
        }
      : {}),
    ...(Object.keys(toolPolicyMap).length ? { toolPolicyMap } : {}),
    ...(Object.keys(toolMockResults).length ? { toolMockResults } : {}),
    ...(values['prompt-version'] ? { promptVersionOverride: values['prompt-version'] } : {}),
  };
}

export const forkCommand: CliCommand = {
  name: 'fork',
  summary: 'plan and create a fork of a run from a checkpoint (and run it)',
  help: [
    'Usage: ocdb fork <runId> <checkpointId|index> [options]',
    '',
    'Prints the plan (every tool, its effective policy, hazards) and creates the fork.',
    '  --patch <file.json>         contextPatch deep-merged into the runtime context (null removes a key)',
    '  --policy <tool=policy>      replay policy per tool or *; repeatable. One of:',
    `                              ${REPLAY_POLICIES.join(', ')}`,
    '  --mock <tool=file.json>     mock result of a tool; repeatable',
    '  --model <mode>              captured (default: recorded turns until the prompt diverges), recorded',
    '                              (the recorded turns under the edited context, whatever the prompt), real,',
    '                              or override:provider/model',
    '  --prompt-version <v>        promptVersionOverride',
    `  --on-divergence <what>      ${ON_DIVERGENCE_CHOICES.join(' or ')} (default ${ON_DIVERGENCE_CHOICES[0]})`,
    '  --ack <tool[,tool]>         acknowledge hazardous tools by name; repeatable',
    '  --plan                      print the plan only, create nothing',
    '  --run                       run the fork now (built-in runner)',
    '  --program <command>         with --run: run it with the agent program (OCDB_FORK, OCDB_STORE set)',
    '  --json                      print { plan, runId, forkRequestId, outcome } as JSON',
    MODEL_HELP,
    STORE_HELP,
    '',
    'Exit codes: 0 ok, 1 failed, 2 usage, 3 not found, 4 rejected (unacknowledged hazards), 5 diverged.',
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      ...MODEL_OPTIONS,
      ...FORK_EDIT_OPTIONS,
      'on-divergence': { type: 'string' },
      ack: { type: 'string', multiple: true },
      plan: { type: 'boolean' },
      run: { type: 'boolean' },
      program: { type: 'string' },
      json: { type: 'boolean' },
    });
    const [runId, checkpointRef] = positionals;
    if (!runId || !checkpointRef || positionals.length > 2) {
      io.err(`ocdb fork: expected <runId> <checkpointId>.\n\n${this.help}`);
      return EXIT.usage;
    }
    const edits = forkEditsFromFlags(values, io.cwd);
    const acknowledged = (values.ack ?? [])
      .flatMap((a) => a.split(','))
      .map((a) => a.trim())
      .filter(Boolean);
    const onDivergenceFlag = values['on-divergence'];
    const parsedDivergence = OnDivergenceSchema.optional().safeParse(onDivergenceFlag);
    if (!parsedDivergence.success) {
      throw new OcdbError(
        'InvalidInput',
        `--on-divergence ${String(onDivergenceFlag)}: expected ${ON_DIVERGENCE_CHOICES.join(' or ')}`,
        { path: 'on-divergence' },
      );
    }
    const onDivergence = parsedDivergence.data;
    const store = openStoreFor(io, values.store, false);
    try {
      const config: ForkConfig = {
        sourceRunId: runId,
        sourceCheckpointId: resolveCheckpoint(store, runId, checkpointRef),
        ...edits,
        ...(onDivergence ? { onDivergence } : {}),
      };
      const service = new ForkService(store);
      const plan = service.plan(config);
      if (!values.json) printPlan(io, plan, acknowledged);
      if (values.plan) {
        if (values.json) io.out(JSON.stringify({ plan }, null, 2));
        return EXIT.ok;
      }
      const chat = chatModelFrom(values, io);
      if (values.run && !values.program) requireEndpoint(plan.modelMode, chat);
      const created = service.create(config, acknowledged);
      if (!values.json) io.out(`Created fork ${created.runId} (fork request ${created.forkRequestId}).`);
      if (!values.run) {
        if (values.json)
          io.out(JSON.stringify({ plan, runId: created.runId, forkRequestId: created.forkRequestId }, null, 2));
        else
          io.out(
            `Run it with: ocdb fork --run ... or OCDB_FORK=${created.forkRequestId} OCDB_STORE=${store.path} <your agent>`,
          );
        return EXIT.ok;
      }
      if (values.program) {
        const program = await startAgentProgram(store, created.forkRequestId, {
          command: values.program,
          cwd: io.cwd,
          env: io.env,
          // the location as given (a PostgreSQL URL keeps its password; store.path shows it redacted)
          storeLocation: resolveStorePath(typeof values.store === 'string' ? values.store : undefined, io.env, io.cwd),
          // with --json, stdout is ours alone: the agent's stdout goes to stderr, so the JSON parses
          ...(values.json ? { stdio: ['inherit', 2, 'inherit'] as const } : {}),
        });
        const code = await program.exited;
        const request = store.getForkRequest(created.forkRequestId);
        const error = readRunError(request.error);
        if (values.json)
          io.out(
            JSON.stringify({ plan, runId: created.runId, forkRequestId: created.forkRequestId, request }, null, 2),
          );
        else
          io.out(
            `Agent program exited with ${code}; fork ${created.runId}: ${request.status}${error ? ` (${error.code}: ${error.message})` : ''}`,
          );
        if (request.status === 'diverged') return EXIT.diverged;
        return request.status === 'completed' ? EXIT.ok : EXIT.failed;
      }
      const outcome = await runFork(store, created.forkRequestId, chat ? { chatModel: chat } : {});
      if (values.json) {
        io.out(JSON.stringify({ plan, runId: created.runId, forkRequestId: created.forkRequestId, outcome }, null, 2));
        return outcome.failure?.code === 'diverged' ? EXIT.diverged : outcome.failure ? EXIT.failed : EXIT.ok;
      }
      return reportOutcome(io, outcome, 'Fork');
    } finally {
      store.close();
    }
  },
};

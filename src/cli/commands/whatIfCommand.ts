/**
 * `ocdb what-if`: one fork configuration over a cohort of runs (cohort/whatIfBatch.ts) — which runs diverge
 * and where, the tool calls that differ, the assertions against the recording's, the deltas, and the gate's
 * certificate; `--json`, `--junit`. Progress on stderr. Exit codes: 0 every fork ran and every assertion held
 * (a divergence is an answer), 1 an assertion or a fork failed (or the gate's record is not clean), 4 refused
 * before anything ran (hazards), 2 usage.
 */
import { writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { OcdbError, OnDivergenceSchema, REPLAY_POLICIES, RunStatusSchema, parseWith } from '../../model';
import { parseAssertion } from '../../cohort/assertionText';
import { parseForkPoint } from '../../cohort/cohortSelection';
import { junitReport } from '../../cohort/junitReport';
import { saveQuery, savedQuery } from '../../cohort/savedQueries';
import { runWhatIf, type CostEstimate, type WhatIfReport } from '../../cohort/whatIfBatch';
import { whatIfLines } from '../../cohort/whatIfText';
import type { WhatIfSpecInput } from '../../cohort/whatIfSpec';
import {
  EXIT,
  STORE_HELP,
  STORE_OPTION,
  openStoreFor,
  parseCommandArgs,
  type CliCommand,
  type CliIo,
} from '../cliCommand';
import { FORK_EDIT_OPTIONS, forkEditsFromFlags, pairs } from './forkCommand';
import { MODEL_HELP, MODEL_OPTIONS, chatModelFrom, requireEndpoint } from './forkCliShared';

export { parseAssertion } from '../../cohort/assertionText';

/** A time on the command line: an ISO date or milliseconds since the epoch. */
function parseTime(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(n)) {
    throw new OcdbError('InvalidInput', `${flag} ${text}: expected an ISO date (2026-11-02) or ms since the epoch`, {
      path: flag,
    });
  }
  return n;
}

async function askCost(io: CliIo, estimate: CostEstimate, yes: boolean): Promise<boolean> {
  const unpriced = estimate.unpriced.map((u) => `${u.tokens} tokens of ${u.model} (price not known)`).join(', ');
  io.err(
    `what-if: this batch asks the model for about ${estimate.tokens} tokens${estimate.gradingTokens ? ` (${estimate.gradingTokens} of them grading)` : ''} ≈ $${estimate.usd.toFixed(2)}${unpriced ? `; ${unpriced}` : ''}.`,
  );
  if (yes) return true;
  if (!io.isTty) {
    io.err('what-if: not started; pass --yes (or raise --max-cost) to run it.');
    return false;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question('Run it? [y/N] ')).trim());
  } finally {
    rl.close();
  }
}

export function exitCodeOf(report: WhatIfReport): number {
  const failed = report.results.some((r) => r.outcome === 'failed' || r.assertions.some((a) => !a.passed));
  return failed || !report.certificate.clean ? EXIT.failed : EXIT.ok;
}

export const whatIfCommand: CliCommand = {
  name: 'what-if',
  summary: 'apply one fork configuration to a cohort of runs: divergences, assertions, a side-effect certificate',
  help: [
    'Usage: ocdb what-if [runId…] [options]',
    '',
    'Forks every run of the cohort with the same change (captured model by default: no model is called and',
    'tools are answered from the recording by policy), and reports per run: same as recorded / diverged at',
    'step N / different outcome / failed, the tool calls that differ, the assertions, and the deltas.',
    'Cohort (combine freely; runIds given as arguments or --run pick runs explicitly):',
    '  --agent <agentId>  --status <status>  --since <date>  --until <date>  --meta <key=value> (repeatable)',
    '  --include-forks    --limit <n>',
    '  --save-query <name>  keep this cohort by name (beside the store)   --query <name>  select a saved cohort',
    'Where each run is forked (--at): first (default), 12 (an index), step:5[:before_model_call],',
    '  boundary:before_tool_call, or an expression: the first checkpoint where it holds (e.g. "tool(\'issue_refund\')")',
    'The change (as ocdb fork):',
    '  --patch <file.json>  --policy <tool=policy> (repeatable; * for every tool)  --mock <tool=file.json>',
    `  --model <captured|recorded|real|override:provider/model>  --prompt-version <v>  --on-divergence <fail|continue_real>`,
    `  --ack <tool[,tool]>  acknowledge hazardous tools by name (* never unlocks a write or irreversible tool)`,
    `  policies: ${REPLAY_POLICIES.join(', ')}`,
    'Checks:',
    "  --assert [name=]<expression>  over the fork's end state and ledger (repeatable), e.g.",
    '                                no_refund="!tool(\'issue_refund\')"',
    "  --assert-model [name=]<question>  a yes/no question about each fork's end (and its recording's) put to",
    '                                the model endpoint (--base-url, --model-name), e.g.',
    '                                polite="Did the agent decline the refund politely?" (priced first, like --model real)',
    'Running:',
    '  --concurrency <n>     forks in flight (default 2)',
    "  --batch-file <path>   progress file (default next to the store, by the batch's key): an interrupted",
    '                        batch resumes from it; --fresh starts over',
    '  --max-cost <usd>      real / override model: ask before spending more (default 1); --yes to not ask',
    'Output:',
    '  --json                the whole report as JSON     --junit <out.xml>  a JUnit report for CI',
    '  --all                 list every run, not only those that changed',
    MODEL_HELP,
    STORE_HELP,
    '',
    'Exit codes: 0 ok, 1 an assertion or a fork failed, 2 usage, 3 not found, 4 refused (hazards; nothing ran).',
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, {
      ...STORE_OPTION,
      ...MODEL_OPTIONS,
      agent: { type: 'string' },
      status: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      meta: { type: 'string', multiple: true },
      run: { type: 'string', multiple: true },
      'include-forks': { type: 'boolean' },
      limit: { type: 'string' },
      at: { type: 'string' },
      ...FORK_EDIT_OPTIONS,
      'on-divergence': { type: 'string' },
      ack: { type: 'string', multiple: true },
      assert: { type: 'string', multiple: true },
      'assert-model': { type: 'string', multiple: true },
      concurrency: { type: 'string' },
      'batch-file': { type: 'string' },
      fresh: { type: 'boolean' },
      'max-cost': { type: 'string' },
      yes: { type: 'boolean' },
      json: { type: 'boolean' },
      junit: { type: 'string' },
      all: { type: 'boolean' },
      query: { type: 'string' },
      'save-query': { type: 'string' },
    });
    const edits = forkEditsFromFlags(values, io.cwd);
    const metadata = Object.fromEntries(pairs(values.meta, '--meta'));
    const runIds = [...positionals, ...(values.run ?? [])];
    const number = (text: string | undefined, flag: string): number | undefined => {
      if (text === undefined) return undefined;
      const n = Number(text);
      if (!Number.isFinite(n) || n <= 0)
        throw new OcdbError('InvalidInput', `${flag} ${text}: expected a positive number`, { path: flag });
      return n;
    };
    const override = edits.modelOverride;
    const since = parseTime(values.since, '--since');
    const until = parseTime(values.until, '--until');
    const limit = number(values.limit, '--limit');
    const spec: WhatIfSpecInput = {
      cohort: {
        ...(values.agent ? { agentId: values.agent } : {}),
        ...(values.status ? { status: parseWith(RunStatusSchema, values.status, '--status') } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
        ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
        ...(runIds.length > 0 ? { runIds } : {}),
        ...(values['include-forks'] ? { includeForks: true } : {}),
        ...(limit !== undefined ? { limit: Math.floor(limit) } : {}),
      },
      at: parseForkPoint(values.at),
      fork: {
        ...edits,
        ...(values['on-divergence']
          ? { onDivergence: parseWith(OnDivergenceSchema, values['on-divergence'], '--on-divergence') }
          : {}),
      },
      acknowledgedTools: (values.ack ?? [])
        .flatMap((a) => a.split(','))
        .map((a) => a.trim())
        .filter(Boolean),
      assertions: (values.assert ?? []).map(parseAssertion),
    };
    const chat = chatModelFrom(values, io);
    const graderModel = values['model-name'] ?? io.env.OCDB_MODEL;
    const questions = (values['assert-model'] ?? []).map(parseAssertion);
    if (questions.length > 0) {
      if (!chat || !graderModel) {
        throw new OcdbError(
          'InvalidInput',
          '--assert-model needs a model endpoint and a model: pass --base-url and --model-name (or set OCDB_MODEL_BASE_URL and OCDB_MODEL).',
          { path: '--assert-model' },
        );
      }
      spec.assertions = [
        ...(spec.assertions ?? []),
        ...questions.map((q) => ({ name: q.name, question: q.expression, model: graderModel })),
      ];
    }
    const store = openStoreFor(io, values.store, false);
    try {
      // the batch files and saved queries live beside a store file, else in this folder's .ocdb
      const root = isAbsolute(store.path) ? dirname(store.path) : join(io.cwd, '.ocdb');
      const whatIfDir = join(root, 'what-if');
      if (values.query) spec.cohort = { ...savedQuery(whatIfDir, values.query), ...spec.cohort };
      const cohort = spec.cohort;
      if (!cohort.agentId && !cohort.runIds && !cohort.status && !cohort.metadata) {
        io.err(`ocdb what-if: name a cohort (--agent, --status, --meta, run ids or --query).\n\n${this.help}`);
        return EXIT.usage;
      }
      if (values['save-query']) {
        saveQuery(whatIfDir, root, values['save-query'], cohort);
        io.err(
          `what-if: saved this cohort as "${values['save-query']}" (--query ${values['save-query']} runs it again).`,
        );
      }
      requireEndpoint(override?.mode ?? 'captured', chat);
      const every = { last: 0 };
      const report = await runWhatIf(store, spec, {
        ...(chat ? { chatModel: chat } : {}),
        ...(chat && graderModel ? { grader: { chatModel: chat, model: graderModel } } : {}),
        concurrency: Math.floor(number(values.concurrency, '--concurrency') ?? 2),
        ...(values['batch-file'] ? { batchFile: resolve(io.cwd, values['batch-file']) } : { batchDir: whatIfDir }),
        ...(values.fresh ? { fresh: true } : {}),
        maxCostUsd: number(values['max-cost'], '--max-cost') ?? 1,
        confirmCost: (estimate) => askCost(io, estimate, values.yes === true),
        onProgress: (p) => {
          const step = Math.max(1, Math.ceil(p.total / 20));
          if (p.done === p.total || p.done - every.last >= step || (p.done === p.resumed && p.resumed > 0)) {
            every.last = p.done;
            const last = p.last
              ? ` · ${p.last.sourceRunId}: ${p.last.outcome}`
              : p.resumed > 0
                ? ` · resumed ${p.resumed} from the batch file`
                : '';
            io.err(`what-if: ${p.done}/${p.total} runs (${Math.round((100 * p.done) / p.total)}%)${last}`);
          }
        },
      });
      if (values.junit) writeFileSync(resolve(io.cwd, values.junit), junitReport(report));
      if (values.json) io.out(JSON.stringify(report, null, 2));
      else {
        for (const line of whatIfLines(report, values.all === true)) io.out(line);
        if (values.junit) io.out(`JUnit report: ${values.junit}`);
        if (report.batchFile) io.out(`Batch file: ${report.batchFile}`);
      }
      return exitCodeOf(report);
    } catch (e) {
      if (e instanceof OcdbError && e.code === 'ForkRejected') {
        io.err(e.message);
        const tool = (e.details.hazards as { toolName?: string }[] | undefined)?.[0]?.toolName ?? '<tool>';
        io.err(
          `Nothing ran. Name each tool with its own policy and acknowledge it (--policy ${tool}=re_execute --ack ${tool}), or answer it from the recording (--policy ${tool}=reuse_result).`,
        );
        return EXIT.rejected;
      }
      if (e instanceof OcdbError && e.code === 'Cancelled') {
        io.err(e.message);
        return EXIT.failed;
      }
      throw e;
    } finally {
      store.close();
    }
  },
};

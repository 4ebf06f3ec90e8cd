/** `ocdb show <runId>`: a run's summary, checkpoints, tool ledger and artifacts. */
import { EXIT, STORE_HELP, STORE_OPTION, openStoreFor, parseCommandArgs, type CliCommand } from '../cliCommand';
import {
  checkpointHoldPlace,
  divergenceOfError,
  liveEditSummary,
  readRunError,
  toolOutcomeOf,
  toolOwnMs,
  type ToolCallRecord,
} from '../../model';
import { describeDivergence } from '../../fork/divergence';
import { artifactSize, runArtifacts } from '../../store';
import { artifactTable, displayStatus, duration, shorten, table, timestamp } from '../format';

export const showCommand: CliCommand = {
  name: 'show',
  summary: "show a run's summary, checkpoints, tool ledger and artifacts",
  help: [
    'Usage: ocdb show <runId> [--json]',
    '',
    '  --json   print { run, statusText, divergence?, checkpoints, toolLedger, artifacts, liveEdits } as JSON',
    '           (artifacts: every version the run holds; the text lists the newest of each name)',
    STORE_HELP,
  ].join('\n'),
  async run({ args, io }) {
    const { values, positionals } = parseCommandArgs(args, { ...STORE_OPTION, json: { type: 'boolean' } });
    const runId = positionals[0];
    if (!runId || positionals.length > 1) {
      io.err(`ocdb show: expected exactly one run id.\n\n${this.help}`);
      return EXIT.usage;
    }
    const store = openStoreFor(io, values.store, false);
    try {
      const run = store.getRun(runId);
      const checkpoints = store.listCheckpoints(runId);
      const toolLedger = store.listToolCalls(runId);
      const liveEdits = store.listLiveEdits(runId);
      const divergence = run.status === 'diverged' ? divergenceOfError(run.error) : undefined;
      if (values.json) {
        const statusText = displayStatus(run);
        const artifacts = store.listArtifacts(runId);
        io.out(
          JSON.stringify(
            { run, statusText, ...(divergence ? { divergence } : {}), checkpoints, toolLedger, artifacts, liveEdits },
            null,
            2,
          ),
        );
        return EXIT.ok;
      }
      const lines = [
        `Run ${run.runId}`,
        `  agent     ${run.agentId}   session ${run.sessionId}`,
        `  status    ${displayStatus(run)}   mode ${run.mode}${run.parentRunId ? `   forked from ${run.parentRunId} @ ${run.forkFromCheckpointId ?? '?'}` : ''}`,
        `  started   ${timestamp(run.startedAt)}   duration ${duration(run.endedAt === undefined ? undefined : run.endedAt - run.startedAt)}`,
        `  steps     ${run.stepCount}   checkpoints ${run.checkpointCount}   tool calls ${run.toolCallCount} (${run.toolErrorCount} errors)   tokens ${run.inputTokens} in / ${run.outputTokens} out`,
      ];
      if (divergence) {
        lines.push(`  diverged  ${describeDivergence(divergence)}`);
        lines.push(
          `            recorded prompt: ${divergence.sourceCheckpointId}${divergence.forkCheckpointId ? `   this run's: ${divergence.forkCheckpointId}` : ''}`,
        );
      } else if (run.error !== undefined) lines.push(`  error     ${shorten(JSON.stringify(run.error), 200)}`);
      io.out(lines.join('\n'));
      io.out('\nCheckpoints');
      // a live debugger's hold at a stop other than before a tool (a model call's), as the ledger shows a tool's
      const held = checkpoints.some((c) => c.heldMs);
      io.out(
        table(
          ['#', 'STEP', 'BOUNDARY', 'TOOL', 'MSGS', 'FINISH', 'USAGE', ...(held ? ['HELD'] : []), 'ID'],
          checkpoints.map((c, i) => [
            String(c.index),
            String(c.stepIndex),
            c.boundary,
            c.toolName ?? '',
            String(c.messageCount),
            c.finishReason ?? '',
            c.usage ? `${c.usage.inputTokens}/${c.usage.outputTokens}` : '',
            ...(held
              ? [
                  c.heldMs
                    ? `${duration(c.heldMs)} ${checkpointHoldPlace(c.boundary, checkpoints[i - 1]?.boundary)}`
                    : '',
                ]
              : []),
            c.checkpointId,
          ]),
        ),
      );
      io.out('\nTool ledger');
      io.out(
        toolLedger.length === 0
          ? '  (no tool calls)'
          : table(
              ['TOOL', 'SIDE EFFECT', 'POLICY', 'DURATION', 'ARGS', 'OUTCOME', 'ID'],
              toolLedger.map((t) => [
                t.liveEdit ? `${t.toolName} ✎` : t.toolName,
                t.sideEffectLevel,
                t.replayPolicy,
                t.heldMs ? `${duration(toolOwnMs(t))} +${duration(t.heldMs)} held` : duration(toolOwnMs(t)),
                shorten(JSON.stringify(t.args) ?? '', 40),
                outcomeText(t),
                t.toolCallId,
              ]),
            ),
      );
      const artifacts = runArtifacts(store, runId);
      io.out('\nArtifacts');
      io.out(
        artifacts.length === 0
          ? '  (no artifacts)'
          : `${artifactTable(artifacts, (h) => artifactSize(store, h))}\n  ocdb artifact ${runId} <name> prints one (-o <file> saves it)`,
      );
      if (liveEdits.length > 0) {
        const index = new Map(checkpoints.map((c) => [c.checkpointId, c.index]));
        io.out('\nLive edits (made by a debugger while the run was recorded)');
        io.out(
          table(
            ['#', 'BOUNDARY', 'TOOL CALL', 'WHEN', 'WHAT'],
            liveEdits.map((e) => [
              String(index.get(e.checkpointId) ?? '?'),
              e.boundary,
              e.toolCallId ?? '',
              timestamp(e.appliedAt),
              shorten(liveEditSummary(e.edits), 80),
            ]),
          ),
        );
      }
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};

/** The OUTCOME column: the result, ERROR with the error, CANCELLED with its reason, or running. */
function outcomeText(t: ToolCallRecord): string {
  switch (toolOutcomeOf(t)) {
    case 'cancelled':
      return `CANCELLED ${shorten(readRunError(t.error)?.message ?? '', 50)}`;
    case 'error':
      return `ERROR ${shorten(JSON.stringify(t.error), 50)}`;
    case 'success':
      return t.endedAt === undefined ? 'running' : shorten(JSON.stringify(t.result) ?? 'ok', 50);
  }
}

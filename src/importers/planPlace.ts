/**
 * What a format's tail recorder follows of the plan it is built into, the same for every format: how many ops so
 * far, whether a checkpoint was the last one taken, the calls still open. A place where a later import may go on is
 * one just after a checkpoint (`settled`); `here` gives the generic part of it. Pure.
 */
import type { KeptPlace } from './fileTail';
import { takesCheckpoint } from './planDigest';
import type { PlanOp, RunPlanBuilder } from './runPlan';

export class PlanPlace {
  private ops = 0;
  private since = 0;
  private readonly openCalls = new Set<string>();

  /** `also`: sees every op too (the builder has one observer). */
  constructor(
    private readonly builder: RunPlanBuilder,
    also?: (op: PlanOp) => void,
  ) {
    // the calls open, followed here: the builder's own list is the whole ledger's, read at every line otherwise
    for (const r of builder.openTools()) this.openCalls.add(r.toolCallId);
    builder.observe((op) => {
      also?.(op);
      this.ops++;
      this.since = takesCheckpoint(op) ? 0 : this.since + 1;
      if (op.op === 'beginTool') this.openCalls.add(op.call.toolCallId);
      else if (op.op === 'finishTool') this.openCalls.delete(op.toolCallId);
    });
  }

  /** A checkpoint was the last thing the plan took (and there is one). */
  get settled(): boolean {
    return this.since === 0 && this.builder.checkpointCount >= 1;
  }

  /** The place before the line at `at` (numbered `atLine`): the ops and checkpoints before it, the clock, the calls open. */
  here(at: number, atLine: number): KeptPlace & { open: string[] } {
    return {
      at,
      atLine,
      ops: this.ops,
      keep: this.builder.checkpointCount,
      lastAt: this.builder.lastTimestamp,
      open: [...this.openCalls],
    };
  }
}

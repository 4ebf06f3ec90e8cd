/**
 * ReplayCursor: a position in a recorded run's checkpoints and the stepping
 * rules of the debugger, both ways — next / back = neighbour checkpoint, step
 * in = next tool boundary of the same ReAct step, step out = first checkpoint
 * of the next step (or agent_end), continue / reverse continue = the next /
 * previous checkpoint where `check` reports a stop, else the end / start.
 * Pure: works on CheckpointSummary lists; no store, no DAP.
 */
import { OcdbError, TOOL_BOUNDARIES } from '../model';
import type { CheckpointSummary } from '../store';

export type StepKind = 'next' | 'back' | 'stepIn' | 'stepOut';

/** What `check` says about one checkpoint while continuing. */
export interface SeekResult<S> {
  index: number;
  /** The stop found at `index`, or undefined when the run's end / start was reached without one. */
  stop?: S;
}

export class ReplayCursor {
  private position: number;

  constructor(
    readonly checkpoints: readonly CheckpointSummary[],
    start = 0,
  ) {
    if (checkpoints.length === 0) {
      throw new OcdbError('CheckpointNotFound', 'The run has no checkpoints yet: there is nothing to replay.', {});
    }
    this.position = this.clamp(start);
  }

  private clamp(i: number): number {
    return Math.min(Math.max(0, i), this.checkpoints.length - 1);
  }

  get index(): number {
    return this.position;
  }

  get current(): CheckpointSummary {
    return this.checkpoints[this.position] as CheckpointSummary;
  }

  get last(): number {
    return this.checkpoints.length - 1;
  }

  get atEnd(): boolean {
    return this.position === this.last;
  }

  get atStart(): boolean {
    return this.position === 0;
  }

  /** The index of `checkpointId` in this run; throws CheckpointNotFound naming it. */
  indexOf(checkpointId: string): number {
    const i = this.checkpoints.findIndex((c) => c.checkpointId === checkpointId);
    if (i < 0) {
      throw new OcdbError(
        'CheckpointNotFound',
        `Checkpoint ${checkpointId} is not in run ${this.current.runId}; pick one of its ${this.checkpoints.length} checkpoints.`,
        { checkpointId, runId: this.current.runId, path: 'checkpointId' },
      );
    }
    return i;
  }

  /** Where a step of `kind` from the current position lands (the current index when there is nowhere to go). */
  target(kind: StepKind): number {
    const here = this.position;
    const cur = this.current;
    switch (kind) {
      case 'next':
        return this.clamp(here + 1);
      case 'back':
        return this.clamp(here - 1);
      case 'stepIn': {
        for (let i = here + 1; i < this.checkpoints.length; i++) {
          const c = this.checkpoints[i] as CheckpointSummary;
          if (c.stepIndex !== cur.stepIndex) break;
          if (TOOL_BOUNDARIES.has(c.boundary)) return i;
        }
        return this.clamp(here + 1);
      }
      case 'stepOut': {
        for (let i = here + 1; i < this.checkpoints.length; i++) {
          const c = this.checkpoints[i] as CheckpointSummary;
          if (c.boundary === 'agent_end' || c.stepIndex > cur.stepIndex) return i;
        }
        return this.last;
      }
      default: {
        const unreachable: never = kind;
        throw new Error(`unknown step ${String(unreachable)}`);
      }
    }
  }

  /** Moves to `index` (clamped) and returns it. */
  moveTo(index: number): number {
    this.position = this.clamp(index);
    return this.position;
  }

  /**
   * Continues forward (or backward) from the current position, asking `check`
   * at each checkpoint after (before) it; stops at the first stop, else at the
   * run's end (start). Moves the cursor.
   */
  seek<S>(direction: 'forward' | 'backward', check: (index: number) => S | undefined): SeekResult<S> {
    const delta = direction === 'forward' ? 1 : -1;
    for (let i = this.position + delta; i >= 0 && i < this.checkpoints.length; i += delta) {
      const stop = check(i);
      if (stop !== undefined) {
        this.position = i;
        return { index: i, stop };
      }
    }
    this.position = direction === 'forward' ? this.last : 0;
    return { index: this.position };
  }
}

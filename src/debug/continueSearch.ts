/**
 * A continue (or reverse continue) that may take long: it checks CONTINUE_SLICE checkpoints at a time through
 * ReplayController.resumeSome and yields between slices, so `pause` and `cancel` get through on a long run with
 * breakpoints that rarely hold. At most one runs per session; `pause` stops it where it got to, `cancel` of its
 * request does too and marks it cancelled, `abandon` forgets it (terminate, disconnect, a new launch). No DAP
 * transport: the session answers the request in `done`.
 */
import type { ReplayController, StopInfo } from './replayController';

/** Checkpoints a continue checks before it yields. */
export const CONTINUE_SLICE = 200;

/** How a search ended: where it stopped, and whether its request was cancelled; or the error it failed with. */
export type SearchEnd = { stop: StopInfo; cancelled: boolean } | { error: unknown };

interface Running {
  requestSeq: number;
  interrupt?: 'pause' | 'cancel';
}

export class ContinueSearch {
  private running: Running | undefined;

  /** True while a continue is searching. */
  get active(): boolean {
    return this.running !== undefined;
  }

  /** Starts searching in `direction` for the request `requestSeq`; `done` gets the end (once, unless abandoned). */
  start(
    ctl: ReplayController,
    direction: 'forward' | 'backward',
    requestSeq: number,
    done: (end: SearchEnd) => void,
  ): void {
    const running: Running = { requestSeq };
    this.running = running;
    const logs: string[] = [];
    const slice = (): void => {
      if (this.running !== running) return; // abandoned meanwhile
      try {
        const stop = running.interrupt
          ? ctl.pauseHere(running.interrupt === 'pause' ? 'Paused' : 'Cancelled')
          : ctl.resumeSome(direction, CONTINUE_SLICE, logs);
        if (!stop) {
          setImmediate(slice);
          return;
        }
        this.running = undefined;
        // log points printed by earlier slices belong to this stop too
        done({
          stop: stop.logs === logs ? stop : { ...stop, logs: [...logs, ...stop.logs] },
          cancelled: running.interrupt === 'cancel',
        });
      } catch (error) {
        this.running = undefined;
        done({ error });
      }
    };
    slice();
  }

  /** Pause: the search stops where it got to. False when none is running. */
  pause(): boolean {
    if (!this.running) return false;
    this.running.interrupt ??= 'pause';
    return true;
  }

  /** Cancel of request `requestSeq`: the search stops and its request answers `cancelled`. False when not ours. */
  cancel(requestSeq: number | undefined): boolean {
    if (!this.running || requestSeq !== this.running.requestSeq) return false;
    this.running.interrupt = 'cancel';
    return true;
  }

  /** Forgets a running search without answering it (the session ends or launches again). */
  abandon(): void {
    this.running = undefined;
  }
}

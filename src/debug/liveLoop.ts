/**
 * The loop of an attach session: every LIVE_POLL_MS one LiveController tick (the lease, the stops the agents ask,
 * the runs that ended) whose events the session sends as DAP events. A store that cannot be read is said once per
 * problem, not on every poll, and the loop goes on (a locked store frees itself). No DAP transport here.
 */
import { errorMessage } from '../model';
import type { LiveController, LiveEvent } from './liveController';

/** How often an attach session looks for stops its agents ask (the stop protocol: ~5 ms). */
export const LIVE_POLL_MS = 5;

export class LiveLoop {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private problem: string | undefined;

  /** `deciding`: whether stops are answered now (after configurationDone); `send` gets each event. */
  constructor(
    private readonly live: LiveController,
    private readonly deciding: () => boolean,
    private readonly send: (e: LiveEvent) => void,
  ) {}

  start(): void {
    this.turn();
  }

  private turn(): void {
    if (this.stopped) return;
    let events: LiveEvent[] = [];
    try {
      events = this.live.tick(Date.now(), this.deciding());
      this.problem = undefined;
    } catch (e) {
      const text = `ocdb dap: the live session could not read the store: ${errorMessage(e)}`;
      if (text !== this.problem) events = [{ kind: 'output', text, category: 'important' }];
      this.problem = text;
    }
    for (const e of events) this.send(e);
    if (!this.stopped) this.timer = setTimeout(() => this.turn(), LIVE_POLL_MS);
  }

  /** Stops the loop (the session detaches, launches, or ends). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

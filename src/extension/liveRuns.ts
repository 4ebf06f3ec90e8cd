/**
 * Which runs of the store a debugger is attached to now, and where a stopped one waits: read from the store's
 * live tables (an attachment whose lease holds, its `stopped` stops), so a run under any client — this VS Code,
 * another window, `ocdb dap` in Neovim — is marked in the runs tree (`PAUSED before lookup_order`). Re-read when
 * the store changes (asking and answering a stop bump its run in the change feed) and every couple of seconds
 * (a lease that ran out changes nothing in the store). VS Code wiring only; the words are liveModel.ts'.
 */
import type * as vscode from 'vscode';
import { errorMessage } from '../model';
import type { RunStore } from '../store';
import { stopPlaceText } from './liveModel';
import type { LiveMark } from './runsTreeModel';
import type { StoreConnection } from './storeConnection';

/** How often leases are looked at again without a store change. */
const RECHECK_MS = 2000;
/** Running runs looked at (newest first): far more than run at once. */
const RUNNING_LIMIT = 200;

/** The runs of `store` under a debugger at `at`, each with its client and where it is stopped, if it is. */
export function liveMarksOf(store: RunStore, at: number): Map<string, LiveMark> {
  const marks = new Map<string, LiveMark>();
  for (const run of store.listRuns({ status: 'running', limit: RUNNING_LIMIT }).runs) {
    if (run.crashed) continue;
    const attachment = store.liveAttachmentFor(run.runId, run.agentId, at);
    if (!attachment) continue;
    const stop = store
      .listLiveStops(attachment.attachId, ['stopped'], at)
      .filter((s) => s.runId === run.runId)
      .at(-1);
    const toolName = stop?.toolCallId ? store.getCheckpointSummary(stop.checkpointId).toolName : undefined;
    marks.set(run.runId, {
      client: attachment.client,
      ...(stop ? { stoppedAt: stopPlaceText({ boundary: stop.boundary, ...(toolName ? { toolName } : {}) }) } : {}),
    });
  }
  return marks;
}

export class LiveRuns implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly timer: NodeJS.Timeout;
  private marks = new Map<string, LiveMark>();

  constructor(
    private readonly connection: StoreConnection,
    private readonly show: (marks: ReadonlyMap<string, LiveMark>) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(connection.onDidChange(() => this.refresh()));
    this.timer = setInterval(() => this.refresh(), RECHECK_MS);
  }

  /** The runs marked now (for tests). */
  get current(): ReadonlyMap<string, LiveMark> {
    return this.marks;
  }

  /** Reads the marks again and shows them. */
  refresh(): void {
    const store = this.connection.tryGet();
    if (!store) return;
    try {
      this.marks = liveMarksOf(store, Date.now());
      this.show(this.marks);
    } catch (e) {
      this.log.debug(`reading the live attachments failed: ${errorMessage(e)}`);
    }
  }

  dispose(): void {
    clearInterval(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}

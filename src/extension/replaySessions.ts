/**
 * The running `agent-replay` debug sessions, as the Context & Fork editor
 * needs them: the edits a session staged with setVariable (asked with the
 * typed `stagedContextPatch` request of src/debug/protocol.ts), an event when
 * a session stages another edit (seen through a debug adapter tracker), and
 * clearing them once a fork from the editor has used them. VS Code wiring
 * only; what a staged patch is and when a context includes it are the
 * debugger's (src/debug/stagedEdits.ts).
 */
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { sendRequest, stagedContextPatchRequest, stagedPatchOf, type StagedPatch } from '../debug/protocol';
import { isAppliedIn } from '../debug/stagedEdits';
import { errorMessage, type RuntimeContextSnapshot } from '../model';
import { DEBUG_TYPE } from './ids';

/** How long the editor waits for a session's answer before showing the checkpoint without its staged edits. */
const ANSWER_TIMEOUT_MS = 2000;

function withTimeout<T>(p: PromiseLike<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([Promise.resolve(p), timeout]).finally(() => clearTimeout(timer));
}

export class ReplaySessions implements vscode.Disposable {
  private readonly sessions = new Map<string, vscode.DebugSession>();
  private readonly staged = new vscode.EventEmitter<vscode.DebugSession>();
  /** A session staged an edit (a setVariable succeeded). */
  readonly onDidStage = this.staged.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: vscode.LogOutputChannel) {
    const active = vscode.debug.activeDebugSession;
    if (active?.type === DEBUG_TYPE) this.sessions.set(active.id, active);
    this.disposables.push(
      this.staged,
      vscode.debug.onDidStartDebugSession((s) => {
        if (s.type === DEBUG_TYPE) this.sessions.set(s.id, s);
      }),
      vscode.debug.onDidTerminateDebugSession((s) => this.sessions.delete(s.id)),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: (session) => ({
          onDidSendMessage: (message: DebugProtocol.ProtocolMessage) => {
            const r = message as Partial<DebugProtocol.Response>;
            if (r.type === 'response' && r.command === 'setVariable' && r.success === true) this.staged.fire(session);
          },
        }),
      }),
    );
  }

  /** The sessions to ask, the active one first. */
  private ordered(): vscode.DebugSession[] {
    const active = vscode.debug.activeDebugSession;
    const all = [...this.sessions.values()];
    return active ? [...all.filter((s) => s.id === active.id), ...all.filter((s) => s.id !== active.id)] : all;
  }

  private async stagedOf(session: vscode.DebugSession): Promise<StagedPatch | undefined> {
    try {
      const body = await withTimeout(
        sendRequest(session, stagedContextPatchRequest, {}),
        ANSWER_TIMEOUT_MS,
        `${stagedContextPatchRequest.command} of ${session.name}`,
      );
      return stagedPatchOf(body);
    } catch (e) {
      // a session not launched yet, or ending: it has nothing to offer
      this.log.debug(`no staged edits from ${session.name}: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /** The edits a running replay staged at `checkpointId` of `runId` (the first session that has some), if any. */
  async stagedAt(runId: string, checkpointId: string): Promise<StagedPatch | undefined> {
    for (const session of this.ordered()) {
      const staged = await this.stagedOf(session);
      if (staged && staged.runId === runId && staged.checkpointId === checkpointId) return staged;
    }
    return undefined;
  }

  /**
   * After a fork from `checkpointId` whose runtime context is `context`: clears the staged edits of every session
   * whose edits at that checkpoint the context includes, so they are not applied to a second fork. Edits the fork
   * left out (the user changed them back in the editor) stay staged. Returns how many sessions were cleared.
   */
  async clearUsedBy(checkpointId: string, context: RuntimeContextSnapshot): Promise<number> {
    let cleared = 0;
    for (const session of this.ordered()) {
      const staged = await this.stagedOf(session);
      if (!staged || staged.checkpointId !== checkpointId || !isAppliedIn(context, staged.contextPatch)) continue;
      try {
        await sendRequest(session, stagedContextPatchRequest, { clear: true });
        cleared++;
        this.log.info(`cleared the edits staged in ${session.name}: the fork from ${checkpointId} used them`);
      } catch (e) {
        this.log.warn(`could not clear the edits staged in ${session.name}: ${errorMessage(e)}`);
      }
    }
    return cleared;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * The status bar item of a replay: `[13] step 2 · before_tool_call` (the run
 * and checkpoint in the tooltip) while an `agent-replay` session is paused;
 * hidden otherwise. An attached (live) session says where the agent waits,
 * `live · stopped before lookup_order`, or that the cursor is in what the run
 * already recorded. Clicking it opens the run's transcript.
 */
import * as vscode from 'vscode';
import type { DebugPosition } from './debugPosition';
import { positionText, positionTooltip } from './format';
import { DEBUG_TYPE } from './ids';
import { liveAttachedText, livePositionText } from './liveModel';

export class ReplayStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'agentTimeTravel.position',
    vscode.StatusBarAlignment.Left,
    50,
  );

  constructor(private readonly openCommand: string) {
    this.item.name = 'Agent Replay Position';
  }

  /** The text shown now ('' when hidden), for tests. */
  get text(): string {
    return this.item.text;
  }

  /**
   * Shows where the paused session is; with no position, an attach session (`active`, the active one) still says
   * what it waits for.
   */
  update(position: DebugPosition | undefined, active?: vscode.DebugSession): void {
    if (!position) {
      if (active?.type === DEBUG_TYPE && active.configuration.request === 'attach') {
        const { agentId, runId } = active.configuration as { agentId?: unknown; runId?: unknown };
        this.item.text = `$(debug-alt) ${liveAttachedText({ agentId, runId })}`;
        this.item.command = undefined;
        this.item.tooltip = 'A debugger is attached: the agent stops at your breakpoints (or press Pause).';
        this.item.show();
        return;
      }
      this.item.text = '';
      this.item.hide();
      return;
    }
    const { run, checkpoint, session } = position;
    const live = session.configuration.request === 'attach';
    this.item.text = live
      ? `$(debug-pause) ${livePositionText(run, checkpoint)}`
      : `$(debug-alt) ${positionText(checkpoint)}`;
    this.item.command = { command: this.openCommand, title: 'Open Transcript', arguments: [run.runId] };
    const tooltip = new vscode.MarkdownString(positionTooltip(run, checkpoint, live), true);
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    this.item.tooltip = tooltip;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

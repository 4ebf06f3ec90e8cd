/**
 * The status bar item of a replay: `step 3/9 · before_tool_call` (the run
 * and checkpoint in the tooltip) while an `agent-replay` session is paused;
 * hidden otherwise. An attached (live) session says where the agent waits,
 * `live · stopped before lookup_order`, or that the cursor is in what the run
 * already recorded. Clicking it opens the run's transcript.
 */
import * as vscode from 'vscode';
import type { DebugPosition } from './debugPosition';
import { positionText, positionTooltip } from './format';
import { livePositionText } from './liveModel';

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

  update(position: DebugPosition | undefined): void {
    if (!position) {
      this.item.text = '';
      this.item.hide();
      return;
    }
    const { run, checkpoint, session } = position;
    const live = session.configuration.request === 'attach';
    this.item.text = live
      ? `$(debug-pause) ${livePositionText(run, checkpoint)}`
      : `$(debug-alt) ${positionText(run, checkpoint)}`;
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

/**
 * Where the active `agent-replay` session is: the checkpoint of the focused
 * stack frame (or the top frame of the focused thread), read through the
 * session's own stackTrace and mapped from the frame's transcript line back
 * to a checkpoint. The status bar, the tree (reveal) and the context editor
 * follow it.
 */
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { runIdOfTranscript } from '../debug/transcriptFiles';
import { checkpointAtLine } from '../replay/transcript';
import type { CheckpointSummary, RunSummary } from '../store';
import type { ExtensionContextObject } from './context';
import { DEBUG_TYPE } from './ids';

export interface DebugPosition {
  session: vscode.DebugSession;
  run: RunSummary;
  checkpoint: CheckpointSummary;
}

const MAX_FRAMES = 1000;

export class DebugPositionTracker implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<DebugPosition | undefined>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private current: DebugPosition | undefined;
  private generation = 0;

  constructor(private readonly ctx: ExtensionContextObject) {
    this.disposables.push(
      vscode.debug.onDidChangeActiveStackItem(() => void this.update()),
      vscode.debug.onDidChangeActiveDebugSession(() => void this.update()),
      vscode.debug.onDidTerminateDebugSession(() => void this.update()),
    );
  }

  get position(): DebugPosition | undefined {
    return this.current;
  }

  /** Re-reads the position of the active stack item. */
  async update(): Promise<void> {
    const generation = ++this.generation;
    let next: DebugPosition | undefined;
    try {
      next = await this.read();
    } catch (e) {
      this.ctx.log.debug(`reading the debug position failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (generation !== this.generation) return; // a newer update won
    this.current = next;
    this.emitter.fire(next);
  }

  private async read(): Promise<DebugPosition | undefined> {
    const item = vscode.debug.activeStackItem;
    const session = item?.session ?? vscode.debug.activeDebugSession;
    if (!session || session.type !== DEBUG_TYPE || !item) return undefined;
    const frameId = item instanceof vscode.DebugStackFrame ? item.frameId : undefined;
    const reply = (await session.customRequest('stackTrace', {
      threadId: item.threadId,
      startFrame: 0,
      levels: frameId === undefined ? 1 : MAX_FRAMES,
    })) as DebugProtocol.StackTraceResponse['body'];
    const frame = frameId === undefined ? reply.stackFrames[0] : reply.stackFrames.find((f) => f.id === frameId);
    const path = frame?.source?.path;
    if (!frame || !path) return undefined;
    const file = path.startsWith('file:') ? vscode.Uri.parse(path).fsPath : path;
    const runId = runIdOfTranscript(file);
    const store = this.ctx.connection.tryGet();
    if (!runId || !store?.hasRun(runId)) return undefined;
    const line = checkpointAtLine(this.ctx.transcripts.transcript(runId), frame.line - 1);
    if (!line) return undefined;
    // one row by id, not the run's whole list: this runs at every step, and a run may hold 10,000 checkpoints
    const checkpoint = store.getCheckpointSummary(line.checkpointId);
    return checkpoint.runId === runId ? { session, run: store.getRun(runId), checkpoint } : undefined;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.emitter.dispose();
  }
}

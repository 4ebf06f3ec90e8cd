/**
 * How a live debugger's hold reads wherever a duration is shown: the time an agent waited at a stop is neither the
 * tool's nor the model call's own, and every place says so in the same words. A tool's hold is its call's
 * `heldMs`; a hold at any other stop is the next checkpoint's `heldMs` (at an after_model_call, the hold before the
 * model was called). Durations come formatted in the caller's own units. Pure.
 */
import type { CheckpointBoundary } from './checkpoint';

/** "held 1.5 s by the debugger", then where (`before the call`) when told. */
export function heldText(duration: string, where?: string): string {
  return `held ${duration} by the debugger${where ? ` ${where}` : ''}`;
}

/**
 * Where a checkpoint's hold (Checkpoint.heldMs) was, said after heldText's words: at an after_model_call before the
 * model call; on the checkpoint after an after_model_call (the stop once the model answered), after it; elsewhere at
 * the stop of the checkpoint before. `previous`: that checkpoint's boundary, when the caller knows it.
 */
export function checkpointHoldPlace(boundary: CheckpointBoundary, previous?: CheckpointBoundary): string {
  if (boundary === 'after_model_call') return 'before the call';
  if (previous === 'after_model_call') return 'after the model call';
  return 'at the stop before';
}

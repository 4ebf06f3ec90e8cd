/**
 * Schema migrations, applied at open by `PRAGMA user_version`. Append new
 * migrations at the end; never edit a released one.
 *
 * Layout (see ARCHITECTURE.md §3): content-addressed `blobs` hold every large
 * value once (messages, runtime contexts, system prompts, tool args/results,
 * ledger records); `list_nodes` are hash-consed cons cells so a checkpoint's
 * message list and ledger snapshot share their prefix with every other list
 * that has it — a conversation of N messages over C checkpoints costs
 * O(N + C) rows, not O(N x C).
 */
import type { SqlDriver } from './sqlDriver';

/** SQLite's GLOB for a UUID in its canonical form (lowercase, 8-4-4-4-12): stored as its 16 bytes from schema 7. */
const HEX = '[0-9a-f]';
const UUID_GLOB = [8, 4, 4, 4, 12].map((n) => HEX.repeat(n)).join('-');

export const MIGRATIONS: readonly string[] = [
  // 1: runs, checkpoints, tool calls, blobs, list nodes, fork requests, change feed
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('change_seq', '0');

  -- a rowid table on purpose: WITHOUT ROWID b-trees spill ~1 KB rows into mostly empty overflow pages
  CREATE TABLE blobs (hash TEXT PRIMARY KEY, data TEXT NOT NULL);

  CREATE TABLE list_nodes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    parent INTEGER NOT NULL,
    item TEXT NOT NULL,
    len INTEGER NOT NULL,
    UNIQUE (parent, item)
  );

  CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    parent_run_id TEXT,
    fork_from_checkpoint_id TEXT,
    status TEXT NOT NULL,
    mode TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    error_json TEXT,
    metadata_json TEXT NOT NULL,
    artifact_refs_json TEXT NOT NULL,
    owner_pid INTEGER,
    owner_host TEXT,
    heartbeat_at REAL,
    checkpoint_count INTEGER NOT NULL DEFAULT 0,
    tool_call_count INTEGER NOT NULL DEFAULT 0,
    tool_error_count INTEGER NOT NULL DEFAULT 0,
    max_step INTEGER NOT NULL DEFAULT -1,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    change_seq INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX runs_by_start ON runs (started_at DESC);
  CREATE INDEX runs_by_parent ON runs (parent_run_id);
  CREATE INDEX runs_by_change ON runs (change_seq);

  CREATE TABLE deleted_runs (run_id TEXT NOT NULL, change_seq INTEGER NOT NULL);

  CREATE TABLE checkpoints (
    checkpoint_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    boundary TEXT NOT NULL,
    step_index INTEGER NOT NULL,
    messages_node INTEGER NOT NULL,
    message_count INTEGER NOT NULL,
    system_prompt_hash TEXT,
    model_json TEXT,
    prompt_version TEXT,
    context_hash TEXT NOT NULL,
    tool_call_id TEXT,
    ledger_node INTEGER NOT NULL,
    ledger_count INTEGER NOT NULL,
    artifact_refs_json TEXT,
    finish_reason TEXT,
    usage_json TEXT,
    created_at REAL NOT NULL,
    UNIQUE (run_id, seq)
  );

  CREATE TABLE tool_calls (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    tool_call_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    tool_name TEXT NOT NULL,
    args_hash TEXT NOT NULL,
    args_ref TEXT NOT NULL,
    result_ref TEXT,
    error_json TEXT,
    side_effect_level TEXT NOT NULL,
    replay_policy TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    state TEXT NOT NULL,
    PRIMARY KEY (run_id, tool_call_id)
  ) WITHOUT ROWID;
  CREATE INDEX tool_calls_by_cassette_key ON tool_calls (tool_name, args_hash);

  CREATE TABLE fork_requests (
    fork_request_id TEXT PRIMARY KEY,
    source_run_id TEXT NOT NULL,
    source_checkpoint_id TEXT NOT NULL,
    fork_run_id TEXT,
    config_json TEXT NOT NULL,
    acknowledged_json TEXT NOT NULL,
    status TEXT NOT NULL,
    error_json TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
  );
  `,
  // 2: manual_confirm answers for forks run by the agent program (pending -> answered / expired)
  `
  CREATE TABLE fork_confirmations (
    confirmation_id TEXT PRIMARY KEY,
    fork_request_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    tool_call_id TEXT,
    tool_name TEXT NOT NULL,
    args_json TEXT NOT NULL,
    side_effect_level TEXT NOT NULL,
    status TEXT NOT NULL,
    answer TEXT,
    mock_json TEXT,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    answered_at REAL
  );
  CREATE INDEX fork_confirmations_by_status ON fork_confirmations (status, created_at);
  `,
  // 3: when a run last recorded something (its newest checkpoint's createdAt), for durations of unfinished runs
  `
  ALTER TABLE runs ADD COLUMN last_checkpoint_at REAL;
  UPDATE runs SET last_checkpoint_at = (SELECT MAX(created_at) FROM checkpoints c WHERE c.run_id = runs.run_id);
  `,
  // 4: content stored once — a blob may hold a value whose large members are blobs of their own (refs: a JSON
  // array of [path, hash]; NULL for a plain blob, which every blob of schema 3 is and stays); the tree page of
  // top-level runs served by an index (no sort of every root run) and their count kept by triggers in meta.
  `
  ALTER TABLE blobs ADD COLUMN refs TEXT;
  CREATE INDEX runs_roots_by_start ON runs (started_at) WHERE parent_run_id IS NULL; -- read backwards: started_at DESC, rowid DESC
  INSERT INTO meta (key, value) VALUES ('root_runs', (SELECT CAST(COUNT(*) AS TEXT) FROM runs WHERE parent_run_id IS NULL));
  CREATE TRIGGER runs_root_insert AFTER INSERT ON runs WHEN NEW.parent_run_id IS NULL
    BEGIN UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'root_runs'; END;
  CREATE TRIGGER runs_root_delete AFTER DELETE ON runs WHEN OLD.parent_run_id IS NULL
    BEGIN UPDATE meta SET value = CAST(value AS INTEGER) - 1 WHERE key = 'root_runs'; END;
  CREATE TRIGGER runs_root_update AFTER UPDATE OF parent_run_id ON runs
    WHEN (OLD.parent_run_id IS NULL) <> (NEW.parent_run_id IS NULL)
    BEGIN UPDATE meta SET value = CAST(value AS INTEGER) + (CASE WHEN NEW.parent_run_id IS NULL THEN 1 ELSE -1 END)
      WHERE key = 'root_runs'; END;
  `,
  // live debugging: debuggers attached to a run or an agent (with a lease), the stops an agent
  // asks at each boundary and their answers, the edits applied (a run's record, exported as DebugRun.liveEdits),
  // and the edit a ledger record ran with (tool_calls.live_edit_json). See src/store/liveTable.ts.
  `
  CREATE TABLE live_attachments (
    attach_id TEXT PRIMARY KEY,
    run_id TEXT,
    agent_id TEXT,
    client TEXT NOT NULL,
    created_at REAL NOT NULL,
    lease_until REAL NOT NULL,
    state TEXT NOT NULL
  );
  CREATE INDEX live_attachments_by_state ON live_attachments (state, lease_until);

  CREATE TABLE live_stops (
    stop_id TEXT PRIMARY KEY,
    attach_id TEXT NOT NULL,
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    boundary TEXT NOT NULL,
    tool_call_id TEXT,
    asked_at REAL NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    edits_json TEXT,
    answered_at REAL
  );
  CREATE INDEX live_stops_by_attach ON live_stops (attach_id, state);
  CREATE INDEX live_stops_by_run ON live_stops (run_id);

  CREATE TABLE live_edits (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    stop_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    boundary TEXT NOT NULL,
    tool_call_id TEXT,
    edits_json TEXT NOT NULL,
    applied_at REAL NOT NULL,
    PRIMARY KEY (run_id, seq)
  );

  ALTER TABLE tool_calls ADD COLUMN live_edit_json TEXT;
  `,
  // fewer and smaller rows and index entries per checkpoint, data kept in place: content hashes
  // are their 16 bytes (BLOB), not 32 hex characters, in blobs, list nodes and every column that refers to a blob
  // (contentStore.ts hashKey / hashOf); checkpoints are keyed by (run_id, seq) in a WITHOUT ROWID b-tree with one
  // index (checkpoint_id), two b-trees where there were three. Tables are rebuilt (SQLite cannot change a column's
  // type); list node ids and the AUTOINCREMENT counter are kept, so ids are never reused.
  `
  CREATE TABLE blobs_new (hash BLOB PRIMARY KEY, data TEXT NOT NULL, refs TEXT);
  INSERT INTO blobs_new (hash, data, refs) SELECT unhex(hash), data, refs FROM blobs ORDER BY rowid;
  DROP TABLE blobs;
  ALTER TABLE blobs_new RENAME TO blobs;

  CREATE TABLE list_nodes_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    parent INTEGER NOT NULL,
    item BLOB NOT NULL,
    len INTEGER NOT NULL,
    UNIQUE (parent, item)
  );
  INSERT INTO list_nodes_new (id, parent, item, len) SELECT id, parent, unhex(item), len FROM list_nodes ORDER BY id;
  INSERT INTO sqlite_sequence (name, seq) SELECT 'list_nodes_new', 0 WHERE NOT EXISTS
    (SELECT 1 FROM sqlite_sequence WHERE name = 'list_nodes_new');
  UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'list_nodes'), 0))
   WHERE name = 'list_nodes_new';
  DROP TABLE list_nodes;
  ALTER TABLE list_nodes_new RENAME TO list_nodes;

  CREATE TABLE checkpoints_new (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    checkpoint_id TEXT NOT NULL UNIQUE,
    boundary TEXT NOT NULL,
    step_index INTEGER NOT NULL,
    messages_node INTEGER NOT NULL,
    message_count INTEGER NOT NULL,
    system_prompt_hash BLOB,
    model_json TEXT,
    prompt_version TEXT,
    context_hash BLOB NOT NULL,
    tool_call_id TEXT,
    ledger_node INTEGER NOT NULL,
    ledger_count INTEGER NOT NULL,
    artifact_refs_json TEXT,
    finish_reason TEXT,
    usage_json TEXT,
    created_at REAL NOT NULL,
    PRIMARY KEY (run_id, seq)
  ) WITHOUT ROWID;
  INSERT INTO checkpoints_new (run_id, seq, checkpoint_id, boundary, step_index, messages_node, message_count,
      system_prompt_hash, model_json, prompt_version, context_hash, tool_call_id, ledger_node, ledger_count,
      artifact_refs_json, finish_reason, usage_json, created_at)
    SELECT run_id, seq, checkpoint_id, boundary, step_index, messages_node, message_count, unhex(system_prompt_hash),
      model_json, prompt_version, unhex(context_hash), tool_call_id, ledger_node, ledger_count, artifact_refs_json,
      finish_reason, usage_json, created_at
    FROM checkpoints;
  DROP TABLE checkpoints;
  ALTER TABLE checkpoints_new RENAME TO checkpoints;

  CREATE TABLE tool_calls_new (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    tool_call_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    tool_name TEXT NOT NULL,
    args_hash TEXT NOT NULL,
    args_ref BLOB NOT NULL,
    result_ref BLOB,
    error_json TEXT,
    side_effect_level TEXT NOT NULL,
    replay_policy TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    state TEXT NOT NULL,
    live_edit_json TEXT,
    PRIMARY KEY (run_id, tool_call_id)
  ) WITHOUT ROWID;
  INSERT INTO tool_calls_new SELECT run_id, tool_call_id, seq, tool_name, args_hash, unhex(args_ref), unhex(result_ref),
      error_json, side_effect_level, replay_policy, started_at, ended_at, state, live_edit_json FROM tool_calls;
  DROP TABLE tool_calls;
  ALTER TABLE tool_calls_new RENAME TO tool_calls;
  CREATE INDEX tool_calls_by_cassette_key ON tool_calls (tool_name, args_hash);
  `,
  // smaller checkpoint rows, data kept in place (rowCodec.ts, checkpointTable.ts): a checkpoint
  // names its run by the run's number (runs.run_key, given by a trigger), not its id in every row and index entry;
  // what a run carries over from checkpoint to checkpoint (system prompt, model, prompt version, context, artifact
  // refs) is a row of checkpoint_heads every checkpoint with that head refers to by number; a UUID checkpoint id is
  // its 16 bytes (any other id stays text); the boundary a small number; a usage of input and output tokens only
  // `[in,out]`; created_at an integer when it is one (INTEGER affinity; a fraction stays REAL).
  `
  ALTER TABLE runs ADD COLUMN run_key INTEGER;
  UPDATE runs SET run_key = rowid;
  CREATE UNIQUE INDEX runs_by_key ON runs (run_key);
  CREATE TRIGGER runs_key_insert AFTER INSERT ON runs WHEN NEW.run_key IS NULL
    BEGIN UPDATE runs SET run_key = (SELECT COALESCE(MAX(run_key), 0) + 1 FROM runs) WHERE run_id = NEW.run_id; END;

  CREATE TABLE checkpoint_heads (
    head_id INTEGER PRIMARY KEY,
    system_prompt_hash BLOB,
    model_json TEXT,
    prompt_version TEXT,
    context_hash BLOB NOT NULL,
    artifact_refs_json TEXT
  );
  INSERT INTO checkpoint_heads (system_prompt_hash, model_json, prompt_version, context_hash, artifact_refs_json)
    SELECT DISTINCT system_prompt_hash, model_json, prompt_version, context_hash, artifact_refs_json FROM checkpoints;
  CREATE INDEX checkpoint_heads_migrating ON checkpoint_heads (context_hash);

  CREATE TABLE checkpoints_new (
    run_key INTEGER NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    checkpoint_id BLOB NOT NULL UNIQUE,
    boundary INTEGER NOT NULL,
    step_index INTEGER NOT NULL,
    messages_node INTEGER NOT NULL,
    message_count INTEGER NOT NULL,
    head_id INTEGER NOT NULL,
    tool_call_id TEXT,
    ledger_node INTEGER NOT NULL,
    ledger_count INTEGER NOT NULL,
    finish_reason TEXT,
    usage_json TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (run_key, seq)
  ) WITHOUT ROWID;
  INSERT INTO checkpoints_new (run_key, seq, checkpoint_id, boundary, step_index, messages_node, message_count, head_id,
      tool_call_id, ledger_node, ledger_count, finish_reason, usage_json, created_at)
    SELECT (SELECT r.run_key FROM runs r WHERE r.run_id = c.run_id), c.seq,
      CASE WHEN c.checkpoint_id GLOB '${UUID_GLOB}' THEN unhex(replace(c.checkpoint_id, '-', '')) ELSE c.checkpoint_id END,
      CASE c.boundary WHEN 'before_prompt_build' THEN 0 WHEN 'before_model_call' THEN 1 WHEN 'after_model_call' THEN 2
        WHEN 'before_tool_call' THEN 3 WHEN 'after_tool_call' THEN 4 WHEN 'agent_end' THEN 5 ELSE c.boundary END,
      c.step_index, c.messages_node, c.message_count,
      (SELECT h.head_id FROM checkpoint_heads h WHERE h.context_hash = c.context_hash
          AND h.system_prompt_hash IS c.system_prompt_hash AND h.model_json IS c.model_json
          AND h.prompt_version IS c.prompt_version AND h.artifact_refs_json IS c.artifact_refs_json),
      c.tool_call_id, c.ledger_node, c.ledger_count, c.finish_reason,
      CASE WHEN json_type(c.usage_json) = 'object' AND (SELECT COUNT(*) FROM json_each(c.usage_json)) = 2
          AND json_type(c.usage_json, '$.inputTokens') = 'integer' AND json_type(c.usage_json, '$.outputTokens') = 'integer'
          AND abs(json_extract(c.usage_json, '$.inputTokens')) < 1000000000000000
          AND abs(json_extract(c.usage_json, '$.outputTokens')) < 1000000000000000
        THEN '[' || json_extract(c.usage_json, '$.inputTokens') || ',' || json_extract(c.usage_json, '$.outputTokens') || ']'
        ELSE c.usage_json END,
      c.created_at
    FROM checkpoints c;
  DROP TABLE checkpoints;
  ALTER TABLE checkpoints_new RENAME TO checkpoints;
  DROP INDEX checkpoint_heads_migrating;
  `,
  // 8: the files a run changed, version by version (fileVersionTable.ts): a row names the checkpoint a version was
  // taken at and its path; its text is a blob (stored once by content, shared by every version and run holding it),
  // NULL for a file the run deleted
  `
  CREATE TABLE file_versions (
    run_key INTEGER NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    checkpoint_index INTEGER NOT NULL,
    path TEXT NOT NULL,
    content_hash BLOB,
    PRIMARY KEY (run_key, seq)
  ) WITHOUT ROWID;
  CREATE INDEX file_versions_by_path ON file_versions (run_key, path, seq);
  `,
  // 9: an imported run's files as its import rebuilt them (rebuiltFileTable.ts), told from the versions a recorder
  // read by `kind`; a snapshot's text before the run's first change is a blob too, its marks JSON
  `
  ALTER TABLE file_versions ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE file_versions ADD COLUMN original_hash BLOB;
  ALTER TABLE file_versions ADD COLUMN detail TEXT;
  `,
  // 10: how long a live debugger held a tool call before it ran (ToolCallRecord.heldMs): the call's own time is
  // apart from the hold; NULL when nothing held it (every call recorded before this schema)
  `
  ALTER TABLE tool_calls ADD COLUMN held_ms REAL;
  `,
  // 11: how long a live debugger held the agent at a stop other than before a tool (Checkpoint.heldMs, on the
  // checkpoint after the stop: an after_model_call's is the hold before its model call); NULL when nothing held it
  `
  ALTER TABLE checkpoints ADD COLUMN held_ms REAL;
  `,
  // 12: what a reader that follows a run being recorded (the Timeline) needs to read only what is new: how many
  // times the run's recorded end was cut and written again (reopenRun: what was read of it before is stale when this
  // changed), and the calls by their place in the ledger (the calls begun after the last one read)
  `
  ALTER TABLE runs ADD COLUMN rewrites INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX tool_calls_by_seq ON tool_calls (run_id, seq);
  `,
];

/** Brings the database to the newest schema, each migration in its own transaction. */
export function migrate(db: SqlDriver): void {
  const row = db.prepare('PRAGMA user_version').get();
  const current = Number(row?.user_version ?? 0);
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the store was written by a newer version of Agent Time Travel (schema ${current}, this one knows ${MIGRATIONS.length}): upgrade the extension/CLI`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.begin('write');
    try {
      // Re-check inside the write lock: another process may have migrated meanwhile.
      const now = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
      if (now === v) {
        db.exec(MIGRATIONS[v] as string);
        db.exec(`PRAGMA user_version = ${v + 1}`);
      }
      db.commit();
    } catch (e) {
      db.rollback();
      throw e;
    }
  }
}

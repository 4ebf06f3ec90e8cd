/**
 * The PostgreSQL schema, versioned in the database (`schema_migrations`: one row per applied version) and applied
 * at open under an advisory lock, so several processes opening a new store at once apply each step once. The
 * layout mirrors the SQLite one (migrations.ts) table for table and column for column — the table
 * modules' DML runs on both (pgDialect.ts) — with PostgreSQL types: content-addressed `blobs` (bytea, always
 * compressed: one column holds one type here), hash-consed `list_nodes` (bytes per checkpoint flat), runs with a
 * `rowid` for the tree's tie-break (top-level runs counted when read since step 6: no counter row every writer
 * holds), and a trigger that NOTIFYs the change feed's channel whenever the change counter moves (delivered at
 * commit). `json_each` / `json_extract`
 * are SQL functions with SQLite's meaning for the one statement that uses them (garbage collection).
 *
 * Append new steps at the end; never edit a released one. A SQLite migration that adds a table or a column needs
 * its step here too (test/unit/store/engines.test.ts compares the two schemas).
 */
import { MIGRATION_LOCK } from './pgDriver';
import type { SqlDriver } from './sqlDriver';

export const PG_MIGRATIONS: readonly string[] = [
  // 1: the SQLite layout of schema 4 (runs, checkpoints, tool calls, blobs, list nodes, fork requests,
  // confirmations, change feed, root-run count)
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  INSERT INTO meta (key, value) VALUES ('change_seq', '0'), ('root_runs', '0');

  CREATE TABLE blobs (hash TEXT PRIMARY KEY, data BYTEA NOT NULL, refs TEXT);
  -- the store deflates what is worth it itself: no second compression by TOAST
  ALTER TABLE blobs ALTER COLUMN data SET STORAGE EXTERNAL;

  CREATE TABLE list_nodes (
    id BIGSERIAL PRIMARY KEY,
    parent BIGINT NOT NULL,
    item TEXT NOT NULL,
    len BIGINT NOT NULL,
    UNIQUE (parent, item)
  );

  CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    rowid BIGSERIAL NOT NULL,
    session_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    parent_run_id TEXT,
    fork_from_checkpoint_id TEXT,
    status TEXT NOT NULL,
    mode TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    ended_at DOUBLE PRECISION,
    error_json TEXT,
    metadata_json TEXT NOT NULL,
    artifact_refs_json TEXT NOT NULL,
    owner_pid BIGINT,
    owner_host TEXT,
    heartbeat_at DOUBLE PRECISION,
    checkpoint_count BIGINT NOT NULL DEFAULT 0,
    tool_call_count BIGINT NOT NULL DEFAULT 0,
    tool_error_count BIGINT NOT NULL DEFAULT 0,
    max_step BIGINT NOT NULL DEFAULT -1,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    change_seq BIGINT NOT NULL DEFAULT 0,
    last_checkpoint_at DOUBLE PRECISION
  );
  CREATE INDEX runs_by_start ON runs (started_at DESC, rowid DESC);
  CREATE INDEX runs_by_parent ON runs (parent_run_id);
  CREATE INDEX runs_by_change ON runs (change_seq);
  CREATE INDEX runs_roots_by_start ON runs (started_at DESC, rowid DESC) WHERE parent_run_id IS NULL;

  CREATE TABLE deleted_runs (run_id TEXT NOT NULL, change_seq BIGINT NOT NULL);
  CREATE INDEX deleted_runs_by_change ON deleted_runs (change_seq);

  CREATE TABLE checkpoints (
    checkpoint_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    boundary TEXT NOT NULL,
    step_index BIGINT NOT NULL,
    messages_node BIGINT NOT NULL,
    message_count BIGINT NOT NULL,
    system_prompt_hash TEXT,
    model_json TEXT,
    prompt_version TEXT,
    context_hash TEXT NOT NULL,
    tool_call_id TEXT,
    ledger_node BIGINT NOT NULL,
    ledger_count BIGINT NOT NULL,
    artifact_refs_json TEXT,
    finish_reason TEXT,
    usage_json TEXT,
    created_at DOUBLE PRECISION NOT NULL,
    UNIQUE (run_id, seq)
  );

  CREATE TABLE tool_calls (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    tool_call_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    tool_name TEXT NOT NULL,
    args_hash TEXT NOT NULL,
    args_ref TEXT NOT NULL,
    result_ref TEXT,
    error_json TEXT,
    side_effect_level TEXT NOT NULL,
    replay_policy TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    ended_at DOUBLE PRECISION,
    state TEXT NOT NULL,
    PRIMARY KEY (run_id, tool_call_id)
  );
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
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
  );

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
    created_at DOUBLE PRECISION NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL,
    answered_at DOUBLE PRECISION
  );
  CREATE INDEX fork_confirmations_by_status ON fork_confirmations (status, created_at);

  -- the count of top-level runs, kept in meta as SQLite's triggers keep it (the tree page does not count them)
  CREATE FUNCTION ocdb_count_root_runs() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      IF NEW.parent_run_id IS NULL THEN
        UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'root_runs';
      END IF;
    ELSIF TG_OP = 'DELETE' THEN
      IF OLD.parent_run_id IS NULL THEN
        UPDATE meta SET value = (value::bigint - 1)::text WHERE key = 'root_runs';
      END IF;
    ELSIF (OLD.parent_run_id IS NULL) <> (NEW.parent_run_id IS NULL) THEN
      UPDATE meta SET value = (value::bigint + CASE WHEN NEW.parent_run_id IS NULL THEN 1 ELSE -1 END)::text
       WHERE key = 'root_runs';
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER runs_root_count AFTER INSERT OR DELETE OR UPDATE OF parent_run_id ON runs
    FOR EACH ROW EXECUTE FUNCTION ocdb_count_root_runs();

  -- the change feed: every move of the change counter is notified (at commit) to LISTENers of ocdb_changes
  CREATE FUNCTION ocdb_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('ocdb_changes', NEW.value);
    RETURN NULL;
  END $$;
  CREATE TRIGGER meta_change_notify AFTER UPDATE ON meta
    FOR EACH ROW WHEN (NEW.key = 'change_seq') EXECUTE FUNCTION ocdb_notify_change();

  -- SQLite's json_each (the elements of a JSON array, as JSON text) and json_extract ('$.key' or '$[n]', as text)
  CREATE FUNCTION json_each(doc TEXT) RETURNS TABLE (value TEXT) LANGUAGE sql IMMUTABLE AS $$
    SELECT e::text FROM jsonb_array_elements(doc::jsonb) AS e
  $$;
  CREATE FUNCTION json_extract(doc TEXT, path TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
      WHEN path ~ '^[$][[][0-9]+[]]$' THEN (doc::jsonb) ->> (substring(path FROM 3 FOR length(path) - 3))::int
      WHEN path LIKE '$.%' THEN (doc::jsonb) #>> string_to_array(substring(path FROM 3), '.')
    END
  $$;
  `,
  // 2: live debugging (SQLite migration 5): debuggers attached to a run or an agent (with a lease), the stops an
  // agent asks at each boundary and their answers, the edits applied, and the edit a ledger record ran with
  `
  CREATE TABLE live_attachments (
    attach_id TEXT PRIMARY KEY,
    run_id TEXT,
    agent_id TEXT,
    client TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    lease_until DOUBLE PRECISION NOT NULL,
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
    asked_at DOUBLE PRECISION NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    edits_json TEXT,
    answered_at DOUBLE PRECISION
  );
  CREATE INDEX live_stops_by_attach ON live_stops (attach_id, state);
  CREATE INDEX live_stops_by_run ON live_stops (run_id);

  CREATE TABLE live_edits (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    stop_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    boundary TEXT NOT NULL,
    tool_call_id TEXT,
    edits_json TEXT NOT NULL,
    applied_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run_id, seq)
  );

  ALTER TABLE tool_calls ADD COLUMN live_edit_json TEXT;
  `,
  // 3 (SQLite migration 6): content hashes are their 16 bytes (bytea), not 32 hex characters, in
  // blobs, list nodes and every column that refers to a blob; checkpoints keyed by (run_id, seq), checkpoint_id a
  // unique index; SQLite's unhex (hex text to bytes, NULL when it is not hex) for garbage collection
  `
  ALTER TABLE blobs ALTER COLUMN hash TYPE BYTEA USING decode(hash, 'hex');
  ALTER TABLE list_nodes ALTER COLUMN item TYPE BYTEA USING decode(item, 'hex');
  ALTER TABLE checkpoints
    ALTER COLUMN system_prompt_hash TYPE BYTEA USING decode(system_prompt_hash, 'hex'),
    ALTER COLUMN context_hash TYPE BYTEA USING decode(context_hash, 'hex');
  ALTER TABLE checkpoints DROP CONSTRAINT checkpoints_run_id_seq_key;
  ALTER TABLE checkpoints DROP CONSTRAINT checkpoints_pkey;
  ALTER TABLE checkpoints ADD PRIMARY KEY (run_id, seq);
  ALTER TABLE checkpoints ADD CONSTRAINT checkpoints_checkpoint_id_key UNIQUE (checkpoint_id);
  ALTER TABLE tool_calls
    ALTER COLUMN args_ref TYPE BYTEA USING decode(args_ref, 'hex'),
    ALTER COLUMN result_ref TYPE BYTEA USING decode(result_ref, 'hex');
  CREATE FUNCTION unhex(doc TEXT) RETURNS BYTEA LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN doc ~ '^([0-9a-fA-F]{2})*$' THEN decode(doc, 'hex') END
  $$;
  `,
  // 4 (SQLite migration 7): a checkpoint names its run by runs.run_key (a sequence); checkpoint heads (system prompt, model, prompt version, context,
  // artifact refs) a row of checkpoint_heads referred to by number; checkpoint ids bytes (a UUID its 16, any other id
  // its UTF-8, with a 0xff after one of exactly 16 bytes: rowCodec.ts checkpointKey); the boundary a small number; a
  // usage of input and output tokens only [in,out]
  `
  CREATE TABLE checkpoint_heads (
    head_id BIGSERIAL PRIMARY KEY,
    system_prompt_hash BYTEA,
    model_json TEXT,
    prompt_version TEXT,
    context_hash BYTEA NOT NULL,
    artifact_refs_json TEXT
  );
  INSERT INTO checkpoint_heads (system_prompt_hash, model_json, prompt_version, context_hash, artifact_refs_json)
    SELECT DISTINCT system_prompt_hash, model_json, prompt_version, context_hash, artifact_refs_json FROM checkpoints;
  ALTER TABLE checkpoints ADD COLUMN head_id BIGINT;
  UPDATE checkpoints c SET head_id = h.head_id FROM checkpoint_heads h
   WHERE h.context_hash = c.context_hash AND h.system_prompt_hash IS NOT DISTINCT FROM c.system_prompt_hash
     AND h.model_json IS NOT DISTINCT FROM c.model_json AND h.prompt_version IS NOT DISTINCT FROM c.prompt_version
     AND h.artifact_refs_json IS NOT DISTINCT FROM c.artifact_refs_json;
  ALTER TABLE checkpoints ALTER COLUMN head_id SET NOT NULL;
  ALTER TABLE runs ADD COLUMN run_key BIGSERIAL;
  ALTER TABLE runs ADD CONSTRAINT runs_run_key_key UNIQUE (run_key);
  ALTER TABLE checkpoints ADD COLUMN run_key BIGINT;
  UPDATE checkpoints c SET run_key = r.run_key FROM runs r WHERE r.run_id = c.run_id;
  ALTER TABLE checkpoints ALTER COLUMN run_key SET NOT NULL;
  ALTER TABLE checkpoints DROP CONSTRAINT checkpoints_pkey;
  ALTER TABLE checkpoints DROP COLUMN run_id;
  ALTER TABLE checkpoints ADD PRIMARY KEY (run_key, seq);
  ALTER TABLE checkpoints ADD FOREIGN KEY (run_key) REFERENCES runs (run_key) ON DELETE CASCADE;
  ALTER TABLE checkpoints DROP COLUMN system_prompt_hash, DROP COLUMN model_json, DROP COLUMN prompt_version,
    DROP COLUMN context_hash, DROP COLUMN artifact_refs_json;
  ALTER TABLE checkpoints ALTER COLUMN checkpoint_id TYPE BYTEA USING (CASE
    WHEN checkpoint_id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
      THEN decode(replace(checkpoint_id, '-', ''), 'hex')
    WHEN octet_length(checkpoint_id) = 16 THEN convert_to(checkpoint_id, 'UTF8') || '\\xff'::bytea
    ELSE convert_to(checkpoint_id, 'UTF8') END);
  ALTER TABLE checkpoints ALTER COLUMN boundary TYPE SMALLINT USING (CASE boundary
    WHEN 'before_prompt_build' THEN 0 WHEN 'before_model_call' THEN 1 WHEN 'after_model_call' THEN 2
    WHEN 'before_tool_call' THEN 3 WHEN 'after_tool_call' THEN 4 WHEN 'agent_end' THEN 5 END);
  UPDATE checkpoints SET usage_json = '[' || (usage_json::jsonb ->> 'inputTokens') || ','
      || (usage_json::jsonb ->> 'outputTokens') || ']'
   WHERE usage_json IS NOT NULL AND CASE WHEN jsonb_typeof(usage_json::jsonb) = 'object'
     THEN (SELECT COUNT(*) FROM jsonb_object_keys(usage_json::jsonb)) = 2
       AND COALESCE(usage_json::jsonb ->> 'inputTokens', '') ~ '^-?[0-9]{1,15}$'
       AND COALESCE(usage_json::jsonb ->> 'outputTokens', '') ~ '^-?[0-9]{1,15}$'
     ELSE false END;
  `,
  // 5 (SQLite migration 8): the files a run changed, version by version (fileVersionTable.ts); texts are blobs
  `
  CREATE TABLE file_versions (
    run_key BIGINT NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    checkpoint_index INTEGER NOT NULL,
    path TEXT NOT NULL,
    content_hash BYTEA,
    PRIMARY KEY (run_key, seq)
  );
  CREATE INDEX file_versions_by_path ON file_versions (run_key, path, seq);
  `,
  // 6: no row every writer holds. The count of top-level runs was one meta row a trigger updated for every top-level
  // run inserted or deleted: a transaction that added one (a long push or import) held that row to its COMMIT, and
  // every other writer adding a top-level run (an agent's startRun) waited for it, then failed StoreLocked. The tree's
  // page counts them at read time instead (EngineTraits.rootRunsKept); SQLite, one writer, keeps its triggers.
  `
  DROP TRIGGER IF EXISTS runs_root_count ON runs;
  DROP FUNCTION IF EXISTS ocdb_count_root_runs();
  DELETE FROM meta WHERE key = 'root_runs';
  `,
  // 7 (SQLite migration 9): an imported run's files as its import rebuilt them (rebuiltFileTable.ts), by `kind`
  `
  ALTER TABLE file_versions ADD COLUMN kind SMALLINT NOT NULL DEFAULT 0,
    ADD COLUMN original_hash BYTEA, ADD COLUMN detail TEXT;
  `,
  // 8 (SQLite migration 10): how long a live debugger held a tool call before it ran (ToolCallRecord.heldMs)
  `
  ALTER TABLE tool_calls ADD COLUMN held_ms DOUBLE PRECISION;
  `,
  // 9 (SQLite migration 11): how long a live debugger held the agent at a stop other than before a tool
  // (Checkpoint.heldMs)
  `
  ALTER TABLE checkpoints ADD COLUMN held_ms DOUBLE PRECISION;
  `,
  // 10 (SQLite migration 12): how many times a run's recorded end was cut and written again (reopenRun), and the
  // calls by their place in the ledger: what a reader following a live run reads to read only what is new
  `
  ALTER TABLE runs ADD COLUMN rewrites INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX tool_calls_by_seq ON tool_calls (run_id, seq);
  `,
];

/** The newest schema version present in the database, 0 for an empty database. */
export function pgSchemaVersion(db: SqlDriver): number {
  const exists = db.prepare("SELECT to_regclass('schema_migrations') IS NOT NULL AS present").get();
  if (!exists?.present) return 0;
  return Number(db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get()?.v ?? 0);
}

/**
 * Brings the database to the newest schema in one transaction, under the store's migration lock (its key is the
 * store's, `storeKey`: stores in other schemas of the database migrate without waiting for this one).
 */
export function migratePg(db: SqlDriver & { readonly storeKey: number }): void {
  // read first without the lock: an up-to-date store (every open but the first) takes no lock at all
  const seen = pgSchemaVersion(db);
  if (seen > PG_MIGRATIONS.length) throw newerSchema(seen);
  if (seen === PG_MIGRATIONS.length) return;
  db.begin('write');
  try {
    db.prepare('SELECT pg_advisory_xact_lock(?, ?)').get(db.storeKey, MIGRATION_LOCK);
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    // re-read inside the lock: another process may have migrated meanwhile
    const now = pgSchemaVersion(db);
    if (now > PG_MIGRATIONS.length) throw newerSchema(now);
    for (let v = now; v < PG_MIGRATIONS.length; v++) {
      db.exec(PG_MIGRATIONS[v] as string);
      db.prepare('INSERT INTO schema_migrations (version) VALUES (?)').run(v + 1);
    }
    db.commit();
  } catch (e) {
    db.rollback();
    throw e;
  }
}

function newerSchema(version: number): Error {
  return new Error(
    `the store was written by a newer version of Agent Time Travel (schema ${version}, this one knows ${PG_MIGRATIONS.length}): upgrade the extension/CLI`,
  );
}

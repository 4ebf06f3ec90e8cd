/** The `checkpoints` table: writing a checkpoint (its lists and blobs through ContentStore) and reading it back whole. */
import {
  CheckpointSchema,
  MessageSchema,
  OcdbError,
  ToolCallRecordSchema,
  parseWith,
  type Checkpoint,
  type Message,
  type ToolCallRecord,
} from '../model';
import { hashKey, hashOf, hashOrUndefined } from './blobCodec';
import type { CheckpointShell } from './checkpointShell';
import { markValidated, wasValidated } from './immutableValues';
import { ItemCache } from './itemCache';
import { lazyList } from './lazyList';
import { storedItems } from './storedItems';
import {
  BOUNDARY_CODES,
  boundaryOf,
  checkpointIdOf,
  checkpointKey,
  compact,
  json,
  num,
  rowToCheckpointSummary,
  str,
  toJson,
  usageColumn,
  usageOf,
} from './rowCodec';
import type { CheckpointSummary, ListsFrom } from './runStore';
import type { SqlRow } from './sqlDriver';
import type { StoreContext } from './storeContext';

/** The ledger record fields a walk reads without the record's arguments and result (storedItems.ts itemFacts). */
const LEDGER_FACTS = new Set([
  'toolCallId',
  'toolName',
  'argsHash',
  'sideEffectLevel',
  'replayPolicy',
  'startedAt',
  'endedAt',
]);

const WHERE = 'checkpoint';
// an item this process's store validated as it read it (a copy from another store) is not validated again
const parseMessage = (raw: unknown, i: number) =>
  wasValidated(raw, 'message') ? raw : parseWith(MessageSchema, raw, WHERE, ['messages', i]);
const parseLedgerRecord = (raw: unknown, i: number) =>
  wasValidated(raw, 'record') ? raw : parseWith(ToolCallRecordSchema, raw, WHERE, ['toolLedgerSnapshot', i]);

/**
 * A checkpoint's row with its head (schema 7): what a run carries over from checkpoint to
 * checkpoint — system prompt, model, prompt version, runtime context, artifact refs — is a row of
 * `checkpoint_heads` that every checkpoint with the same head refers to by number, not five columns per checkpoint.
 */
const ROW = `SELECT c.*, r.run_id, h.system_prompt_hash, h.model_json, h.prompt_version, h.context_hash,
    h.artifact_refs_json
  FROM checkpoints c JOIN runs r ON r.run_key = c.run_key LEFT JOIN checkpoint_heads h ON h.head_id = c.head_id`;

/**
 * A run's number in checkpoint rows (schema 7: `runs.run_key`, not its id repeated in every row and index entry),
 * for a statement given the run's id.
 */
const RUN_KEY = '(SELECT run_key FROM runs WHERE run_id = ?)';

/** A run's checkpoint at an index (params: run id, seq); runReadAhead.ts answers it ahead for a batch. */
export const CHECKPOINT_AT = `${ROW} WHERE c.run_key = ${RUN_KEY} AND c.seq = ?`;
/** A run's checkpoints `seq` from..to (params: run id, from, to), as CHECKPOINT_AT answers each. */
export const CHECKPOINTS_BETWEEN = `${ROW} WHERE c.run_key = ${RUN_KEY} AND c.seq BETWEEN ? AND ? ORDER BY c.seq`;

const INSERT_HEAD = `INSERT INTO checkpoint_heads (system_prompt_hash, model_json, prompt_version, context_hash,
  artifact_refs_json) VALUES (?, ?, ?, ?, ?)`;
/** checkpoint_heads' id column: what an INSERT_HEAD answers as its lastInsertRowid. */
const HEAD_ID = 'head_id';

/** The head columns of a checkpoint, as its row of checkpoint_heads holds them. */
interface Head {
  systemPromptHash: string | null;
  modelJson: string | null;
  promptVersion: string | null;
  contextHash: string;
  artifactRefsJson: string | null;
}

/** The head a run's last checkpoint written here has, and where: the next one with the same head reuses it. */
interface HeadMemo {
  key: string;
  id: number;
  seq: number;
}

const headKey = (h: Head): string =>
  JSON.stringify([h.systemPromptHash, h.modelJson, h.promptVersion, h.contextHash, h.artifactRefsJson]);

const headOfRow = (row: SqlRow): Head => ({
  systemPromptHash: hashOrUndefined(row.system_prompt_hash) ?? null,
  modelJson: str(row.model_json) ?? null,
  promptVersion: str(row.prompt_version) ?? null,
  contextHash: hashOf(row.context_hash),
  artifactRefsJson: str(row.artifact_refs_json) ?? null,
});

export class CheckpointTable {
  constructor(private readonly ctx: StoreContext) {}

  /** The `checkpoint_id` cell of an id (see rowCodec checkpointKey). */
  key(checkpointId: string): string | Buffer {
    return checkpointKey(checkpointId, this.ctx.content.bytesOnly);
  }

  /**
   * The head row a checkpoint at `index` of its run refers to: the run's previous checkpoint's when it is the same
   * (known without a read when this process wrote that checkpoint), a new row otherwise.
   */
  private headId(runId: string, index: number, head: Head): number {
    const memoKey = `h:${runId}`;
    const key = headKey(head);
    const memo = this.ctx.content.rowMemo<HeadMemo>(memoKey);
    let id: number | undefined;
    if (memo && memo.seq === index - 1) {
      if (memo.key === key) id = memo.id;
    } else if (index > 0) {
      // the run's last checkpoint was written elsewhere (another process, a resumed or loaded run): read its head
      const prev = this.ctx.sql(`${ROW} WHERE c.run_key = ${RUN_KEY} AND c.seq = ?`).get(runId, index - 1);
      if (prev && prev.head_id !== null && headKey(headOfRow(prev)) === key) id = Number(prev.head_id);
    }
    id ??= Number(
      this.ctx
        .sql(INSERT_HEAD, 'none', HEAD_ID)
        .run(
          head.systemPromptHash === null ? null : hashKey(head.systemPromptHash),
          head.modelJson,
          head.promptVersion,
          hashKey(head.contextHash),
          head.artifactRefsJson,
        ).lastInsertRowid,
    );
    this.ctx.content.setRowMemo(memoKey, { key, id, seq: index } satisfies HeadMemo);
    return id;
  }

  /**
   * Gives checkpoints `from` … `to - 1` of a run the runtime context `contextHash` (their other head columns
   * kept): a continued run whose kept part reads its context anew.
   */
  setContext(runId: string, from: number, to: number, contextHash: string): void {
    const heads = this.ctx
      .sql(
        `SELECT DISTINCT h.* FROM checkpoints c JOIN checkpoint_heads h ON h.head_id = c.head_id
          WHERE c.run_key = ${RUN_KEY} AND c.seq >= ? AND c.seq < ?`,
      )
      .all(runId, from, to);
    for (const old of heads) {
      const id = this.ctx
        .sql(INSERT_HEAD, 'none', HEAD_ID)
        .run(
          old.system_prompt_hash ?? null,
          old.model_json ?? null,
          old.prompt_version ?? null,
          hashKey(contextHash),
          old.artifact_refs_json ?? null,
        ).lastInsertRowid;
      this.ctx
        .sql(`UPDATE checkpoints SET head_id = ? WHERE run_key = ${RUN_KEY} AND seq >= ? AND seq < ? AND head_id = ?`)
        .run(Number(id), runId, from, to, Number(old.head_id));
    }
    this.ctx.content.forgetRowMemo(`h:${runId}`);
  }

  /** The run of checkpoint `checkpointId`, undefined when the store has none. */
  runOf(checkpointId: string): string | undefined {
    const row = this.ctx
      .sql('SELECT r.run_id FROM checkpoints c JOIN runs r ON r.run_key = c.run_key WHERE c.checkpoint_id = ?')
      .get(this.key(checkpointId));
    return row ? String(row.run_id) : undefined;
  }

  /** The checkpoints of a run from index `from` on: their ids, boundaries and tool call ids (a cut of the run). */
  from(runId: string, from: number): { checkpointId: string; boundary: unknown; toolCallId: string | null }[] {
    return this.ctx
      .sql(`SELECT checkpoint_id, boundary, tool_call_id FROM checkpoints WHERE run_key = ${RUN_KEY} AND seq >= ?`)
      .all(runId, from)
      .map((r) => ({
        checkpointId: checkpointIdOf(r.checkpoint_id),
        boundary: boundaryOf(r.boundary),
        toolCallId: str(r.tool_call_id) ?? null,
      }));
  }

  /** The usages of a run's checkpoints that have one. */
  usages(runId: string): unknown[] {
    return this.ctx
      .sql(`SELECT usage_json FROM checkpoints WHERE run_key = ${RUN_KEY} AND usage_json IS NOT NULL`)
      .all(runId)
      .map((r) => usageOf(r.usage_json));
  }

  /**
   * Inserts a checkpoint at the end of its run (inside the caller's
   * transaction). A `Checkpoint` is taken as validated; a `CheckpointShell`
   * gets its new list items validated here. `runRow`: the run's row as read in this transaction. `idChecked`: the
   * caller found the id free (a copy looks a batch's ids up at once).
   */
  insert(
    cp: Checkpoint | CheckpointShell,
    validateItems = false,
    listsFrom?: ListsFrom,
    runRow?: SqlRow,
    idChecked = false,
  ): CheckpointSummary {
    const key = this.key(cp.checkpointId);
    // SQLite: the unique index refuses a used id at the INSERT below (no read first); PostgreSQL: read first
    if (!this.ctx.uniqueErrorKeepsTransaction && !idChecked) this.assertNewId(cp.checkpointId);
    // the caller's row of the run when it has just read it in this transaction (appendCheckpoint): not read twice
    const run = runRow ?? this.ctx.requireRunRow(cp.runId);
    const index = Number(run.checkpoint_count);
    if (listsFrom) this.adoptLists(cp.runId, listsFrom);
    const messagesNode = this.ctx.content.putList(
      cp.messages,
      `m:${cp.runId}`,
      validateItems ? parseMessage : undefined,
    );
    const ledgerNode = this.ctx.content.putList(
      cp.toolLedgerSnapshot,
      `l:${cp.runId}`,
      validateItems ? parseLedgerRecord : undefined,
    );
    const contextHash = this.ctx.content.putValueMemo(cp.runtimeContext, `c:${cp.runId}`);
    const promptHash =
      cp.systemPrompt === undefined ? null : this.ctx.content.putValueMemo(cp.systemPrompt, `p:${cp.runId}`);
    const headId = this.headId(cp.runId, index, {
      systemPromptHash: promptHash,
      modelJson: toJson(cp.model),
      promptVersion: cp.promptVersion ?? null,
      contextHash,
      artifactRefsJson: toJson(cp.artifactRefs),
    });
    const usage = usageColumn(cp.usage);
    const row = this.ctx.sql(
      `INSERT INTO checkpoints (checkpoint_id, run_key, seq, boundary, step_index, messages_node, message_count,
         head_id, tool_call_id, ledger_node, ledger_count, finish_reason, usage_json, created_at, held_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    try {
      row.run(
        key,
        Number(run.run_key),
        index,
        BOUNDARY_CODES[cp.boundary],
        cp.stepIndex,
        messagesNode,
        cp.messages.length,
        headId,
        cp.toolCallId ?? null,
        ledgerNode,
        cp.toolLedgerSnapshot.length,
        cp.finishReason ?? null,
        usage,
        cp.createdAt,
        cp.heldMs ?? null,
      );
    } catch (e) {
      // the failed INSERT alone is undone: the id's owner is read for the message (the caller's transaction rolls back)
      if (this.ctx.uniqueErrorKeepsTransaction) this.assertNewId(cp.checkpointId);
      throw e;
    }
    const usageIn = cp.usage && !cp.usage.captured ? cp.usage.inputTokens : 0;
    const usageOut = cp.usage && !cp.usage.captured ? cp.usage.outputTokens : 0;
    this.ctx.countRun(cp.runId, {
      checkpoints: 1,
      step: cp.stepIndex,
      inputTokens: usageIn,
      outputTokens: usageOut,
      heartbeatAt: Date.now(),
      checkpointAt: cp.createdAt,
    });
    this.ctx.counted(cp.runId, run, 'checkpoint_count');
    // The summary rowToCheckpointSummary reads back, made from what was just written (validated above, or by the
    // caller: AppendOptions.validated) without parsing it again; usage a copy as read back (parsing it was a share of an import's writes).
    // (its keys in rowToCheckpointSummary's order: a summary is sent as JSON over HTTP)
    return {
      checkpointId: cp.checkpointId,
      runId: cp.runId,
      index,
      boundary: cp.boundary,
      stepIndex: cp.stepIndex,
      ...(cp.toolCallId !== undefined ? { toolCallId: cp.toolCallId } : {}),
      ...(cp.finishReason !== undefined ? { finishReason: cp.finishReason } : {}),
      ...(cp.usage !== undefined ? { usage: json(toJson(cp.usage)) as CheckpointSummary['usage'] } : {}),
      messageCount: cp.messages.length,
      ...(cp.promptVersion !== undefined ? { promptVersion: cp.promptVersion } : {}),
      createdAt: cp.createdAt,
      ...(cp.heldMs !== undefined ? { heldMs: cp.heldMs } : {}),
    };
  }

  /** InvalidInput when `checkpointId` is already a checkpoint's id (of any run: ids are unique in a store). */
  private assertNewId(checkpointId: string): void {
    const existing = this.ctx
      .sql('SELECT r.run_id FROM checkpoints c JOIN runs r ON r.run_key = c.run_key WHERE c.checkpoint_id = ?')
      .get(this.key(checkpointId));
    if (existing) {
      throw new OcdbError(
        'InvalidInput',
        `checkpointId ${checkpointId} is already used (run ${String(existing.run_id)}); checkpoint ids are unique in a store.`,
        { path: 'checkpointId', checkpointId },
      );
    }
  }

  /** Makes the run's next lists continue those of checkpoint `from.checkpointId` (a fork's first checkpoint). */
  private adoptLists(runId: string, from: ListsFrom): void {
    const row = this.ctx
      .sql('SELECT messages_node, message_count, ledger_node, ledger_count FROM checkpoints WHERE checkpoint_id = ?')
      .get(this.key(from.checkpointId));
    if (!row) return;
    const messageCount = from.messageCount ?? from.messages.length;
    if (Number(row.message_count) === messageCount) {
      this.ctx.content.seedList(`m:${runId}`, from.messages, Number(row.messages_node), messageCount);
    }
    if (from.ledger && Number(row.ledger_count) === from.ledger.length) {
      this.ctx.content.seedList(`l:${runId}`, from.ledger, Number(row.ledger_node));
    }
  }

  /** How many leading messages checkpoints `a` and `b` share (the same items), at the cost of those they do not. */
  sharedMessages(a: string, b: string): number {
    const rowOf = (id: string) => {
      const row = this.ctx
        .sql('SELECT messages_node, message_count FROM checkpoints WHERE checkpoint_id = ?')
        .get(this.key(id));
      if (!row)
        throw new OcdbError('CheckpointNotFound', `No checkpoint ${id} in ${this.ctx.path}.`, { checkpointId: id });
      return row;
    };
    const ra = rowOf(a);
    const rb = rowOf(b);
    return this.ctx.content.commonPrefix(
      Number(ra.messages_node),
      Number(ra.message_count),
      Number(rb.messages_node),
      Number(rb.message_count),
    );
  }

  /** before_tool_call checkpoints per tool name after index `after` of a run (counted in SQL, nothing loaded). */
  toolCallsAfter(runId: string, after: number): Map<string, number> {
    this.ctx.requireRunRow(runId);
    const rows = this.ctx
      .sql(
        `SELECT t.tool_name AS name, COUNT(*) AS n
           FROM checkpoints c JOIN tool_calls t ON t.run_id = ? AND t.tool_call_id = c.tool_call_id
          WHERE c.run_key = ${RUN_KEY} AND c.seq > ? AND c.boundary = ${BOUNDARY_CODES.before_tool_call}
          GROUP BY t.tool_name`,
      )
      .all(runId, runId, after);
    return new Map(rows.map((r) => [String(r.name), Number(r.n)]));
  }

  /** One checkpoint's summary row (its index in the run included). */
  summary(checkpointId: string): CheckpointSummary {
    const row = this.ctx
      .sql(
        `SELECT c.checkpoint_id, r.run_id, c.seq, c.boundary, c.step_index, c.tool_call_id, c.finish_reason, c.usage_json,
              c.message_count, h.prompt_version, c.created_at, c.held_ms, t.tool_name
         FROM checkpoints c JOIN runs r ON r.run_key = c.run_key LEFT JOIN checkpoint_heads h ON h.head_id = c.head_id
         LEFT JOIN tool_calls t ON t.run_id = r.run_id AND t.tool_call_id = c.tool_call_id
        WHERE c.checkpoint_id = ?`,
      )
      .get(this.key(checkpointId));
    if (!row) {
      throw new OcdbError('CheckpointNotFound', `No checkpoint ${checkpointId} in ${this.ctx.path}.`, { checkpointId });
    }
    return rowToCheckpointSummary(row);
  }

  list(runId: string, range: { offset?: number; limit?: number } = {}): CheckpointSummary[] {
    this.ctx.requireRunRow(runId);
    const offset = Math.max(0, range.offset ?? 0);
    const limit = range.limit === undefined ? -1 : Math.max(0, range.limit);
    return this.ctx
      .sql(
        `SELECT c.checkpoint_id, r.run_id, c.seq, c.boundary, c.step_index, c.tool_call_id, c.finish_reason, c.usage_json,
              c.message_count, h.prompt_version, c.created_at, c.held_ms, t.tool_name
         FROM checkpoints c JOIN runs r ON r.run_key = c.run_key LEFT JOIN checkpoint_heads h ON h.head_id = c.head_id
         LEFT JOIN tool_calls t ON t.run_id = r.run_id AND t.tool_call_id = c.tool_call_id
        WHERE c.run_key = ${RUN_KEY} ORDER BY c.seq LIMIT ? OFFSET ?`,
      )
      .all(runId, limit, offset)
      .map((r) => rowToCheckpointSummary(r));
  }

  get(checkpointId: string): Checkpoint {
    const row = this.ctx.sql(`${ROW} WHERE c.checkpoint_id = ?`).get(this.key(checkpointId));
    if (!row) {
      throw new OcdbError('CheckpointNotFound', `No checkpoint ${checkpointId} in ${this.ctx.path}.`, { checkpointId });
    }
    return this.toCheckpoint(row);
  }

  getAt(runId: string, index: number): Checkpoint {
    const row = this.ctx.sql(CHECKPOINT_AT).get(runId, index);
    if (!row) {
      this.ctx.requireRunRow(runId);
      throw new OcdbError('CheckpointNotFound', `Run ${runId} has no checkpoint at index ${index}.`, { runId, index });
    }
    return this.toCheckpoint(row);
  }

  /**
   * The last message of a checkpoint's conversation, read alone (one list node, one blob): transcripts of
   * long runs list thousands of checkpoints and must not rebuild every conversation.
   */
  lastMessage(checkpointId: string): Message | undefined {
    const row = this.ctx
      .sql('SELECT messages_node FROM checkpoints WHERE checkpoint_id = ?')
      .get(this.key(checkpointId));
    if (!row) {
      throw new OcdbError('CheckpointNotFound', `No checkpoint ${checkpointId} in ${this.ctx.path}.`, { checkpointId });
    }
    const node = this.ctx.sql('SELECT item FROM list_nodes WHERE id = ?').get(Number(row.messages_node));
    if (!node) return undefined; // the empty list
    return parseWith(MessageSchema, this.ctx.content.getValue(hashOf(node.item)), `store checkpoint ${checkpointId}`);
  }

  /** Rebuilds a whole Checkpoint from its row and blobs, validating what comes back from disk. */
  private toCheckpoint(row: SqlRow): Checkpoint {
    const where = `store checkpoint ${checkpointIdOf(row.checkpoint_id)}`;
    const cp = compact({
      checkpointId: checkpointIdOf(row.checkpoint_id),
      runId: String(row.run_id),
      boundary: boundaryOf(row.boundary),
      stepIndex: Number(row.step_index),
      messages: this.ctx.content.getList(Number(row.messages_node)),
      systemPrompt:
        row.system_prompt_hash === null ? undefined : this.ctx.content.getValue(hashOf(row.system_prompt_hash)),
      model: json(row.model_json),
      promptVersion: str(row.prompt_version),
      runtimeContext: this.ctx.content.getValue(hashOf(row.context_hash)),
      toolCallId: str(row.tool_call_id),
      toolLedgerSnapshot: this.ctx.content.getList(Number(row.ledger_node)),
      artifactRefs: json(row.artifact_refs_json),
      finishReason: str(row.finish_reason),
      usage: usageOf(row.usage_json),
      createdAt: Number(row.created_at),
      heldMs: num(row.held_ms),
    });
    return parseWith(CheckpointSchema, cp, where);
  }

  /**
   * A checkpoint whose message list and ledger snapshot are read item by item on access (see lazyList), each
   * item validated when it is first read; the rest of the row is read and validated now. What a debugger step
   * costs is then what Variables, hover or an expression touch, not the conversation's length.
   */
  view(checkpointId: string): Checkpoint {
    const row = this.ctx.sql(`${ROW} WHERE c.checkpoint_id = ?`).get(this.key(checkpointId));
    if (!row) {
      throw new OcdbError('CheckpointNotFound', `No checkpoint ${checkpointId} in ${this.ctx.path}.`, { checkpointId });
    }
    const { cp, messageAt, ledgerAt, where } = this.head(row);
    cp.messages = lazyList(Number(row.message_count), (i) => this.item('messages', messageAt(i) as string, where, i));
    cp.toolLedgerSnapshot = lazyList(Number(row.ledger_count), (i) =>
      this.item('toolLedgerSnapshot', ledgerAt(i) as string, where, i),
    );
    return cp;
  }

  /**
   * A checkpoint whose messages and ledger records are stored items (storedItems.ts): plain arrays of identities,
   * each item read, validated and deep-frozen at its first use. The state a writer continues (a fork's source
   * checkpoint, a resumed run's last) without reading the conversation it carries over.
   */
  state(checkpointId: string): Checkpoint {
    const row = this.ctx.sql(`${ROW} WHERE c.checkpoint_id = ?`).get(this.key(checkpointId));
    if (!row) {
      throw new OcdbError('CheckpointNotFound', `No checkpoint ${checkpointId} in ${this.ctx.path}.`, { checkpointId });
    }
    const { cp, messageAt, ledgerAt, where } = this.head(row);
    const content = this.ctx.content;
    cp.messages = storedItems<Message>(Number(row.message_count), {
      load: (i) => this.item('messages', messageAt(i) as string, where, i),
    });
    cp.toolLedgerSnapshot = storedItems<ToolCallRecord>(Number(row.ledger_count), {
      load: (i) => this.item('toolLedgerSnapshot', ledgerAt(i) as string, where, i),
      facts: (i) => {
        const hash = ledgerAt(i) as string;
        const inline = content.getInline(hash);
        // Facts are small fields; should one of them be stored apart (an id of 512 characters), read it all.
        if (inline.omitted.some((k) => LEDGER_FACTS.has(k))) {
          return this.item('toolLedgerSnapshot', hash, where, i) as unknown as Record<string, unknown>;
        }
        return inline.value;
      },
    });
    return cp;
  }

  /**
   * Messages and ledger records as the views and states read them: validated and deep-frozen once per content
   * (itemCache.ts). A step of the debugger shows the same page of items as the step before it.
   */
  private readonly items = new ItemCache();

  /** Item `i` of a checkpoint's messages or ledger snapshot, of content `hash`: validated and frozen. */
  item(list: 'messages', hash: string, where: string, i: number): Message;
  item(list: 'toolLedgerSnapshot', hash: string, where: string, i: number): ToolCallRecord;
  item(list: 'messages' | 'toolLedgerSnapshot', hash: string, where: string, i: number): object {
    const schema = list === 'messages' ? MessageSchema : ToolCallRecordSchema;
    return this.items.get(`${list === 'messages' ? 'm' : 'l'}${hash}`, () =>
      markValidated(
        parseWith(schema, this.ctx.content.getValue(hash), where, [list, i]),
        list === 'messages' ? 'message' : 'record',
      ),
    );
  }

  /** A checkpoint row read and validated but for its two lists, and where their items are. */
  head(row: SqlRow): {
    cp: Checkpoint;
    messageAt: (i: number) => string | undefined;
    ledgerAt: (i: number) => string | undefined;
    where: string;
  } {
    const where = `store checkpoint ${checkpointIdOf(row.checkpoint_id)}`;
    const content = this.ctx.content;
    const head = compact({
      checkpointId: checkpointIdOf(row.checkpoint_id),
      runId: String(row.run_id),
      boundary: boundaryOf(row.boundary),
      stepIndex: Number(row.step_index),
      messages: [],
      systemPrompt: row.system_prompt_hash === null ? undefined : content.getValue(hashOf(row.system_prompt_hash)),
      model: json(row.model_json),
      promptVersion: str(row.prompt_version),
      runtimeContext: content.getValue(hashOf(row.context_hash)),
      toolCallId: str(row.tool_call_id),
      toolLedgerSnapshot: [],
      artifactRefs: json(row.artifact_refs_json),
      finishReason: str(row.finish_reason),
      usage: usageOf(row.usage_json),
      createdAt: Number(row.created_at),
      heldMs: num(row.held_ms),
    });
    return {
      cp: parseWith(CheckpointSchema, head, where),
      messageAt: content.listReader(Number(row.messages_node), Number(row.message_count)),
      ledgerAt: content.listReader(Number(row.ledger_node), Number(row.ledger_count)),
      where,
    };
  }

  /** Every checkpoint of a run, whole, in order. */
  allOf(runId: string): Checkpoint[] {
    return this.ctx
      .sql(`${ROW} WHERE c.run_key = ${RUN_KEY} ORDER BY c.seq`)
      .all(runId)
      .map((r) => this.toCheckpoint(r));
  }
}

/**
 * What differs between the two engines the store runs on, in one place: the store's classes ask these flags, never
 * a driver's name or a statement's text. SQL text differences are pgDialect.ts's (one translation); engine-specific
 * DDL is the migrations' (migrations.ts, pgMigrations.ts); the rest is here.
 */
import { INTEGRITY_CHECK, NODE_ID_BLOCK } from './pgDialect';
import type { DriverName } from './sqlDriver';

export interface EngineTraits {
  /** The engine: SQLite (a file, through node:sqlite or better-sqlite3) or PostgreSQL (a server). */
  readonly engine: 'sqlite' | 'postgres';
  /**
   * A statement that breaks a unique constraint fails alone and the transaction goes on (SQLite): a write may then
   * let the constraint find a used id and read its owner afterwards. False on PostgreSQL, whose transaction is
   * aborted by the failed statement (and whose writes are sent later, in a batch): it reads first.
   */
  readonly uniqueErrorKeepsTransaction: boolean;
  /**
   * Group commit (OpenStoreOptions.groupCommit) is possible: one writer holds the file's lock for a turn's writes
   * (SQLite). PostgreSQL's writers run at once and each write stays its own transaction.
   */
  readonly groupCommit: boolean;
  /**
   * A column holds one type in every row (PostgreSQL): blob data is then always bytes (compressed), where SQLite's
   * dynamically typed cell holds short texts as TEXT.
   */
  readonly bytesOnly: boolean;
  /** A WAL file beside the store that can be folded into it (SQLite: checkpointWal). */
  readonly walFile: boolean;
  /**
   * How a live view learns of a commit: the engine's own notification (PostgreSQL LISTEN/NOTIFY, the driver's
   * onNotify), or a watch of the store file's folder (SQLite: every commit writes the -wal file).
   */
  readonly changeWake: 'notify' | 'folderWatch';
  /**
   * The statement that checks the store (one row a finding; 'ok' when sound): SQLite's own page check, or on
   * PostgreSQL, whose server keeps its pages sound, the store's invariant that every reference resolves.
   */
  readonly integrityCheck: string;
  /**
   * The count of top-level runs is kept in `meta` by triggers (SQLite: its one writer holds the whole file anyway).
   * False on PostgreSQL, where writers run at once and one shared counter row would be held by every transaction
   * that adds a top-level run until it commits (a long push or import would stall every agent's startRun): the
   * tree's page counts them at read time (an index-only count over the partial index of top-level runs).
   */
  readonly rootRunsKept: boolean;
  /**
   * A list node's id can be taken from its sequence ahead, in blocks (PostgreSQL: `nodeIdBlock`): a node this
   * transaction adds under a node it added itself (nobody else can see that one yet) is then inserted without
   * waiting for its id, so a long list costs no round trip a node. SQLite answers its rowid at once: none needed.
   */
  readonly nodeIdBlock?: string;
}

const SQLITE: EngineTraits = {
  engine: 'sqlite',
  uniqueErrorKeepsTransaction: true,
  groupCommit: true,
  bytesOnly: false,
  walFile: true,
  changeWake: 'folderWatch',
  integrityCheck: 'PRAGMA integrity_check',
  rootRunsKept: true,
};

const POSTGRES: EngineTraits = {
  engine: 'postgres',
  uniqueErrorKeepsTransaction: false,
  groupCommit: false,
  bytesOnly: true,
  walFile: false,
  changeWake: 'notify',
  integrityCheck: INTEGRITY_CHECK,
  rootRunsKept: false,
  nodeIdBlock: NODE_ID_BLOCK,
};

/** The traits of the engine a driver reaches. */
export function engineTraits(driver: DriverName): EngineTraits {
  return driver === 'pg' ? POSTGRES : SQLITE;
}

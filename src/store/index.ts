/** The run store: the RunStore contract, its SQL implementation (SQLite or PostgreSQL) and where the store file lives. */
export * from './runStore';
export { openRunStore, type OpenStoreOptions, type GroupCommitOptions } from './openRunStore';
export { SqlRunStore } from './sqlRunStore';
export {
  resolveStorePath,
  DEFAULT_STORE_RELATIVE,
  isStoreUrl,
  isPostgresLocation,
  withStorePassword,
  storePasswordKey,
  storeLocalFolder,
  parseStoreUrl,
} from './storePath';
export { HEARTBEAT_STALE_MS, pidAlive } from './liveness';
export { ensureRealFolder, isLocalFile, readLocalFile, writeLocalFile, type LocalWriteOptions } from './localFiles';
export type { DriverName } from './sqlDriver';
export { lazyList } from './lazyList';
export { isStoredItem, isUnread, itemFacts } from './storedItems';
export { extendList, extensionOf, isSealedList, sealList, updateInPlace } from './listIdentity';
export { runExportChunks, writeRunExport } from './runExport';
export { READ_AHEAD_BATCH } from './runReadAhead';
export { artifactSize, findRunArtifact, runArtifacts, type ArtifactLookup } from './artifactLookup';
export { MAX_FILE_VERSION_CHARS } from './fileVersionTable';
export { copyFileRows } from './fileRowCopy';

/**
 * agent-time-travel/recorder — the SDK an agent imports to record its runs
 * (checkpoints, model calls, tool calls) into an Agent Time Travel store.
 */
export { LIVE_WARNING_CODE, Recorder, openRecorder, type RecorderOptions } from './recorder';
export { RunRecorder, serializeError, type ModelCallResult, type ModelRequest } from './runRecorder';
export { forkRequestFromEnv, type ForkModeOptions } from '../fork/agentProgramMode';
export {
  createToolJournal,
  type ToolJournal,
  type ToolJournalStart,
  type ToolJournalFinish,
  type ToolJournalOptions,
} from './toolJournal';
export type { StartRunInput, CheckpointInput, ToolOptions, ModelResponse, EndRunInput, ArtifactInput } from './inputs';
export {
  OcdbError,
  argsHash,
  canonicalJson,
  defaultReplayPolicy,
  MAX_ARTIFACT_BYTES,
  type ArtifactRef,
  type Checkpoint,
  type CheckpointBoundary,
  type DebugRun,
  type ForkConfig,
  type LiveEdits,
  type LiveEditRecord,
  type Message,
  type ModelConfig,
  type ReplayPolicy,
  type RuntimeContextSnapshot,
  type SideEffectLevel,
  type ToolCallRecord,
  replayTurnsOf,
  type ReplayTurn,
  type ReplayAgentEvent,
} from '../model';
export {
  recordAcpStream,
  recordApproval,
  type AcpSessionUpdate,
  type AcpStreamOptions,
  type AcpRunEvent,
} from './acpStream';

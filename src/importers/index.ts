/**
 * The importers: real trace formats (Claude Code / Agent SDK transcripts,
 * Codex CLI rollouts, Gemini CLI chats, OpenAI chat logs, Responses API
 * objects and Agents SDK traces, OpenTelemetry OTLP JSON of several
 * producers; the registry is formats.ts) into runs of the store. Used by `ocdb import` and the extension's Import
 * Run… command. Never imports vscode.
 */
export { importPath, listTraceFiles } from './importPath';
export { importFile } from './importFile';
export { sniffFormat } from './sniff';
export { FORMAT_SPECS } from './formats';
export { DEFAULT_SIDE_EFFECTS, loadSideEffectTable, sideEffectOf, type SideEffectTable } from './sideEffects';
export * from './types';
export * from './sessions';

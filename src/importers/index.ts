/**
 * The importers: real trace formats (Claude Code / Agent SDK transcripts,
 * OpenAI chat logs and Vercel AI SDK messages, OpenTelemetry GenAI OTLP JSON)
 * into runs of the store. Used by `ocdb import` and the extension's Import
 * Run… command. Never imports vscode.
 */
export { importPath, listTraceFiles } from './importPath';
export { importFile } from './importFile';
export { sniffFormat } from './sniff';
export { DEFAULT_SIDE_EFFECTS, loadSideEffectTable, sideEffectOf, type SideEffectTable } from './sideEffects';
export * from './types';

/** The data model: zod schemas and inferred types, canonical JSON, deep merge, policy resolution. Pure: no I/O. */
export * from './artifact';
export * from './canonicalJson';
export * from './checkpoint';
export * from './confirmation';
export * from './context';
export * from './deepMerge';
export * from './divergence';
export * from './errors';
export * from './fork';
export * from './messageParts';
export * from './parse';
export * from './policy';
export * from './replayTurn';
export * from './run';
export * from './toolCall';
export * from './redact';
export * from './names';

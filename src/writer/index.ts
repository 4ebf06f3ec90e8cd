/**
 * The write path of a recorded run: RunWriter over the store, the pure rules it applies (RunTimeline) and how
 * tool and run outcomes are stored (outcomes.ts). Everything that writes a run goes through here.
 */
export * from './outcomes';
export * from './runTimeline';
export * from './sealed';
export * from './runWriter';
export * from './liveGate';
export * from './newId';

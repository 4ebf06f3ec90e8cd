/** The outcome of one phase of `npm run test:vscode` (extension-host suite, UI flows, packaged .vsix). */
export interface TestOutcome {
  name: string;
  ok: boolean;
  error?: string;
  durationMs: number;
}

export interface PhaseOutcome {
  phase: string;
  results: TestOutcome[];
}

/** Prints one result line the way the whole runner does. */
export function printOutcome(phase: string, r: TestOutcome): void {
  const mark = r.ok ? 'ok  ' : 'FAIL';
  process.stdout.write(`${mark} [${phase}] ${r.name} (${(r.durationMs / 1000).toFixed(1)} s)\n`);
  if (!r.ok && r.error) process.stdout.write(`${r.error.replace(/^/gm, '     ')}\n`);
}

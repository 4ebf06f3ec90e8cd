import type { Browser } from 'playwright-core';
import type { PhaseOutcome } from './outcome';
export async function runUiPhase(_b: Browser, _w: string): Promise<PhaseOutcome> {
  throw new Error('not written yet');
}

import { assertHitsWithinTrials, assertProbability } from './validate.js';

/**
 * Calibrated hit rate: the posterior mean of a Beta(a, b) prior updated by
 * the record, (hits + a) / (n + a + b), with a = p0·s and b = (1 − p0)·s.
 * The prior mean is chance (p0) and s ("prior strength") is worth s trials,
 * so a short lucky streak cannot look like skill, a blank record is exactly
 * chance, and a long record speaks for itself.
 */
export function calibratedTrackRecord(
  hits: number,
  n: number,
  p0: number,
  priorStrength = 2,
): number {
  assertHitsWithinTrials(hits, n);
  assertProbability('p0', p0);
  if (!(priorStrength > 0) || !Number.isFinite(priorStrength)) {
    throw new RangeError(`priorStrength must be positive, got ${priorStrength}`);
  }
  const a = p0 * priorStrength;
  const b = (1 - p0) * priorStrength;
  return (hits + a) / (n + a + b);
}

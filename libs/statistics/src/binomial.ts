import { logChoose } from './log-gamma.js';
import { assertHitsWithinTrials, assertProbability } from './validate.js';

/**
 * Exact one-sided binomial p-value P(X ≥ hits | n, p0).
 *
 * The starting probability mass is computed in log space (lgamma) and the
 * tail is summed away from the mode with the ratio recurrence
 * P(X = j+1) = P(X = j) · (n − j)/(j + 1) · p0/(1 − p0). Summing away from the
 * mode means the first term is the largest: nothing overflows, and if that
 * term underflows the tail really is below 1e-308.
 * - hits above the mean: sum the upper tail directly;
 * - otherwise: 1 − P(X ≤ hits − 1), summing the lower tail downwards (the
 *   answer is then ≳ 0.5, so the subtraction loses nothing that matters).
 */
export function binomialTailP(hits: number, n: number, p0: number): number {
  assertHitsWithinTrials(hits, n);
  assertProbability('p0', p0);
  if (hits === 0) return 1;
  if (p0 === 0) return 0;
  if (p0 === 1) return 1;
  if (hits > n * p0) return upperTail(hits, n, p0);
  return Math.max(0, 1 - lowerTail(hits - 1, n, p0));
}

function logPmf(k: number, n: number, p0: number): number {
  return logChoose(n, k) + k * Math.log(p0) + (n - k) * Math.log1p(-p0);
}

/** P(X ≥ k) for k above the mode: terms decrease monotonically. */
function upperTail(k: number, n: number, p0: number): number {
  const ratio = p0 / (1 - p0);
  let term = Math.exp(logPmf(k, n, p0));
  let sum = term;
  for (let j = k; j < n && term > 0; j++) {
    term *= ((n - j) / (j + 1)) * ratio;
    const before = sum;
    sum += term;
    if (sum === before) break;
  }
  return Math.min(1, sum);
}

/** P(X ≤ k) for k below the mean: terms decrease monotonically going down. */
function lowerTail(k: number, n: number, p0: number): number {
  const ratio = (1 - p0) / p0;
  let term = Math.exp(logPmf(k, n, p0));
  let sum = term;
  for (let j = k; j > 0 && term > 0; j--) {
    term *= (j / (n - j + 1)) * ratio;
    const before = sum;
    sum += term;
    if (sum === before) break;
  }
  return Math.min(1, sum);
}

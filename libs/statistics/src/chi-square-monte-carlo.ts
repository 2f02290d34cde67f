import { checkedProbabilities, equalProbabilities, pearsonStatistic } from './chi-square.js';
import { mulberry32 } from './mulberry32.js';

/**
 * Monte-Carlo p-value of Pearson's X² for small samples, where the χ²
 * approximation is poor (`small_expected`). It draws `replicates` tables of
 * the same n from the null multinomial and counts those with X² at least
 * the observed one:
 *   p = (1 + #{X²* ≥ X²}) / (replicates + 1)
 * (R's chisq.test(simulate.p.value = TRUE); Davison & Hinkley 1997, §4.2).
 * That p-value is valid at any n — P(p ≤ α) ≤ α under the null — its only
 * error is Monte-Carlo noise, sd ≈ √(p(1−p)/replicates). The seed is fixed,
 * so the same counts always give the same p-value. Cost: O(replicates · n).
 */

export interface MonteCarloOptions {
  /** Simulated tables; the smallest reachable p-value is 1/(replicates + 1). */
  replicates?: number;
  /** Seed of the mulberry32 generator. */
  seed?: number;
}

export const DEFAULT_MONTE_CARLO_REPLICATES = 1_999;
const DEFAULT_SEED = 0x5eed_c412;
/** X²* within rounding of X² counts as a tie (R uses the same 64 ulp slack). */
const TIE_SLACK = 1 - 64 * Number.EPSILON;

export function chiSquareMonteCarloPValue(
  counts: readonly number[],
  probabilities: readonly number[] = equalProbabilities(counts.length),
  options: MonteCarloOptions = {},
): number {
  const p = checkedProbabilities(counts, probabilities);
  const replicates = options.replicates ?? DEFAULT_MONTE_CARLO_REPLICATES;
  if (!Number.isInteger(replicates) || replicates < 1) {
    throw new RangeError(`replicates must be an integer ≥ 1, got ${replicates}`);
  }
  const n = counts.reduce((s, c) => s + c, 0);
  if (n === 0) return 1;
  const expected = p.map((pi) => n * pi);
  const observed = pearsonStatistic(counts, expected) * TIE_SLACK;

  const cumulative = new Float64Array(p.length);
  p.reduce((s, pi, i) => (cumulative[i] = s + pi), 0);
  cumulative[p.length - 1] = 1; // the last cell takes whatever rounding leaves
  const random = mulberry32(options.seed ?? DEFAULT_SEED);
  const table = new Float64Array(p.length);
  let atLeastAsExtreme = 0;
  for (let r = 0; r < replicates; r++) {
    table.fill(0);
    for (let draw = 0; draw < n; draw++) table[cellOf(cumulative, random())] += 1;
    if (pearsonStatistic(table, expected) >= observed) atLeastAsExtreme++;
  }
  return (1 + atLeastAsExtreme) / (replicates + 1);
}

/** First cell whose cumulative probability exceeds u (binary search). */
function cellOf(cumulative: Float64Array, u: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid]! > u) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

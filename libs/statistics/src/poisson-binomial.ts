import { binomialTailP } from './binomial.js';
import { normalSf } from './normal.js';
import { assertCount, assertHitsWithinTrials, assertProbability } from './validate.js';

/** Trials that share one chance of a hit. */
export interface TrialGroup {
  /** Chance of a hit in each of these trials. */
  p: number;
  trials: number;
}

/** How the tail was computed. */
export type PoissonBinomialMethod = 'binomial' | 'exact' | 'refined_normal';

/**
 * Above this much work (trials × hits steps of the recurrence, a few
 * millisecond or two) the tail is approximated: the exact recurrence is O(n·hits)
 * and the record behind it holds up to 10,000 trials.
 */
export const POISSON_BINOMIAL_EXACT_WORK = 2_000_000;

/** Probability mass too small to matter to any p-value (and above the subnormal range). */
const NEGLIGIBLE = 1e-300;

/**
 * One-sided tail P(X ≥ hits) of a Poisson-binomial X: the number of hits in
 * independent trials, each with its own chance p_i — verified outcomes of
 * work whose chance baselines differ (a yes/no question at 1/3, a choice
 * among 8 at 1/8, a location at 1/16).
 * - every trial at one p: the exact binomial tail (`binomial.ts`), any n;
 * - else exactly, by the recurrence over trials of the distribution of the
 *   hits so far, with every count ≥ hits kept in one absorbing cell: the
 *   tail is summed from positive terms only, so a tiny p-value keeps its
 *   relative precision (O(n·hits), while at most POISSON_BINOMIAL_EXACT_WORK);
 * - beyond that, the refined normal approximation (Volkova 1996; Hong 2013):
 *   1 − G((hits − ½ − μ)/σ), G(x) = Φ(x) + γ(1 − x²)φ(x)/6 with the mean μ,
 *   the standard deviation σ and the skewness γ of X. Only large records
 *   reach it, where it is good to about 1e-4.
 */
export function poissonBinomialTail(
  hits: number,
  groups: readonly TrialGroup[],
): { pValue: number; method: PoissonBinomialMethod } {
  const n = validate(hits, groups);
  const used = groups.filter((g) => g.trials > 0);
  const distinct = new Set(used.map((g) => g.p));
  if (distinct.size <= 1) {
    return { pValue: binomialTailP(hits, n, used[0]?.p ?? 0), method: 'binomial' };
  }
  if (hits === 0) return { pValue: 1, method: 'exact' };
  if (n * hits <= POISSON_BINOMIAL_EXACT_WORK) {
    return { pValue: exactTail(hits, used), method: 'exact' };
  }
  return { pValue: refinedNormalTail(hits, used), method: 'refined_normal' };
}

/** P(X ≥ hits) of poissonBinomialTail, without the method. */
export function poissonBinomialTailP(hits: number, groups: readonly TrialGroup[]): number {
  return poissonBinomialTail(hits, groups).pValue;
}

function validate(hits: number, groups: readonly TrialGroup[]): number {
  let n = 0;
  for (const group of groups) {
    assertProbability('p', group.p);
    assertCount('trials', group.trials);
    n += group.trials;
  }
  assertHitsWithinTrials(hits, n);
  return n;
}

/**
 * The recurrence: cell j < hits holds P(j hits so far), the last cell
 * P(≥ hits so far); each trial moves p of every cell one up (the last cell
 * keeps what it has). Exported for the tests, which check the
 * approximation against it beyond the work limit.
 */
export function exactTail(hits: number, groups: readonly TrialGroup[]): number {
  if (hits === 0) return 1;
  const cells = new Float64Array(hits + 1);
  cells[0] = 1;
  // Cells below `low` hold less than NEGLIGIBLE and are dropped: they could add no more than
  // that to the tail, and subnormal numbers would slow every step down tenfold.
  let low = 0;
  let reach = 0;
  for (const { p, trials } of groups) {
    const q = 1 - p;
    for (let t = 0; t < trials; t++) {
      reach = Math.min(hits, reach + 1);
      cells[hits] = cells[hits]! + cells[hits - 1]! * p;
      for (let j = Math.min(reach, hits - 1); j > low; j--) {
        cells[j] = cells[j]! * q + cells[j - 1]! * p;
      }
      cells[low] = cells[low]! * q;
      while (low < hits - 1 && cells[low]! < NEGLIGIBLE) cells[low++] = 0;
    }
  }
  return Math.min(1, cells[hits]!);
}

function refinedNormalTail(hits: number, groups: readonly TrialGroup[]): number {
  let mean = 0;
  let variance = 0;
  let third = 0;
  for (const { p, trials } of groups) {
    mean += trials * p;
    variance += trials * p * (1 - p);
    third += trials * p * (1 - p) * (1 - 2 * p);
  }
  if (variance === 0) return hits <= mean ? 1 : 0;
  const sd = Math.sqrt(variance);
  const skew = third / (variance * sd);
  const x = (hits - 0.5 - mean) / sd;
  const density = Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
  const tail = normalSf(x) - (skew * (1 - x * x) * density) / 6;
  return Math.min(1, Math.max(0, tail));
}

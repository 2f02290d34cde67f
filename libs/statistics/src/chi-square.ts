import { regularizedGammaQ } from './incomplete-gamma.js';
import { assertCount } from './validate.js';

/**
 * Pearson's chi-square goodness-of-fit test: are counts over k cells (e.g.
 * 7 weekdays, 24 hours) compatible with given cell probabilities?
 *   X² = Σ (Oᵢ − Eᵢ)² / Eᵢ,  Eᵢ = n·pᵢ,  df = k − 1,
 * p-value P(χ²_df ≥ X²) — the large-sample approximation to X²'s null
 * distribution, which is poor when expected counts are small: then
 * `small_expected` is true and the caller should warn, or use the exact
 * Monte-Carlo p-value (chi-square-monte-carlo.ts).
 */

/** Expected counts below this flag the result (the usual "expected ≥ 5" rule). */
export const SMALL_EXPECTED_COUNT = 5;

/** Probabilities must sum to 1 within this, so passing counts by mistake fails. */
const PROBABILITY_SUM_TOLERANCE = 1e-6;

export interface ChiSquareTest {
  /** Pearson's X². */
  statistic: number;
  /** Degrees of freedom: cells − 1. */
  df: number;
  /** P(χ²_df ≥ statistic); 1 when there are no observations. */
  p_value: number;
  /** Expected count of each cell under the null, n·pᵢ, in input order. */
  expected: number[];
  /** Some expected count is below 5 (or there are no observations): the
   *  χ² approximation may be off and the p-value should be read with care. */
  small_expected: boolean;
}

/** P(χ²_df ≥ statistic) = Q(df/2, statistic/2), for any real df > 0. */
export function chiSquareSurvival(statistic: number, df: number): number {
  if (!(df > 0) || !Number.isFinite(df)) {
    throw new RangeError(`df must be finite and > 0, got ${df}`);
  }
  if (!(statistic >= 0)) throw new RangeError(`statistic must be ≥ 0, got ${statistic}`);
  return regularizedGammaQ(df / 2, statistic / 2);
}

/**
 * Goodness of fit against given cell probabilities (positive, summing to 1;
 * they are renormalised to remove rounding). No observations: X² = 0,
 * p-value 1 — no evidence either way — and `small_expected` is true.
 */
export function chiSquareGoodnessOfFit(
  counts: readonly number[],
  probabilities: readonly number[],
): ChiSquareTest {
  const p = checkedProbabilities(counts, probabilities);
  const n = counts.reduce((s, c) => s + c, 0);
  return pearsonTest(
    counts,
    p.map((pi) => n * pi),
  );
}

/** Goodness of fit against equal cell probabilities 1/k. */
export function chiSquareUniformity(counts: readonly number[]): ChiSquareTest {
  checkedProbabilities(counts, equalProbabilities(counts.length));
  const n = counts.reduce((s, c) => s + c, 0);
  // n/k exactly, not n·(1/k), so 140 items over 7 days expect 20 each, not 20.000000000000004.
  return pearsonTest(
    counts,
    counts.map(() => n / counts.length),
  );
}

function pearsonTest(counts: readonly number[], expected: number[]): ChiSquareTest {
  const df = counts.length - 1;
  const small_expected = expected.some((e) => e < SMALL_EXPECTED_COUNT);
  if (expected.every((e) => e === 0)) {
    return { statistic: 0, df, p_value: 1, expected, small_expected };
  }
  const statistic = pearsonStatistic(counts, expected);
  return { statistic, df, p_value: chiSquareSurvival(statistic, df), expected, small_expected };
}

export function equalProbabilities(k: number): number[] {
  return Array.from({ length: k }, () => 1 / k);
}

/** Σ (Oᵢ − Eᵢ)²/Eᵢ; every Eᵢ must be positive. */
export function pearsonStatistic(counts: ArrayLike<number>, expected: ArrayLike<number>): number {
  let statistic = 0;
  for (let i = 0; i < counts.length; i++) {
    const d = counts[i]! - expected[i]!;
    statistic += (d * d) / expected[i]!;
  }
  return statistic;
}

/** Validates counts and probabilities; returns the probabilities renormalised. */
export function checkedProbabilities(
  counts: readonly number[],
  probabilities: readonly number[],
): number[] {
  if (counts.length < 2) {
    throw new RangeError(`a goodness-of-fit test needs at least 2 cells, got ${counts.length}`);
  }
  if (probabilities.length !== counts.length) {
    throw new RangeError(
      `probabilities (${probabilities.length}) must match counts (${counts.length})`,
    );
  }
  counts.forEach((c, i) => assertCount(`counts[${i}]`, c));
  let sum = 0;
  probabilities.forEach((p, i) => {
    // A zero-probability cell has no expected count to divide by; leave it out instead.
    if (!(p > 0) || !Number.isFinite(p)) {
      throw new RangeError(`probabilities[${i}] must be finite and > 0, got ${p}`);
    }
    sum += p;
  });
  if (Math.abs(sum - 1) > PROBABILITY_SUM_TOLERANCE) {
    throw new RangeError(`probabilities must sum to 1, got ${sum}`);
  }
  return probabilities.map((p) => p / sum);
}

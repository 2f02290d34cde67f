import { assertCount, assertHitsWithinTrials, assertProbability } from './validate.js';

/**
 * z statistics that put different kinds of trials on one scale, positive
 * when better than chance. Zero trials carry no evidence: z = 0.
 */

/** Normal approximation to the binomial: (hits − n·p0) / √(n·p0·(1 − p0)). */
export function binomialZ(hits: number, n: number, p0: number): number {
  assertHitsWithinTrials(hits, n);
  assertProbability('p0', p0);
  if (n === 0 || p0 === 0 || p0 === 1) return 0;
  return (hits - n * p0) / Math.sqrt(n * p0 * (1 - p0));
}

/**
 * Sum-of-ranks z for ranked judging (Solfvin, Kelly & Burdick 1978 style):
 * under the null each rank is uniform on 1..k, mean (k + 1)/2 and variance
 * (k² − 1)/12. Rank 1 is the best match, so a low rank sum is good and
 * z = (expected sum − observed sum) / sd is positive when better than chance.
 */
export function sumOfRanksZ(ranks: readonly number[], k: number): number {
  if (!Number.isInteger(k) || k < 2) throw new RangeError(`k must be an integer ≥ 2, got ${k}`);
  for (const rank of ranks) {
    if (!Number.isInteger(rank) || rank < 1 || rank > k)
      throw new RangeError(`rank ${rank} outside 1..${k}`);
  }
  const n = ranks.length;
  if (n === 0) return 0;
  const sum = ranks.reduce((s, r) => s + r, 0);
  return ((n * (k + 1)) / 2 - sum) / Math.sqrt((n * (k * k - 1)) / 12);
}

/**
 * Stouffer's combined Z: Σ wᵢzᵢ / √(Σ wᵢ²) (weights default to 1, giving
 * Σz/√m). Standard normal under the null when the zᵢ are independent.
 */
export function stoufferZ(zs: readonly number[], weights?: readonly number[]): number {
  if (weights !== undefined && weights.length !== zs.length) {
    throw new RangeError(`weights (${weights.length}) must match zs (${zs.length})`);
  }
  let numerator = 0;
  let sumSquares = 0;
  zs.forEach((z, i) => {
    const w = weights?.[i] ?? 1;
    if (!Number.isFinite(z) || !Number.isFinite(w) || w < 0)
      throw new RangeError('z and weights must be finite, weights ≥ 0');
    numerator += w * z;
    sumSquares += w * w;
  });
  return sumSquares === 0 ? 0 : numerator / Math.sqrt(sumSquares);
}

/** Effect size per trial, z/√n (Rosenthal's r-like ES used in the field). */
export function effectSize(z: number, n: number): number {
  assertCount('n', n);
  return n === 0 ? 0 : z / Math.sqrt(n);
}

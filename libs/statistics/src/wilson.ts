import { assertHitsWithinTrials } from './validate.js';

/** z for a two-sided 95 % interval: Φ⁻¹(0.975). */
export const Z_95 = 1.959963984540054;

/**
 * Wilson score interval for a binomial proportion (Wilson 1927), without
 * continuity correction — Newcombe (1998) method 3. Chosen over the Wald
 * interval because it stays inside [0, 1] and keeps near-nominal coverage
 * for small n and proportions near 0 or 1, which is where analysts' records
 * live. With no trials nothing is known, so the interval is [0, 1].
 */
export function wilsonInterval(hits: number, n: number, z: number = Z_95): [number, number] {
  assertHitsWithinTrials(hits, n);
  if (!(z >= 0) || !Number.isFinite(z)) throw new RangeError(`z must be finite and ≥ 0, got ${z}`);
  if (n === 0) return [0, 1];
  const p = hits / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const halfWidth = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // The exact bounds at hits = 0 or n are 0 and 1; clamp away rounding noise.
  const lo = hits === 0 ? 0 : Math.max(0, centre - halfWidth);
  const hi = hits === n ? 1 : Math.min(1, centre + halfWidth);
  return [lo, hi];
}

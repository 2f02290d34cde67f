import { mulberry32 } from './mulberry32.js';
import { weiszfeld } from './weiszfeld.js';

/**
 * Null distribution of the dispersion statistic
 *   T = mean distance of n points from their own geometric median ÷ R
 * when the n points are uniform in a disc of radius R (scale-free, so it
 * depends on n only).
 *
 * Large n (≥ SIMULATE_BELOW): analytic normal approximation. The distance of
 * a uniform point from the disc centre has mean 2R/3 and variance R²/18.
 * Fitting the median to the sample lowers the sum of distances by ½·gᵀH⁻¹g
 * (second-order expansion; g = Σ unit vectors, Cov g = n·I/2, Hessian
 * H ≈ n·E[1/r]·I/2 = n·I), i.e. by ½ on average, so
 *   E[T] ≈ 2/3 − 1/(2n),  sd[T] ≈ √(1/(18n)).
 * Small n: the expansion is poor (for n = 2, E[T] = 64/(45π) ≈ 0.453, not
 * 0.417), so T is tabulated by simulation with a fixed seed per n:
 * deterministic, memoised, computed once per process per n.
 */

export const SIMULATE_BELOW = 30;
const REPLICATES = 2_000;
/** T converges much faster than the median's position (it is flat at the
 *  optimum): 64 Weiszfeld steps leave T within ~1e-4, far below its sd. */
const NULL_ITERATIONS = 64;
const SEED_BASE = 0x5eed_0000;

export interface DispersionNull {
  mean: number;
  sd: number;
  /** Simulated values of T, sorted ascending (small n only). */
  sorted?: Float64Array;
}

const cache = new Map<number, DispersionNull>();

export function dispersionNull(n: number): DispersionNull {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`dispersion null needs n ≥ 2, got ${n}`);
  if (n >= SIMULATE_BELOW) return { mean: 2 / 3 - 1 / (2 * n), sd: Math.sqrt(1 / (18 * n)) };
  let table = cache.get(n);
  if (!table) {
    table = simulate(n);
    cache.set(n, table);
  }
  return table;
}

/** Exported for the test that checks the analytic formula against it. */
export function simulate(
  n: number,
  replicates = REPLICATES,
): DispersionNull & { sorted: Float64Array } {
  const random = mulberry32(SEED_BASE + n);
  const values = new Float64Array(replicates);
  const xs = new Array<{ x: number; y: number; w: number }>(n);
  for (let r = 0; r < replicates; r++) {
    for (let i = 0; i < n; i++) {
      // √u radius makes the density uniform over the disc's area.
      const radius = Math.sqrt(random());
      const angle = 2 * Math.PI * random();
      xs[i] = { x: radius * Math.cos(angle), y: radius * Math.sin(angle), w: 1 };
    }
    const m = weiszfeld(xs, { relativeTolerance: 1e-6, maxIterations: NULL_ITERATIONS });
    let total = 0;
    for (const p of xs) total += Math.sqrt((p.x - m.x) ** 2 + (p.y - m.y) ** 2);
    values[r] = total / n;
  }
  values.sort();
  const mean = values.reduce((s, v) => s + v, 0) / replicates;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (replicates - 1);
  return { sorted: values, mean, sd: Math.sqrt(variance) };
}

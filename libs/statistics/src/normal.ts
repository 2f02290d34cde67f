/**
 * Standard normal distribution: CDF and survival function.
 *
 * Built on erfc, evaluated two ways so that neither loses precision:
 * - |x| < 2: the everywhere-positive series
 *   erf(x) = 2/√π · e^(−x²) · Σ (2x²)^n · x / (1·3·5···(2n+1)),
 *   which has no cancellation (Abramowitz & Stegun 7.1.6);
 * - |x| ≥ 2: the Laplace continued fraction for erfc (A&S 7.1.14), evaluated
 *   with the modified Lentz algorithm, so tiny tails keep full relative
 *   precision (needed for p-values far below 1e-7).
 * Both are accurate to ~1e-15, far inside the 1e-7 the statistics need.
 */

const SQRT_PI = Math.sqrt(Math.PI);
const SERIES_LIMIT = 2;
const EPS = 1e-16;
const MAX_TERMS = 500;

function erfSeries(x: number): number {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < MAX_TERMS; n++) {
    term *= (2 * x2) / (2 * n + 1);
    sum += term;
    if (term < EPS * sum) break;
  }
  return (2 / SQRT_PI) * Math.exp(-x2) * sum;
}

/** erfc(x) for x ≥ SERIES_LIMIT, via the continued fraction
 *  erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))). */
function erfcContinuedFraction(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < MAX_TERMS; n++) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? tiny : 1 / d;
    c = x + a / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

/** Complementary error function, accurate in relative terms for large x. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < SERIES_LIMIT) return 1 - erfSeries(x);
  return erfcContinuedFraction(x);
}

/** P(Z ≤ x) for a standard normal Z. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** P(Z > x) for a standard normal Z (upper tail, precise for large x). */
export function normalSf(x: number): number {
  return 0.5 * erfc(x / Math.SQRT2);
}

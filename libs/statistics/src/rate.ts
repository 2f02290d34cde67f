import { binomialTailP } from './binomial.js';
import { wilsonInterval } from './wilson.js';

/**
 * The one shape of every rate the service reports (DESIGN §4): successes of
 * n with a 95 % Wilson interval and the exact one-sided binomial p-value
 * against `baseline`, the rate chance alone gives. Never a bare percentage.
 */
export interface Rate {
  value: number;
  successes: number;
  n: number;
  ciLow: number;
  ciHigh: number;
  baseline: number;
  pValue: number;
}

/** successes of n (n ≥ 1) against `baseline`, values rounded to 6 decimals. */
export function rateOf(successes: number, n: number, baseline: number): Rate {
  const [ciLow, ciHigh] = wilsonInterval(successes, n);
  return {
    value: round(successes / n),
    successes,
    n,
    ciLow: round(ciLow),
    ciHigh: round(ciHigh),
    baseline,
    pValue: binomialTailP(successes, n, baseline),
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

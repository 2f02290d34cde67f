import { assertProbability } from './validate.js';

/**
 * Adjusted p-values for a family of m tests, returned in input order, so
 * "adjusted p ≤ α" is the procedure's decision at level α (as R's p.adjust).
 *
 * - Holm (1979), step-down: controls the family-wise error rate (the chance
 *   of any false positive) under any dependence between the tests. With the
 *   p-values sorted ascending, p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎).
 *   Uniformly more powerful than Bonferroni (m·p).
 * - Benjamini–Hochberg (1995), step-up: controls the false discovery rate
 *   (the expected share of false positives among the discoveries) for
 *   independent or positively dependent tests; more discoveries, weaker
 *   promise. p̃₍ᵢ₎ = min_{j ≥ i} min(1, m·p₍ⱼ₎ / j).
 *
 * Both are monotone in the raw p-values; ties get equal adjusted values.
 */

export type Correction = 'holm' | 'benjamini-hochberg';

export function holmAdjust(pValues: readonly number[]): number[] {
  const order = ascendingOrder(pValues);
  const m = pValues.length;
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}

export function benjaminiHochbergAdjust(pValues: readonly number[]): number[] {
  const order = ascendingOrder(pValues);
  const m = pValues.length;
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const index = order[rank]!;
    running = Math.min(running, (m * pValues[index]!) / (rank + 1));
    adjusted[index] = running;
  }
  return adjusted;
}

export function adjustPValues(pValues: readonly number[], correction: Correction): number[] {
  switch (correction) {
    case 'holm':
      return holmAdjust(pValues);
    case 'benjamini-hochberg':
      return benjaminiHochbergAdjust(pValues);
    default: {
      const unknown: never = correction;
      throw new RangeError(`unknown correction ${String(unknown)}`);
    }
  }
}

/** Indices sorted by p-value (stable, so ties keep input order). */
function ascendingOrder(pValues: readonly number[]): number[] {
  pValues.forEach((p, i) => assertProbability(`pValues[${i}]`, p));
  return pValues.map((_, i) => i).sort((a, b) => pValues[a]! - pValues[b]!);
}

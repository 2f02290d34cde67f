export interface ContributionWeights {
  weights: number[];
  /** True when nobody was above chance, so everyone counts equally. */
  equalWeightsFallback: boolean;
}

/**
 * How much each analyst's contribution counts: wᵢ ∝ max(0, θᵢ − p0), where
 * θᵢ is the analyst's calibrated hit rate. Only skill above chance earns
 * weight; weights sum to 1. When nobody is above chance there is no basis
 * to prefer anyone, so weights are equal and the fallback is flagged.
 * No analysts → no weights (flag false: nothing fell back).
 */
export function contributionWeights(thetas: readonly number[], p0: number): ContributionWeights {
  if (thetas.length === 0) return { weights: [], equalWeightsFallback: false };
  const excess = thetas.map((theta) => {
    if (!Number.isFinite(theta)) throw new RangeError(`theta must be finite, got ${theta}`);
    return Math.max(0, theta - p0);
  });
  const total = excess.reduce((s, e) => s + e, 0);
  if (total === 0) {
    return { weights: thetas.map(() => 1 / thetas.length), equalWeightsFallback: true };
  }
  return { weights: excess.map((e) => e / total), equalWeightsFallback: false };
}

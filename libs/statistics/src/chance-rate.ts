import { poissonBinomialTailP, type TrialGroup } from './poisson-binomial.js';
import { rateOf, type Rate } from './rate.js';
import { assertHitsWithinTrials } from './validate.js';

/**
 * The rate object of trials whose chance baselines may differ — judged
 * trials with judging sets of different sizes (p0 = 1/set size): hits of n
 * with the 95 % Wilson interval, `baseline` the mean of the trials'
 * baselines (Σ p_i / n), and the exact one-sided p-value P(X ≥ hits) where
 * X is the Poisson-binomial count of hits chance alone gives, each trial at
 * its own p_i. With one baseline for every trial this is exactly `rateOf`
 * (the binomial tail). Needs at least one trial.
 */
export function rateAgainstChance(hits: number, groups: readonly TrialGroup[]): Rate {
  const used = groups.filter((g) => g.trials > 0);
  const n = used.reduce((sum, g) => sum + g.trials, 0);
  assertHitsWithinTrials(hits, n);
  if (n === 0) throw new RangeError('a rate needs at least one trial');
  const distinct = new Set(used.map((g) => g.p));
  if (distinct.size === 1) return rateOf(hits, n, used[0]!.p);
  const meanBaseline = meanChance(used);
  return {
    ...rateOf(hits, n, meanBaseline),
    baseline: Math.round(meanBaseline * 1e6) / 1e6,
    pValue: poissonBinomialTailP(hits, used),
  };
}

/**
 * Σ p_i·trials_i / Σ trials_i: the hit rate chance alone gives on average (0
 * without trials); exactly p when every trial has the same p.
 */
export function meanChance(groups: readonly TrialGroup[]): number {
  const used = groups.filter((g) => g.trials > 0);
  if (used.length > 0 && used.every((g) => g.p === used[0]!.p)) return used[0]!.p;
  let n = 0;
  let expected = 0;
  for (const { p, trials } of used) {
    n += trials;
    expected += p * trials;
  }
  return n === 0 ? 0 : Math.min(1, expected / n);
}

import {
  verifiedOutcomeStatistics,
  type VerifiedOutcomeStatistics,
  type VerifiedRecord,
} from '#statistics';
import { roundSignificant, roundTo } from './rounding.js';

/**
 * The top of the evidence ladder (docs/statistics.md, "Verified outcomes"):
 * what an organisation's verified outcomes of this kind of work say, when
 * there is at least one; null leaves an engine on the chance prior.
 */
export function verifiedStatistics(
  record: VerifiedRecord | null | undefined,
): VerifiedOutcomeStatistics | null {
  return record && record.n > 0 ? verifiedOutcomeStatistics(record) : null;
}

/** The verified record as kept with an outcome and shown (analyses' `score_components.verified`). */
export interface VerifiedSummary {
  /** Verified trials: cases with a verdict, partials included. */
  trials: number;
  hits: number;
  /** Counted as misses by the test and the rates. */
  partials: number;
  misses: number;
  /** The hits chance alone would give these cases on average (Σ p0). */
  expected_hits: number;
  /** The mean chance baseline of the cases. */
  p0: number;
  /** P(X ≥ hits) by chance, each case at its own baseline (Poisson-binomial). */
  p_value: number;
  /** Stouffer's z over the cases / √n. */
  effect_size: number;
  /** 95 % Wilson interval of hits / trials. */
  confidence_interval: [number, number];
}

export function verifiedSummary(stats: VerifiedOutcomeStatistics): VerifiedSummary {
  return {
    trials: stats.n,
    hits: stats.hits,
    partials: stats.partials,
    misses: stats.misses,
    expected_hits: roundTo(stats.expectedHits),
    p0: roundTo(stats.meanP0),
    p_value: roundSignificant(stats.pValue),
    effect_size: roundTo(stats.effectSize),
    confidence_interval: [
      roundTo(stats.confidenceInterval[0]),
      roundTo(stats.confidenceInterval[1]),
    ],
  };
}

/**
 * "Based on 12 verified outcomes of your organisation's yes_no queries: 7
 * hits (and 1 partial, counted as a miss) where chance expects 4, p = 0.066
 * (exact, one-sided)." — `work` names what the outcomes are of.
 */
export function verifiedSentence(stats: VerifiedOutcomeStatistics, work: string): string {
  const partials =
    stats.partials === 0
      ? ''
      : ` (and ${plural(stats.partials, 'partial')}, counted as ${stats.partials === 1 ? 'a miss' : 'misses'})`;
  const method =
    stats.pValueMethod === 'refined_normal' ? 'refined normal approximation' : 'exact, one-sided';
  return (
    `Based on ${plural(stats.n, 'verified outcome')} of your organisation's ${work}: ` +
    `${plural(stats.hits, 'hit')}${partials} where chance expects ${roundSignificant(stats.expectedHits, 3)}, ` +
    `p = ${roundSignificant(stats.pValue, 2)} (${method}).`
  );
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

import { binomialTailP } from './binomial.js';
import { distinctDescriptors, normalizeDescriptor } from './descriptor-support.js';
import { adjustPValues, type Correction } from './multiple-comparisons.js';

/**
 * Which descriptors recur across n items more often than their base rates
 * predict. For each term, support = the number of items that have it, and
 *   H0: each item has the term independently with probability b (its base rate),
 *   p = P(X ≥ support | n, b), X ~ Binomial(n, b)  (exact, one-sided: only
 *   over-representation is a pattern), then adjusted across the family.
 *
 * The family is every term that could have recurred, not only those seen
 * recurring: choosing the family from the observed counts (testing only
 * terms seen at least twice, say) lets a large vocabulary of rare terms
 * produce "significant" pairs by chance — with 200 terms of base rate 0.001
 * and 100 items, six null runs in ten would report one, against 2.6 % with
 * the whole vocabulary as the family (descriptor-recurrence.spec.ts). So:
 * - with a Map of base rates, the family is every term in the Map (the
 *   vocabulary); an observed term missing from it is an error;
 * - with a function, the vocabulary is unknown: the family is every term
 *   observed at least once, or `familySize` when the caller knows the
 *   vocabulary's size (pass it — it is the honest family).
 * Unobserved terms enter with p = 1. `minSupport` only decides which terms
 * are reported (a recurrence needs at least two items): terms below it are
 * still counted in the family, with their exact p-values.
 *
 * Terms are compared trimmed and lower-cased; an item listing a term twice
 * counts once; an item with no terms still counts in n.
 */

export type BaseRates = ReadonlyMap<string, number> | ((term: string) => number);

export interface DescriptorRecurrenceOptions {
  /** Fewest items a reported term must appear in (default 2). */
  minSupport?: number;
  /** Default 'holm' (family-wise error); 'benjamini-hochberg' controls the FDR. */
  correction?: Correction;
  /** Number of terms in the vocabulary, when the base rates are a function. */
  familySize?: number;
}

export interface TermRecurrence {
  term: string;
  /** Items that have the term. */
  support: number;
  /** support / n. */
  share: number;
  /** The base rate: the share expected under the null. */
  expected_share: number;
  /** share / expected_share. */
  lift: number;
  /** Exact one-sided binomial P(X ≥ support | n, expected_share). */
  p_value: number;
  /** p_value adjusted across the family by `correction`. */
  p_adjusted: number;
}

export interface DescriptorRecurrence {
  n_items: number;
  correction: Correction;
  min_support: number;
  /** Hypotheses the correction counted (see the family above). */
  family_size: number;
  /** Terms with support ≥ min_support, by p_value, then term. */
  terms: TermRecurrence[];
}

export const DEFAULT_MIN_SUPPORT = 2;

export function descriptorRecurrence(
  itemsTerms: readonly (readonly string[])[],
  baseRates: BaseRates,
  options: DescriptorRecurrenceOptions = {},
): DescriptorRecurrence {
  const minSupport = options.minSupport ?? DEFAULT_MIN_SUPPORT;
  if (!Number.isInteger(minSupport) || minSupport < 1) {
    throw new RangeError(`minSupport must be an integer ≥ 1, got ${minSupport}`);
  }
  const correction = options.correction ?? 'holm';
  const n = itemsTerms.length;

  const support = new Map<string, number>();
  for (const list of itemsTerms) {
    for (const term of distinctDescriptors(list)) support.set(term, (support.get(term) ?? 0) + 1);
  }

  // A Map names the vocabulary; a function only answers for the terms it is asked about.
  let vocabulary: Map<string, number> | undefined;
  let lookup: (term: string) => number | undefined;
  if (typeof baseRates === 'function') {
    lookup = baseRates;
  } else {
    const rates = normalizedRates(baseRates);
    vocabulary = rates;
    lookup = (term) => rates.get(term);
  }
  const rateOf = (term: string): number => {
    const rate = lookup(term);
    if (rate === undefined) throw new RangeError(`no base rate for term "${term}"`);
    assertBaseRate(term, rate);
    return rate;
  };

  const tested = [...support].map(([term, count]) => {
    const rate = rateOf(term);
    return { term, count, rate, p: binomialTailP(count, n, rate) };
  });

  const candidates = vocabulary ? vocabulary.size : support.size;
  const familySize = options.familySize ?? candidates;
  if (!Number.isInteger(familySize) || familySize < candidates) {
    throw new RangeError(
      `familySize must be an integer ≥ the ${candidates} candidate terms, got ${familySize}`,
    );
  }
  // Unobserved candidates have p = 1: they only lengthen the family.
  const family = tested.map((t) => t.p);
  while (family.length < familySize) family.push(1);
  const adjusted = adjustPValues(family, correction);

  const terms: TermRecurrence[] = tested
    .map((t, i) => ({
      term: t.term,
      support: t.count,
      share: t.count / n,
      expected_share: t.rate,
      lift: t.count / n / t.rate,
      p_value: t.p,
      p_adjusted: adjusted[i]!,
    }))
    .filter((t) => t.support >= minSupport)
    .sort((a, b) => a.p_value - b.p_value || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));

  return { n_items: n, correction, min_support: minSupport, family_size: familySize, terms };
}

/** Base rates keyed by normalized term; every rate checked up front. */
function normalizedRates(rates: ReadonlyMap<string, number>): Map<string, number> {
  const normalized = new Map<string, number>();
  for (const [key, rate] of rates) {
    const term = normalizeDescriptor(key);
    if (term.length === 0) throw new RangeError('base rates contain a blank term');
    assertBaseRate(term, rate);
    const earlier = normalized.get(term);
    if (earlier !== undefined && earlier !== rate) {
      throw new RangeError(`term "${term}" has two base rates (${earlier}, ${rate})`);
    }
    normalized.set(term, rate);
  }
  return normalized;
}

/** A base rate of 0 makes any sighting infinitely surprising (p = 0, lift ∞):
 *  estimate rates with smoothing so that none is 0. */
function assertBaseRate(term: string, rate: number): void {
  if (!(rate > 0 && rate <= 1)) {
    throw new RangeError(`base rate of "${term}" must be in (0, 1], got ${rate}`);
  }
}

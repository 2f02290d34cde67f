import { binomialZ, effectSize, stoufferZ } from './z-scores.js';
import { poissonBinomialTail, type PoissonBinomialMethod } from './poisson-binomial.js';
import { calibratedTrackRecord } from './track-record.js';
import { assertCount, assertProbability } from './validate.js';
import { wilsonInterval } from './wilson.js';

/** Verified outcomes of work that had one chance baseline p0. */
export interface VerifiedTally {
  p0: number;
  hits: number;
  partials: number;
  misses: number;
}

/**
 * An organisation's verified outcomes of one kind of work (docs/statistics.md,
 * "Verified outcomes"): how many, how they came out, and by chance baseline
 * (what the test against chance needs). Built by `verifiedRecord`.
 */
export interface VerifiedRecord {
  /** Verified trials: every verdict counts, partials included. */
  n: number;
  hits: number;
  partials: number;
  misses: number;
  /** The same trials by chance baseline, one tally per distinct p0, smallest p0 first. */
  byBaseline: VerifiedTally[];
}

/** A record from tallies (several of one p0 are added up); an empty list is no record (n = 0). */
export function verifiedRecord(tallies: readonly VerifiedTally[]): VerifiedRecord {
  const byP0 = new Map<number, VerifiedTally>();
  for (const tally of tallies) {
    assertProbability('p0', tally.p0);
    assertCount('hits', tally.hits);
    assertCount('partials', tally.partials);
    assertCount('misses', tally.misses);
    const sum = byP0.get(tally.p0) ?? { p0: tally.p0, hits: 0, partials: 0, misses: 0 };
    sum.hits += tally.hits;
    sum.partials += tally.partials;
    sum.misses += tally.misses;
    byP0.set(tally.p0, sum);
  }
  const byBaseline = [...byP0.values()]
    .filter((t) => t.hits + t.partials + t.misses > 0)
    .sort((a, b) => a.p0 - b.p0);
  const total = (key: 'hits' | 'partials' | 'misses') =>
    byBaseline.reduce((sum, t) => sum + t[key], 0);
  const hits = total('hits');
  const partials = total('partials');
  const misses = total('misses');
  return { n: hits + partials + misses, hits, partials, misses, byBaseline };
}

/** What a verified record says about the work, unrounded. */
export interface VerifiedOutcomeStatistics {
  n: number;
  hits: number;
  partials: number;
  misses: number;
  /** Σ p0 over the trials: the hits chance alone would give on average. */
  expectedHits: number;
  /** expectedHits / n: the mean chance baseline, the prior mean of `calibratedRate`. */
  meanP0: number;
  /** P(X ≥ hits) with X the hits of the same trials by chance (each at its own p0). */
  pValue: number;
  pValueMethod: PoissonBinomialMethod;
  /** Stouffer's Z over the trials (equal weights): Σ zᵢ/√n, zᵢ = (xᵢ − p0ᵢ)/√(p0ᵢ(1 − p0ᵢ)). */
  z: number;
  /** z/√n. */
  effectSize: number;
  /** 95 % Wilson interval of hits / n. */
  confidenceInterval: [number, number];
  /** (hits + 2·meanP0)/(n + 2): the hit rate, calibrated towards chance by a prior worth two trials. */
  calibratedRate: number;
}

/**
 * The numbers a verified record supports (docs/statistics.md, "Verified
 * outcomes"). A `partial` counts as a miss — the conservative choice: the
 * test and the rates claim only what was fully right — and is reported
 * separately. Trials whose p0 is 0 or 1 say nothing about skill: they add
 * nothing to z (they do count in n, the interval and the rate). Needs at
 * least one trial.
 */
export function verifiedOutcomeStatistics(record: VerifiedRecord): VerifiedOutcomeStatistics {
  const check = verifiedRecord(record.byBaseline);
  if (
    check.n !== record.n ||
    check.hits !== record.hits ||
    check.partials !== record.partials ||
    check.misses !== record.misses
  ) {
    throw new RangeError('the record’s totals do not match its tallies');
  }
  const { n, hits, partials, misses, byBaseline } = check;
  if (n === 0) throw new RangeError('a verified record needs at least one trial');
  const trials = (t: VerifiedTally) => t.hits + t.partials + t.misses;
  const expectedHits = byBaseline.reduce((sum, t) => sum + trials(t) * t.p0, 0);
  const meanP0 = Math.min(1, expectedHits / n);
  const tail = poissonBinomialTail(
    hits,
    byBaseline.map((t) => ({ p: t.p0, trials: trials(t) })),
  );
  // Per group, Σ zᵢ over its trials is √m·binomialZ(h, m, p0): Stouffer with weights √m.
  const informative = byBaseline.filter((t) => t.p0 > 0 && t.p0 < 1);
  const z = stoufferZ(
    informative.map((t) => binomialZ(t.hits, trials(t), t.p0)),
    informative.map((t) => Math.sqrt(trials(t))),
  );
  const informativeN = informative.reduce((sum, t) => sum + trials(t), 0);
  return {
    n,
    hits,
    partials,
    misses,
    expectedHits,
    meanP0,
    pValue: tail.pValue,
    pValueMethod: tail.method,
    z,
    effectSize: effectSize(z, informativeN),
    confidenceInterval: wilsonInterval(hits, n),
    calibratedRate: calibratedTrackRecord(hits, n, meanP0),
  };
}

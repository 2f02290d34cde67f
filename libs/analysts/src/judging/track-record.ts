import { calibratedTrackRecord, meanChance, rateAgainstChance, type Rate } from '#statistics';

/**
 * Fewer judged trials than this and a track record is not rested on: the
 * chance prior stands in (`evidence: 'prior'`, θ = p0). Why five: with the
 * default judging set of five (four decoys, p0 = 1/5) chance alone is
 * expected to give one hit in five trials, so below that a single lucky hit
 * reads as a hit rate of 25–100 %; from five trials on the record holds at
 * least one chance hit's worth of trials, the calibrated θ rests mostly on the
 * record (n/(n + 2) ≥ 5/7 of it), and a perfect record can be significant at
 * any set size (P(5 of 5 | p0 = 1/2) = 0.031).
 */
export const MIN_TRACK_RECORD_TRIALS = 5;

/** The judging set of the default four decoys: the chance prior of someone with no trials. */
export const DEFAULT_CHANCE = 1 / 5;

/** An analyst's judged trials, summed (docs/analysts.md, "Blind judging and track records"). */
export interface TrackRecord {
  trials: number;
  hits: number;
  /**
   * Hits of trials with the Wilson 95 % interval and the exact one-sided
   * p-value against chance (1/set size per trial; Poisson-binomial when sizes
   * differ, `baseline` their mean). No trials: 0 of 0, interval [0, 1],
   * p = 1, baseline 1/5.
   */
  hitRate: Rate;
  /** Mean SAIC accuracy over the trials whose truth had vocabulary descriptors; null when none had. */
  saicAccuracy: number | null;
  saicReliability: number | null;
  /**
   * The contribution weight input: the calibrated hit rate (hits + a)/(n + a + b)
   * with prior mean p0 (the mean baseline) worth two trials; p0 itself under
   * the prior (too few trials).
   */
  theta: number;
  evidence: 'track_record' | 'prior';
}

/** Judged trials of one judging-set size, summed (one row of the track-record query). */
export interface JudgedTrialGroup {
  setSize: number;
  trials: number;
  hits: number;
  /** Trials with SAIC scores, and the sums of their scores. */
  scoredTrials: number;
  accuracySum: number;
  reliabilitySum: number;
}

/** The track record of one analyst from their trials grouped by set size. */
export function trackRecordOf(groups: readonly JudgedTrialGroup[]): TrackRecord {
  const used = groups.filter((g) => g.trials > 0);
  const sum = (pick: (g: JudgedTrialGroup) => number) =>
    used.reduce((total, g) => total + pick(g), 0);
  const trials = sum((g) => g.trials);
  const hits = sum((g) => g.hits);
  const scored = sum((g) => g.scoredTrials);
  const chances = used.map((g) => ({ p: 1 / g.setSize, trials: g.trials }));
  const p0 = trials === 0 ? DEFAULT_CHANCE : meanChance(chances);
  const evidence = trials < MIN_TRACK_RECORD_TRIALS ? 'prior' : 'track_record';
  return {
    trials,
    hits,
    hitRate: trials === 0 ? emptyRate(p0) : rateAgainstChance(hits, chances),
    saicAccuracy: scored === 0 ? null : round(sum((g) => g.accuracySum) / scored),
    saicReliability: scored === 0 ? null : round(sum((g) => g.reliabilitySum) / scored),
    theta: evidence === 'prior' ? p0 : calibratedTrackRecord(hits, trials, p0),
    evidence,
  };
}

/** No trials: nothing observed, nothing tested. */
function emptyRate(baseline: number): Rate {
  return { value: 0, successes: 0, n: 0, ciLow: 0, ciHigh: 1, baseline, pValue: 1 };
}

/**
 * The track record in one plain sentence, as shown beside it:
 * "No judged trials yet: the chance prior (20 %) is used." /
 * "3 judged trials: too few to rest on; chance prior used." /
 * "12 judged trials, 5 hits: 41.7 % (95 % CI 19.3–68.0 %) against 20 % by chance, p = 0.0523."
 */
export function trackRecordSentence(record: TrackRecord): string {
  const chance = percent(record.hitRate.baseline);
  if (record.trials === 0) return `No judged trials yet: the chance prior (${chance}) is used.`;
  const trials = `${record.trials} judged trial${record.trials === 1 ? '' : 's'}`;
  if (record.evidence === 'prior') {
    return `${trials}: too few to rest on (fewer than ${MIN_TRACK_RECORD_TRIALS}); chance prior (${chance}) used.`;
  }
  const { value, ciLow, ciHigh, pValue } = record.hitRate;
  return (
    `${trials}, ${record.hits} hit${record.hits === 1 ? '' : 's'}: ${percent(value)} ` +
    `(95 % CI ${percent(ciLow, false)}–${percent(ciHigh)}) against ${chance} by chance, ` +
    `p = ${pValue < 0.0001 ? '< 0.0001' : pValue.toPrecision(3)}.`
  );
}

function percent(value: number, sign = true): string {
  const text = (value * 100).toFixed(1).replace(/\.0$/, '');
  return sign ? `${text} %` : text;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

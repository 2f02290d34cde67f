import type { DowsingQueryType } from './dowsing-engine.js';
import { LOCATION_ACCURACY_SHARE } from './dowsing-protocol.js';
import { COMPASS_SECTORS, YES_NO_ANSWERS } from './dowsing-vocabulary.js';
import { CHANCE_HIT_RATE } from './session-protocol.js';

/**
 * The chance rate of a hit of each kind of work, for the verified record of
 * a case that records none (docs/statistics.md, "Verified outcomes"):
 * sessions' cases never do, nor do analyses without judged analysts
 * (`quick_scan`), nor imported cases that leave it out. Finished dowsing
 * queries record their own baseline; these stand in for imported ones.
 */
export const DOWSING_DEFAULT_BASELINE: Readonly<Record<DowsingQueryType, number>> = {
  /** One of positive, negative, neutral. */
  yes_no: 1 / YES_NO_ANSWERS.length,
  /** One of the eight compass sectors (the options a question gives change it; its case says). */
  information: 1 / COMPASS_SECTORS.length,
  /** Within accuracy of the truth at standard precision: the disc's share of the search circle. */
  location: LOCATION_ACCURACY_SHARE.standard ** 2,
};

/** A hit of an analysis: one target among a judging set of k (p0 = 1/k), as its analysts' trials. */
export const ANALYSIS_DEFAULT_BASELINE = CHANCE_HIT_RATE;

/** A hit of a session: the target picked out of a judging set of k, p0 = 1/k. */
export const SESSION_DEFAULT_BASELINE = CHANCE_HIT_RATE;

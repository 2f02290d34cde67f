import type { CaseType } from './history-case.js';

/**
 * The most recent verified cases a record counts: enough for any test
 * against chance, and a bound on the work per request however many cases
 * an organisation has verified (docs/statistics.md, "Verified outcomes").
 */
export const VERIFIED_RECORD_LIMIT = 10_000;

/** Which cases a verified record counts. */
export interface VerifiedRecordQuery {
  type: CaseType;
  /**
   * Cases of these subtypes only (a dowsing query_type, an analysis_type, a
   * session's modalities); `null` in the list counts the cases that have none.
   */
  subtypes: readonly (string | null)[];
  /** The chance baseline of a case that records none (imported cases, sessions): the work kind's p0. */
  defaultP0: number;
}

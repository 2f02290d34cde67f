import {
  ANALYSIS_DEFAULT_BASELINE,
  DOWSING_DEFAULT_BASELINE,
  SESSION_DEFAULT_BASELINE,
  type DowsingQueryType,
} from '#engines';

/**
 * The chance rate of a hit for a verified case that records none (imported
 * cases, sessions): its kind's p0 (libs/engines/src/chance-baselines.ts).
 * A dowsing case is judged by its query type; one without a known query type
 * (an import that leaves it out) by the session's 1/k.
 */
export function defaultBaseline(type: string, subtype: string | null): number {
  if (type === 'analysis') return ANALYSIS_DEFAULT_BASELINE;
  if (type === 'dowsing' && subtype !== null && subtype in DOWSING_DEFAULT_BASELINE) {
    return DOWSING_DEFAULT_BASELINE[subtype as DowsingQueryType];
  }
  return SESSION_DEFAULT_BASELINE;
}

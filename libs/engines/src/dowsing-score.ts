import {
  binomialTailP,
  binomialZ,
  calibratedTrackRecord,
  effectSize,
  wilsonInterval,
} from '#statistics';
import { roundSignificant, roundTo } from './rounding.js';
import type { Judged } from './simulated-dowser.js';

/** What the statistics module makes of a query's hits (docs/statistics.md, "Dowsing"), rounded for output. */
export interface DowsingScore {
  /** Exact one-sided binomial P(X ≥ hits | trials, p0). */
  p_value: number;
  /** z / √n, z = (hits − n·p0) / √(n·p0·(1 − p0)). */
  effect_size: number;
  sample_size: number;
  /** Calibrated hit rate (hits + 2·p0) / (n + 2): chance until the readings say otherwise. */
  confidence: number;
  /** 95 % Wilson interval of hits / n. */
  confidence_interval: [number, number];
  baseline: number;
}

export function scoreJudged({ hits, trials, p0 }: Judged): DowsingScore {
  return {
    p_value: roundSignificant(binomialTailP(hits, trials, p0)),
    effect_size: roundTo(effectSize(binomialZ(hits, trials, p0), trials)),
    sample_size: trials,
    confidence: roundTo(calibratedTrackRecord(hits, trials, p0)),
    confidence_interval: roundInterval(wilsonInterval(hits, trials)),
    baseline: roundTo(p0),
  };
}

/**
 * How strongly the readings back one of several answers: the calibrated
 * share of the readings that chose it, (support + 2·chance) / (n + 2)
 * (unrounded: over k options with chance 1/k the shares add up to 1, and
 * roundToUnitSum keeps them so), with the 95 % Wilson interval of
 * support / n.
 */
export function supportShare(
  support: number,
  n: number,
  chance: number,
): { share: number; confidence_interval: [number, number] } {
  return {
    share: calibratedTrackRecord(support, n, chance),
    confidence_interval: roundInterval(wilsonInterval(support, n)),
  };
}

function roundInterval([low, high]: [number, number]): [number, number] {
  return [roundTo(low), roundTo(high)];
}

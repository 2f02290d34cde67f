import type {
  DowsingReading,
  DowsingResultData,
  DowsingVariantInput,
  GeoPointInput,
} from './dowsing-engine.js';
import type { DowsingScore } from './dowsing-score.js';
import { UNMEASURED_SIGNATURE } from './dowsing-vocabulary.js';
import { roundSignificant, roundTo } from './rounding.js';
import { type CategoricalReadings, type Judged, readCategorical } from './simulated-dowser.js';

// What the simulated variants' answers are made of: their shape, choices among options, places,
// readings and wording (shared by simulated-dowsing-variants.ts and simulated-dowsing-places.ts).

export type DowsingLocation = DowsingResultData['locations'][number];
export type Input<V extends DowsingVariantInput['variant']> = Extract<
  DowsingVariantInput,
  { variant: V }
>;

/**
 * What one variant's readings came to. The engine adds what every variant
 * shares: the statistics of `judged`, the chart and the sentences about
 * chance (simulated-dowsing-engine.ts).
 */
export interface VariantAnswer {
  answer: string;
  judged: Judged;
  /** The baseline in words: "1 in 3 per reading", "6.25 % per reading (…)". */
  baselineText: string;
  /** What one trial is: a reading, or (location_finding) a pass of several marks. */
  trialNoun: 'reading' | 'pass';
  /** The chart's readings, each in [0, 1] (docs/statistics.md, "Dowsing", "What is shown"). */
  chartReadings: number[];
  /** What the readings pointed at, for the chart's interpretation. */
  pointedAt: string;
  coordinates?: DowsingResultData['coordinates'];
  insights: string[];
  locations: DowsingLocation[];
  readings: DowsingReading[];
  variantResult: Record<string, unknown> | null;
}

export interface Chosen {
  read: CategoricalReadings;
  labels: readonly string[];
  /** Index of the option read most (ties by lot). */
  top: number;
  label: string;
  /** " (tied with …, the tie broken by lot)" or "". */
  tieNote: string;
}

export function chooseAmong(seed: string, labels: readonly string[], n: number): Chosen {
  const read = readCategorical(seed, labels.length, n);
  const top = read.ranking[0]!;
  const tied = read.ranking.slice(1).filter((i) => read.counts[i] === read.counts[top]);
  const others = tied.length === 1 ? '' : ` and ${tied.length - 1} more`;
  return {
    read,
    labels,
    top,
    label: labels[top]!,
    tieNote:
      tied.length === 0 ? '' : ` (tied with ${labels[tied[0]!]}${others}, the tie broken by lot)`,
  };
}

/**
 * The fields every choice among k options shares: the answer is the option
 * read most; a reading's number on the chart is its option's index / (k − 1).
 */
export function categoricalCommon(
  chosen: Chosen,
): Pick<
  VariantAnswer,
  'answer' | 'judged' | 'baselineText' | 'trialNoun' | 'chartReadings' | 'pointedAt'
> {
  const k = chosen.labels.length;
  const n = chosen.read.trials;
  return {
    answer: chosen.label,
    judged: chosen.read,
    baselineText: `1 in ${k} per reading`,
    trialNoun: 'reading',
    chartReadings: chosen.read.picks.map((pick) => roundTo(k === 1 ? 0 : pick / (k - 1))),
    pointedAt: `${chosen.read.counts[chosen.top]} of ${n} readings chose ${chosen.label}`,
  };
}

/** A location the answer names, with what backs it; energy, depth and materials unmeasured. */
export function place(
  point: GeoPointInput,
  backing: Pick<DowsingScore, 'confidence' | 'confidence_interval'>,
): DowsingLocation {
  return {
    coordinates: { lat: point.latitude, lng: point.longitude },
    confidence: backing.confidence,
    confidence_interval: backing.confidence_interval,
    energy_signature: UNMEASURED_SIGNATURE,
    depth_meters: null,
    material_composition: [],
  };
}

export function reading(point: GeoPointInput, confidence: number): DowsingReading {
  return { latitude: point.latitude, longitude: point.longitude, confidence };
}

export function percent(share: number): string {
  return `${roundSignificant(share * 100, 3)} %`;
}

export function meters(value: number): string {
  return value < 1_000
    ? `${roundSignificant(value, 3)} m`
    : `${roundSignificant(value / 1_000, 3)} km`;
}

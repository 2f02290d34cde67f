/**
 * The boundary between the service and whatever answers a dowsing query. The
 * simulated engine answers within the request (a pure function of the
 * request, the organisation's seed and its version); an engine of people
 * (issue 18) will answer later, through the worker.
 */

import type { Mode } from '#common';
import type { VerifiedRecord } from '#statistics';
import type { Engine, EngineName } from './engine.js';
import type { Evidence } from './session-engine.js';

export const DOWSING_QUERY_TYPES = ['location', 'information', 'yes_no'] as const;
export type DowsingQueryType = (typeof DOWSING_QUERY_TYPES)[number];
export const PRECISION_LEVELS = ['standard', 'high', 'maximum'] as const;
export type PrecisionLevel = (typeof PRECISION_LEVELS)[number];
export const TIMEFRAMES = ['past', 'present', 'future'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];
export const CHART_TYPES = ['radar', 'pendulum', 'divining_rod'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

/** `query` is POST /v1/dowsing/query; the others are its seven v1 variants. */
export const DOWSING_VARIANTS = [
  'query',
  'multi_point',
  'energy_map',
  'depth_analysis',
  'material_identification',
  'chart_analysis',
  'location_finding',
  'energy_detection',
] as const;
export type DowsingVariant = (typeof DOWSING_VARIANTS)[number];

export interface GeoPointInput {
  latitude: number;
  longitude: number;
}

export interface SearchCircle extends GeoPointInput {
  radius_meters: number;
}

export interface BoundingBox {
  south: number;
  west: number;
  north: number;
  east: number;
}

/** What every query carries (field names as in the API). */
export interface DowsingContext {
  location?: SearchCircle;
  timeframe?: Timeframe;
  parameters?: Record<string, unknown>;
}

/** The variant's own input, checked by the HTTP layer (bounds in the DTOs). */
export type DowsingVariantInput =
  | { variant: 'query' }
  | { variant: 'multi_point'; points: ({ name: string } & GeoPointInput)[] }
  | { variant: 'energy_map'; bounds: BoundingBox; grid: { rows: number; columns: number } }
  | { variant: 'depth_analysis'; point: GeoPointInput; max_depth_meters: number }
  | {
      variant: 'material_identification';
      point: GeoPointInput | null;
      sample_description: string | null;
      /** Restrict the candidates to these vocabulary terms; null = the whole vocabulary. */
      candidates: string[] | null;
    }
  | { variant: 'chart_analysis'; chart_type: ChartType; options: string[] }
  | { variant: 'location_finding'; area: SearchCircle; sought: string; max_candidates: number }
  | {
      variant: 'energy_detection';
      point: GeoPointInput;
      window: { from: string; to: string };
    };

export interface DowsingRequest {
  queryType: DowsingQueryType;
  question: string;
  precisionLevel: PrecisionLevel;
  context: DowsingContext;
  input: DowsingVariantInput;
}

/** The spec's statistical_significance: exact binomial against the chance baseline. */
export interface DowsingSignificance {
  p_value: number;
  effect_size: number;
  sample_size: number;
}

/** One located reading, kept for heatmaps and temporal analysis. */
export interface DowsingReading extends GeoPointInput {
  confidence: number;
}

/**
 * The result as the v1 API shows it: the spec's fields for every variant,
 * plus the variant's own under `variant_result` (null for `query`). v2
 * adds `locations` and `statistical_significance` (always computed; the v1
 * mapper leaves them out).
 */
export interface DowsingResultData {
  answer: string;
  confidence: number;
  coordinates?: { latitude: number; longitude: number; accuracy_meters: number };
  additional_insights: string[];
  chart_data: { chart_type: ChartType; readings: number[]; interpretation: string };
  /**
   * Chance rate of a hit of this query (1/3 yes/no/neutral, area share, 1/k):
   * what its history case records as its chance baseline.
   */
  baseline: number;
  confidence_interval: [number, number];
  statistical_significance: DowsingSignificance;
  locations: {
    coordinates: { lat: number; lng: number };
    confidence: number;
    confidence_interval: [number, number];
    energy_signature: string;
    depth_meters: number | null;
    material_composition: string[];
  }[];
  /** The variant's own result: DowsingVariantResults[variant] (dowsing-variant-results.ts). */
  variant_result: Record<string, unknown> | null;
}

export type DowsingFailureReason = 'engine_failure' | 'deadline_exceeded';

interface OutcomeCommon {
  engine: EngineName;
  engineVersion: string;
  /** Hex SHA-256 the outcome was derived from. */
  seed: string;
}

/**
 * The raw counts behind `statistical_significance` and `confidence`: of
 * `trials` readings (passes, for location_finding) judged against the
 * ground truth, `hits` hit it; each would by chance with probability `p0`
 * (unrounded; the result's `baseline` is it rounded). Kept for audit and for
 * the rate object {value, successes, n, ci_low, ci_high, baseline, p_value}.
 */
export interface DowsingJudging {
  hits: number;
  trials: number;
  p0: number;
}

export interface CompletedDowsingOutcome extends OutcomeCommon {
  status: 'completed';
  result: DowsingResultData;
  evidence: Evidence;
  judging: DowsingJudging;
  readings: DowsingReading[];
}

export interface FailedDowsingOutcome extends OutcomeCommon {
  status: 'failed';
  reason: DowsingFailureReason;
  message: string;
}

export type DowsingEngineOutcome = CompletedDowsingOutcome | FailedDowsingOutcome;

export interface DowsingEngine extends Engine {
  readonly kind: 'dowsing';
  /** True when the engine answers within the request (201); false: the worker (202 processing). */
  readonly answersInline: boolean;
  /**
   * `verified`: the organisation's verified outcomes of this query type
   * (VerifiedRecords in #history); with at least one, the statistics rest on
   * them (evidence `verified`), else on the chance prior. `mode`: whose work
   * it is (the sandbox's or live), which the result's wording follows.
   */
  run(
    request: DowsingRequest,
    orgSeed: string,
    verified: VerifiedRecord | null | undefined,
    mode: Mode,
  ): Promise<DowsingEngineOutcome>;
}

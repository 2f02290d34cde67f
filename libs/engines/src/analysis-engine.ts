/**
 * The boundary between the service and whatever does a target analysis. The
 * worker asks the engine for its plan (steps, pacing, what to cross-reference)
 * when the analysis starts, carries the steps out — fetching the reference
 * material, looking up earlier work — and hands what it gathered to `run`,
 * which says what all of it means.
 */

import type { VerifiedRecord } from '#statistics';
import type { Engine, EngineName } from './engine.js';
import type { Evidence } from './session-engine.js';
import type { VerifiedSummary } from './verified-evidence.js';

export const ANALYSIS_TARGET_TYPES = ['location', 'person', 'object', 'event'] as const;
export type AnalysisTargetType = (typeof ANALYSIS_TARGET_TYPES)[number];
export const ANALYSIS_TYPES = ['comprehensive', 'quick_scan', 'deep_dive'] as const;
export type AnalysisType = (typeof ANALYSIS_TYPES)[number];
export const ANALYSIS_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type AnalysisPriority = (typeof ANALYSIS_PRIORITIES)[number];
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** The steps an analysis goes through, in the order the API shows them (`current_step`). */
export const ANALYSIS_STEPS = [
  'fetching_material',
  'reading_material',
  'cross_referencing',
  'analyst_work',
  'judging',
  'assessing',
] as const;
export type AnalysisStep = (typeof ANALYSIS_STEPS)[number];

export interface GeoCoordinates {
  latitude: number;
  longitude: number;
}

/** What was asked, as submitted. */
export interface AnalysisRequestInput {
  targetType: AnalysisTargetType;
  analysisType: AnalysisType;
  description: string | null;
  coordinates: GeoCoordinates | null;
  photoCount: number;
  documentCount: number;
}

/** One reference item as the worker read it (the API's reference-material item). */
export interface AnalysisMaterialFacts {
  url: string;
  kind: 'photo' | 'document';
  status: 'fetched' | 'failed';
  error: string | null;
  sha256: string | null;
  content_type: string | null;
  width?: number | null;
  height?: number | null;
  exif?: { captured_at: string | null; latitude: number | null; longitude: number | null } | null;
  pages?: number | null;
  text_excerpt?: string | null;
}

/** Earlier finished work of the organisation that bears on the same target. */
export interface EarlierWork {
  kind: 'analysis' | 'session';
  /** Public id (`anal_…`, `sess_…`). */
  id: string;
  /** `nearby`: coordinates within the plan's radius; `same_target`: the same description or target text. */
  relation: 'nearby' | 'same_target';
  distanceMeters: number | null;
  confidenceScore: number | null;
  completedAt: string;
}

export interface AnalysisWorkInput extends AnalysisRequestInput {
  material: AnalysisMaterialFacts[];
  earlierWork: EarlierWork[];
  /**
   * The organisation's verified outcomes of this analysis type (VerifiedRecords
   * in #history), read when the analysis is assessed; with at least one, the
   * confidence rests on them (evidence `verified`).
   */
  verified?: VerifiedRecord | null;
}

/** How the engine will go about an analysis, fixed when it starts. */
export interface AnalysisPlan {
  engine: EngineName;
  engineVersion: string;
  /** Hex SHA-256 of the request: the seed of every simulated draw that does not depend on the material. */
  requestSeed: string;
  steps: readonly AnalysisStep[];
  /** Stretch the simulated time between steps by this factor (1 = normal; `[slow]`). */
  stepMultiplier: number;
  /** Earlier work to look up: coordinates within this radius, and the same description; null: none. */
  crossReference: { radiusMeters: number } | null;
  analystCount: number;
}

export interface AnalysisResultsData {
  summary: string;
  key_findings: string[];
  confidence_score: number;
  risk_assessment: { level: RiskLevel; factors: string[] };
  recommendations: string[];
  /** What the analysts described most, with majority support (our addition; empty for quick_scan). */
  descriptors: string[];
}

/** The components the confidence score was built from (kept with the analysis, for audit). */
export interface AnalysisScoreDetails {
  /** Calibrated share of the reference items that were read and agree with the target; null without material. */
  material: number | null;
  /** Agreement of the analysts' independent work; null when no analysts worked. */
  analystAgreement: number | null;
  /** Judged trials of the analysts (hits of trials, against chance p0), when they worked. */
  judging: { hits: number; trials: number; p0: number; p_value: number } | null;
  /** The verified record the confidence rests on; absent when the evidence is the prior. */
  verified?: VerifiedSummary;
}

export type AnalysisFailureReason = 'engine_failure' | 'deadline_exceeded';

interface OutcomeCommon {
  engine: EngineName;
  engineVersion: string;
  /** Hex SHA-256 of the request and the material read: same input, same outcome. */
  seed: string;
}

export interface CompletedAnalysisOutcome extends OutcomeCommon {
  status: 'completed';
  results: AnalysisResultsData;
  evidence: Evidence;
  details: AnalysisScoreDetails;
}

export interface FailedAnalysisOutcome extends OutcomeCommon {
  status: 'failed';
  reason: AnalysisFailureReason;
  message: string;
}

export type AnalysisEngineOutcome = CompletedAnalysisOutcome | FailedAnalysisOutcome;

export interface AnalysisEngine extends Engine {
  readonly kind: 'analysis';
  plan(input: AnalysisRequestInput, orgSeed: string): AnalysisPlan;
  /** The analysis's outcome from everything the worker gathered; the worker stores it. */
  run(input: AnalysisWorkInput, orgSeed: string): Promise<AnalysisEngineOutcome>;
}

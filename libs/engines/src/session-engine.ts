/**
 * The boundary between the service and whatever does a session's work. The
 * worker calls `run` and stores the outcome; it never needs to know which
 * engine produced it beyond `engine`/`engineVersion` (kept for audit).
 */

import type { Modality, PrivacyLevel, SessionType } from '#common';
import type { VerifiedRecord } from '#statistics';
import type { Engine, EngineName } from './engine.js';

export type { Modality, PrivacyLevel, SessionType };
/** Best evidence the numbers rest on (docs/statistics.md, `metadata.evidence`). */
export type Evidence = 'verified' | 'track_record' | 'prior';

export interface SessionWorkInput {
  type: SessionType;
  target: string;
  modality: Modality | null;
  durationMinutes: number;
  privacyLevel: PrivacyLevel;
  /** Number of analysts working independently; default 1 (collaborative sessions pass N). */
  analystCount?: number;
}

export interface SimulatedSketch {
  /** The API turns (seed, index) into a URL; renderSketchSvg draws it. */
  index: number;
  description: string;
  /**
   * An analyst's uploaded sketch (`skt_….png`), served as stored; absent for
   * the simulated engine's sketches, which are redrawn from the seed.
   */
  file?: string;
}

export interface SessionResultsData {
  /** Null only for analyst work in which nobody gave coordinates. */
  coordinates: { latitude: number; longitude: number; confidence: number } | null;
  descriptors: string[];
  sketches: SimulatedSketch[];
  confidence_score: number;
  validation_metrics: { accuracy: number; reliability: number };
  statistical_validation: {
    p_value: number;
    confidence_interval: [number, number];
    sample_size: number;
  };
  collaborative_insights: {
    analyst_id: string;
    contribution_weight: number;
    key_insights: string[];
  }[];
}

/** Raw counts behind statistical_validation, for audit and future track records. */
export interface JudgingSummary {
  hits: number;
  trials: number;
  /** Size of each judging set; chance is p0 = 1/k. */
  k: number;
  p0: number;
}

export type FailureReason = 'engine_failure' | 'deadline_exceeded';

interface OutcomeCommon {
  engine: EngineName;
  engineVersion: string;
  /** Hex SHA-256 the outcome was derived from; renderSketchSvg(seed, i) redraws sketches. */
  seed: string;
  /** Hint for the worker: stretch the simulated time between progress steps by this factor (1 = normal). */
  stepMultiplier: number;
}

export interface CompletedOutcome extends OutcomeCommon {
  status: 'completed';
  results: SessionResultsData;
  evidence: Evidence;
  /** Lead analyst (the first one); every analyst appears in collaborative_insights. */
  analystId: string;
  /** Share of analysts reporting each descriptor (docs/statistics.md: descriptors kept with support). */
  descriptorSupport: Record<string, number>;
  /** True when nobody was above chance, so contribution weights are equal. */
  equalWeightsFallback: boolean;
  judging: JudgingSummary;
}

export interface FailedOutcome extends OutcomeCommon {
  status: 'failed';
  reason: FailureReason;
  message: string;
  /** Progress step (0..90, multiple of 10) at which the work fails. */
  failAtProgress: number;
}

export type SessionEngineOutcome = CompletedOutcome | FailedOutcome;

export interface SessionEngine extends Engine {
  readonly kind: 'session';
  /**
   * The outcome of a session's work; the worker paces and stores it.
   * `verified`: the organisation's verified outcomes of sessions of this type
   * (VerifiedRecords in #history); with at least one, the confidence and the
   * statistical validation rest on them (evidence `verified`).
   */
  run(
    input: SessionWorkInput,
    orgSeed: string,
    verified?: VerifiedRecord | null,
  ): Promise<SessionEngineOutcome>;
  /**
   * One outcome of several completed sessions on one target, when the engine
   * can re-derive their work (absent: its sessions cannot be merged).
   */
  merge?(
    sources: readonly SessionWorkInput[],
    orgSeed: string,
    verified?: VerifiedRecord | null,
  ): Promise<CompletedOutcome>;
}

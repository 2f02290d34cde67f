import type { Mode } from '#common';

/** The spec's case types, and `automatic_writing` (a session type the spec's enum leaves out). */
export const CASE_TYPES = ['remote_viewing', 'dowsing', 'automatic_writing', 'analysis'] as const;
export type CaseType = (typeof CASE_TYPES)[number];

/** What a verified outcome says of the work: hit rates count hits (docs/history.md). */
export const VERDICTS = ['hit', 'partial', 'miss'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Where a case came from: finished work of the service, or a team's import. */
export const CASE_SOURCES = ['session', 'analysis', 'dowsing_query', 'import'] as const;
export type CaseSource = (typeof CASE_SOURCES)[number];

export interface GeoPoint {
  latitude: number;
  longitude: number;
}

/** What a verified outcome says, besides its text (PUT …/outcome and imports both record it). */
export interface VerifiedOutcome {
  verdict: Verdict;
  locationFound: boolean | null;
  /** Where the target really was. */
  coordinates: GeoPoint | null;
  verification: string | null;
  independentVerification: boolean;
  accuracyConfirmed: boolean;
  verifiedBy: string;
  verifiedAt: Date;
}

/** What really happened, as PUT /v1/history/{case_id}/outcome records it. */
export interface OutcomeInput extends VerifiedOutcome {
  outcome: string | null;
}

/** A history case as stored (`history_cases`; its generated search columns are the database's). */
export interface HistoryCase {
  organizationId: string;
  mode: Mode;
  id: string;
  sourceType: CaseSource;
  /** The session, analysis or dowsing query it records; null for an imported case. */
  sourceId: string | null;
  externalId: string | null;
  type: CaseType;
  /** Modality of a session, analysis_type of an analysis, query_type of a dowsing query. */
  subtype: string | null;
  /** How the work ended: `completed` or `failed`. */
  workStatus: 'completed' | 'failed';
  classified: boolean;
  date: Date;
  target: string;
  client: string | null;
  analysts: string[];
  durationMinutes: number | null;
  modality: string | null;
  phases: string[];
  descriptors: string[];
  description: string | null;
  /** Where the work pointed. */
  latitude: number | null;
  longitude: number | null;
  confidenceScore: number | null;
  /** The chance rate of a hit for this work, when the work knew it. */
  chanceBaseline: number | null;
  verdict: Verdict | null;
  outcome: string | null;
  locationFound: boolean | null;
  /** Where the target really was, once verified. */
  trueLatitude: number | null;
  trueLongitude: number | null;
  verification: string | null;
  independentVerification: boolean;
  accuracyConfirmed: boolean;
  verifiedBy: string | null;
  verifiedAt: Date | null;
  eventSequence: number;
  createdAt: Date;
  updatedAt: Date;
}

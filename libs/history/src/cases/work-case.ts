import type { Tenant } from '#common';
import type { JsonObject } from '#database';
import type { CaseSource } from '../history-case.js';

/**
 * What finished work puts in its history case: the mapping the work-table
 * triggers of migration 1764086400000 did in PL/pgSQL (until 1764126000000),
 * in the lib that owns the cases, written in the transaction that finishes
 * the work (`WorkCasesRepository`). Only the work's own columns: the outcome
 * recorded later on the case (verdict, verification) is the case's.
 */
export interface WorkCase {
  tenant: Tenant;
  sourceType: Exclude<CaseSource, 'import'>;
  sourceId: string;
  type: string;
  subtype: string | null;
  workStatus: string;
  classified: boolean;
  date: Date;
  target: string;
  analysts: (string | null)[];
  durationMinutes: number | null;
  modality: string | null;
  phases: string[];
  descriptors: string[];
  description: string | null;
  latitude: number | null;
  longitude: number | null;
  confidenceScore: number | null;
  chanceBaseline: number | null;
}

/** Work becomes a case once it has finished either way; earlier states are not history. */
export const FINISHED_STATUSES: readonly string[] = ['completed', 'failed'];

/** The columns of a session its case reads (SessionEntity has them all). */
export interface FinishedSession extends Tenant {
  id: string;
  type: string;
  target: string;
  modality: string | null;
  durationMinutes: number;
  privacyLevel: string;
  status: string;
  results: JsonObject | null;
  confidenceScore: number | null;
  analystId: string | null;
  failureReason: string | null;
  updatedAt: Date;
  completedAt: Date | null;
}

/** The columns of an analysis its case reads (AnalysisEntity has them all). */
export interface FinishedAnalysis extends Tenant {
  id: string;
  targetType: string;
  analysisType: string;
  description: string | null;
  latitude: number | null;
  longitude: number | null;
  status: string;
  stepsDone: number;
  steps: string[] | null;
  results: JsonObject | null;
  scoreDetails: JsonObject | null;
  confidenceScore: number | null;
  failureReason: string | null;
  failureMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** The columns of a dowsing query its case reads (DowsingQueryEntity has them all). */
export interface FinishedDowsingQuery extends Tenant {
  id: string;
  variant: string;
  queryType: string;
  question: string;
  context: JsonObject;
  status: string;
  result: JsonObject | null;
  confidence: number | null;
  failureReason: string | null;
  failureMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** Longest case target: what a search shows of a question or description. */
const TARGET_CHARACTERS = 1000;

export function sessionCase(session: FinishedSession): WorkCase {
  const results = session.results ?? {};
  const sketchDescriptions = arrayOf(results['sketches'])
    .map((sketch) => textOf(field(sketch, 'description')))
    .filter((text): text is string => text !== null);
  const insights = arrayOf(results['collaborative_insights']);
  const coordinates = field(results, 'coordinates');
  return {
    tenant: tenantOf(session),
    sourceType: 'session',
    sourceId: session.id,
    type: session.type,
    subtype: session.modality,
    workStatus: session.status,
    classified: session.privacyLevel === 'classified',
    date: session.completedAt ?? session.updatedAt,
    target: session.target,
    analysts:
      insights.length > 0
        ? insights.map((insight) => textOf(field(insight, 'analyst_id')))
        : session.analystId === null
          ? []
          : [session.analystId],
    durationMinutes: session.durationMinutes,
    modality: session.modality,
    phases:
      session.status === 'completed'
        ? ['data_collection', 'analysis', 'validation']
        : ['data_collection'],
    descriptors: textsOf(results['descriptors']),
    description:
      sketchDescriptions.length > 0
        ? sketchDescriptions.join(' ')
        : session.status === 'failed'
          ? `Failed: ${session.failureReason ?? 'unknown'}`
          : null,
    latitude: numberOf(field(coordinates, 'latitude')),
    longitude: numberOf(field(coordinates, 'longitude')),
    confidenceScore: session.confidenceScore,
    chanceBaseline: null,
  };
}

export function analysisCase(analysis: FinishedAnalysis): WorkCase {
  const results = analysis.results ?? {};
  const ended = analysis.completedAt ?? analysis.updatedAt;
  return {
    tenant: tenantOf(analysis),
    sourceType: 'analysis',
    sourceId: analysis.id,
    type: 'analysis',
    subtype: analysis.analysisType,
    workStatus: analysis.status,
    classified: false,
    date: ended,
    target: firstCharacters(
      analysis.description || `${analysis.targetType} target`,
      TARGET_CHARACTERS,
    ),
    durationMinutes: minutesBetween(analysis.createdAt, ended),
    analysts: [],
    modality: analysis.analysisType,
    phases: (analysis.steps ?? []).slice(0, Math.max(0, analysis.stepsDone)),
    descriptors: textsOf(results['descriptors']),
    description:
      textOf(results['summary']) ??
      `Failed: ${analysis.failureMessage ?? analysis.failureReason ?? 'unknown'}`,
    latitude: analysis.latitude,
    longitude: analysis.longitude,
    confidenceScore: analysis.confidenceScore,
    chanceBaseline: numberOf(field(field(analysis.scoreDetails, 'judging'), 'p0')),
  };
}

export function dowsingQueryCase(query: FinishedDowsingQuery): WorkCase {
  const result = query.result ?? {};
  const ended = query.completedAt ?? query.updatedAt;
  const location = field(query.context, 'location');
  const coordinates = field(result, 'coordinates');
  return {
    tenant: tenantOf(query),
    sourceType: 'dowsing_query',
    sourceId: query.id,
    type: 'dowsing',
    subtype: query.queryType,
    workStatus: query.status,
    classified: false,
    date: ended,
    target: firstCharacters(query.question, TARGET_CHARACTERS),
    durationMinutes: minutesBetween(query.createdAt, ended),
    analysts: [],
    modality: textOf(field(field(result, 'chart_data'), 'chart_type')) ?? query.variant,
    phases: [query.variant],
    descriptors: [],
    description:
      textOf(result['answer']) ??
      `Failed: ${query.failureMessage ?? query.failureReason ?? 'unknown'}`,
    latitude: numberOf(field(coordinates, 'latitude')) ?? numberOf(field(location, 'latitude')),
    longitude: numberOf(field(coordinates, 'longitude')) ?? numberOf(field(location, 'longitude')),
    confidenceScore: query.confidence,
    chanceBaseline: numberOf(result['baseline']),
  };
}

function tenantOf(work: Tenant): Tenant {
  return { organizationId: work.organizationId, mode: work.mode };
}

/** Whole minutes from start to end, rounded, never negative. */
function minutesBetween(start: Date, end: Date): number {
  return Math.max(0, Math.round((end.getTime() - start.getTime()) / 60_000));
}

/** The first `count` characters (code points, as PostgreSQL's `left` counts them). */
function firstCharacters(text: string, count: number): string {
  const characters = Array.from(text);
  return characters.length <= count ? text : characters.slice(0, count).join('');
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A JSON value as text (`->>`): strings as they are, other values as JSON, null as null. */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function textsOf(value: unknown): string[] {
  return arrayOf(value)
    .map(textOf)
    .filter((text): text is string => text !== null);
}

/** A JSON number, or a numeric string, as a number; anything else none. */
function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value);
    return Number.isFinite(number) ? number : null;
  }
  return null;
}

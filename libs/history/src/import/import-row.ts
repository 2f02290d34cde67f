import { freeTextIssue, singleLineTextIssue, storableTextIssue as textIssue } from '#common';
import {
  CASE_TYPES,
  VERDICTS,
  type CaseType,
  type GeoPoint,
  type VerifiedOutcome,
} from '../history-case.js';
import { parseIsoTimestamp } from './iso-timestamp.js';

/**
 * One row of a history import, checked field by field. Pure: the row comes
 * as JSON parsed it (an NDJSON line) or as the CSV reader built it from its
 * cells (csv-rows.ts), and every problem is named by its field's dotted path
 * (`location.latitude`, `analysts.3`) so the report points at it.
 */

export const MAX_EXTERNAL_ID_LENGTH = 200;
export const MAX_TARGET_LENGTH = 1000;
export const MAX_OUTCOME_LENGTH = 5000;
export const MAX_DESCRIPTION_LENGTH = 10_000;
export const MAX_VERIFICATION_LENGTH = 5000;
/** client, verified_by, modality, and each analyst, descriptor and phase. */
export const MAX_NAME_LENGTH = 200;
export const MAX_ANALYSTS = 50;
export const MAX_DESCRIPTORS = 100;
export const MAX_PHASES = 50;
/** A year of minutes: longer is a typo, not a session. */
export const MAX_DURATION_MINUTES = 525_600;
export const PRIVACY_LEVELS = ['public', 'private', 'classified'] as const;
/** How far in the future a `date` or `verified_at` may lie (clocks disagree a little). */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** What a checked row stores. */
export interface ImportedCase {
  externalId: string;
  type: CaseType;
  date: Date;
  target: string;
  outcome: string | null;
  confidenceScore: number | null;
  location: GeoPoint | null;
  client: string | null;
  analysts: string[];
  durationMinutes: number | null;
  modality: string | null;
  phases: string[];
  description: string | null;
  descriptors: string[];
  classified: boolean;
  /** The verified outcome, when the row has a `verdict`. */
  verified: VerifiedOutcome | null;
}

/**
 * What `subtype` holds for an imported case: a session's and an analysis's
 * case hold their modality there, so an import's `process.modality` does
 * too and its verified outcomes count with the service's own work of that
 * modality; a dowsing query's case holds its query type, which an import
 * does not carry, so an imported dowsing case has none.
 */
export function importedSubtype(type: CaseType, modality: string | null): string | null {
  return type === 'dowsing' ? null : modality;
}

export interface FieldIssue {
  field: string;
  issue: string;
}

export type RowCheck = { ok: true; row: ImportedCase } | { ok: false; issues: FieldIssue[] };

/** Fields a row may have; nested ones list theirs. */
const ROW_FIELDS = [
  'external_id',
  'type',
  'date',
  'target',
  'outcome',
  'confidence_score',
  'location',
  'client',
  'analysts',
  'process',
  'results',
  'descriptors',
  'privacy_level',
  'verdict',
  'location_found',
  'coordinates',
  'verification',
  'independent_verification',
  'accuracy_confirmed',
  'verified_by',
  'verified_at',
] as const;
const POINT_FIELDS = ['latitude', 'longitude'] as const;
const PROCESS_FIELDS = ['duration_minutes', 'modality', 'phases'] as const;
const RESULTS_FIELDS = ['description'] as const;
/** Recorded only with a `verdict`. */
export const OUTCOME_FIELDS = [
  'location_found',
  'coordinates',
  'verification',
  'independent_verification',
  'accuracy_confirmed',
  'verified_by',
  'verified_at',
] as const;

/** Every leaf field by its dotted path (the CSV columns), with the kind of value it holds. */
export const IMPORT_LEAF_FIELDS = {
  external_id: 'text',
  type: 'text',
  date: 'text',
  target: 'text',
  outcome: 'text',
  confidence_score: 'number',
  'location.latitude': 'number',
  'location.longitude': 'number',
  client: 'text',
  analysts: 'list',
  'process.duration_minutes': 'number',
  'process.modality': 'text',
  'process.phases': 'list',
  'results.description': 'text',
  descriptors: 'list',
  privacy_level: 'text',
  verdict: 'text',
  location_found: 'boolean',
  'coordinates.latitude': 'number',
  'coordinates.longitude': 'number',
  verification: 'text',
  independent_verification: 'boolean',
  accuracy_confirmed: 'boolean',
  verified_by: 'text',
  verified_at: 'text',
} as const satisfies Record<string, 'text' | 'number' | 'boolean' | 'list'>;
export type ImportLeafField = keyof typeof IMPORT_LEAF_FIELDS;

/** Fields every row must have (and so every CSV header). */
export const REQUIRED_IMPORT_FIELDS = ['external_id', 'type', 'date', 'target'] as const;

type Json = Record<string, unknown>;

/** Collects a row's issues while its fields are read; each reader returns null after an issue. */
class RowReader {
  readonly issues: FieldIssue[] = [];

  constructor(private readonly now: Date) {}

  fail(field: string, issue: string): null {
    this.issues.push({ field, issue });
    return null;
  }

  /** The object at `path` (the row itself for ''), its unknown fields reported; null when absent. */
  object(value: unknown, path: string, fields: readonly string[]): Json | null {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'object' || Array.isArray(value)) {
      return this.fail(path, `must be an object with ${fields.join(', ')}`);
    }
    for (const key of Object.keys(value)) {
      if (!fields.includes(key)) this.fail(join(path, key), 'is not a recognised field');
    }
    return value as Json;
  }

  text(
    value: unknown,
    field: string,
    max: number,
    options: { required?: boolean; notBlank?: boolean; freeText?: boolean } = {},
  ): string | null {
    if (value === undefined || value === null) {
      return options.required ? this.fail(field, 'is required') : null;
    }
    const bounds = `must be a string of 1 to ${max} characters`;
    if (typeof value !== 'string') return this.fail(field, bounds);
    // Only the result's description, the outcome and the verification are prose that may span lines.
    const issue =
      textIssue(value) ?? (options.freeText ? freeTextIssue(value) : singleLineTextIssue(value));
    if (issue) return this.fail(field, issue);
    if (value.length < 1 || value.length > max) return this.fail(field, bounds);
    if (options.notBlank && value.trim() === '') return this.fail(field, 'must not be blank');
    return value;
  }

  choice<T extends string>(
    value: unknown,
    field: string,
    allowed: readonly T[],
    required = false,
  ): T | null {
    if (value === undefined || value === null) {
      return required ? this.fail(field, 'is required') : null;
    }
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      return this.fail(field, `must be one of ${allowed.join(', ')}`);
    }
    return value as T;
  }

  number(value: unknown, field: string, min: number, max: number, integer = false): number | null {
    if (value === undefined || value === null) return null;
    const ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= min &&
      value <= max &&
      (!integer || Number.isInteger(value));
    if (!ok) {
      return this.fail(
        field,
        integer
          ? `must be an integer from ${min} to ${max}`
          : `must be a number from ${min} to ${max}`,
      );
    }
    return value as number;
  }

  boolean(value: unknown, field: string): boolean | null {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'boolean') return this.fail(field, 'must be true or false');
    return value;
  }

  list(value: unknown, field: string, maxItems: number, maxLength: number): string[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.fail(field, `must be an array of at most ${maxItems} strings`);
      return [];
    }
    if (value.length > maxItems) {
      this.fail(field, `must have at most ${maxItems} items`);
      return [];
    }
    const items: string[] = [];
    value.forEach((item, index) => {
      const text = this.text(item, `${field}.${index}`, maxLength, { notBlank: true });
      if (text !== null) items.push(text);
    });
    return items;
  }

  /** A timestamp not in the future: a date (`2024-03-01`, midnight UTC) or a date-time with its offset. */
  timestamp(value: unknown, field: string, required = false): Date | null {
    if (value === undefined || value === null) {
      return required ? this.fail(field, 'is required') : null;
    }
    const date = typeof value === 'string' ? parseIsoTimestamp(value) : null;
    if (date === null) {
      return this.fail(
        field,
        'must be an ISO 8601 date (2024-03-01) or date-time with its offset (2024-03-01T14:30:00Z)',
      );
    }
    if (date.getTime() > this.now.getTime() + CLOCK_SKEW_MS) {
      return this.fail(field, 'must not be in the future');
    }
    return date;
  }

  /** Both coordinates or neither. */
  point(value: unknown, path: string): GeoPoint | null {
    const point = this.object(value, path, POINT_FIELDS);
    if (point === null) return null;
    const latitude = this.number(point.latitude, `${path}.latitude`, -90, 90);
    const longitude = this.number(point.longitude, `${path}.longitude`, -180, 180);
    const has = (field: unknown) => field !== undefined && field !== null;
    if (has(point.latitude) !== has(point.longitude)) {
      const missing = has(point.latitude) ? 'longitude' : 'latitude';
      const given = has(point.latitude) ? 'latitude' : 'longitude';
      return this.fail(`${path}.${missing}`, `is required with ${path}.${given}`);
    }
    return latitude === null || longitude === null ? null : { latitude, longitude };
  }
}

/**
 * Checks one row: either the case it stores, or every issue found (all of
 * them, not only the first). `now` bounds `date` and `verified_at`.
 */
export function checkImportRow(value: unknown, now: Date): RowCheck {
  const reader = new RowReader(now);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      issues: [{ field: 'row', issue: 'must be a JSON object (one case per line)' }],
    };
  }
  const row = reader.object(value, '', ROW_FIELDS)!;
  const externalId = reader.text(row.external_id, 'external_id', MAX_EXTERNAL_ID_LENGTH, {
    required: true,
    notBlank: true,
  });
  const type = reader.choice(row.type, 'type', CASE_TYPES, true);
  const date = reader.timestamp(row.date, 'date', true);
  const target = reader.text(row.target, 'target', MAX_TARGET_LENGTH, {
    required: true,
    notBlank: true,
  });
  const outcome = reader.text(row.outcome, 'outcome', MAX_OUTCOME_LENGTH, { freeText: true });
  const confidenceScore = reader.number(row.confidence_score, 'confidence_score', 0, 1);
  const location = reader.point(row.location, 'location');
  const client = reader.text(row.client, 'client', MAX_NAME_LENGTH);
  const analysts = reader.list(row.analysts, 'analysts', MAX_ANALYSTS, MAX_NAME_LENGTH);
  const process = reader.object(row.process, 'process', PROCESS_FIELDS) ?? {};
  const durationMinutes = reader.number(
    process.duration_minutes,
    'process.duration_minutes',
    0,
    MAX_DURATION_MINUTES,
    true,
  );
  const modality = reader.text(process.modality, 'process.modality', MAX_NAME_LENGTH, {
    notBlank: true,
  });
  const phases = reader.list(process.phases, 'process.phases', MAX_PHASES, MAX_NAME_LENGTH);
  const results = reader.object(row.results, 'results', RESULTS_FIELDS) ?? {};
  const description = reader.text(
    results.description,
    'results.description',
    MAX_DESCRIPTION_LENGTH,
    { freeText: true },
  );
  const descriptors = reader.list(row.descriptors, 'descriptors', MAX_DESCRIPTORS, MAX_NAME_LENGTH);
  const privacy = reader.choice(row.privacy_level, 'privacy_level', PRIVACY_LEVELS) ?? 'public';
  const verified = checkOutcome(reader, row, date);
  if (reader.issues.length > 0) return { ok: false, issues: reader.issues };
  return {
    ok: true,
    row: {
      externalId: externalId!,
      type: type!,
      date: date!,
      target: target!,
      outcome,
      confidenceScore,
      location,
      client,
      analysts,
      durationMinutes,
      modality,
      phases,
      description,
      descriptors,
      classified: privacy === 'classified',
      verified,
    },
  };
}

/** The outcome fields: with a `verdict` they are its record; without one, each is an issue. */
function checkOutcome(reader: RowReader, row: Json, date: Date | null): VerifiedOutcome | null {
  const verdict = reader.choice(row.verdict, 'verdict', VERDICTS);
  if (row.verdict === undefined || row.verdict === null) {
    for (const field of OUTCOME_FIELDS) {
      if (row[field] !== undefined && row[field] !== null) {
        reader.fail(field, 'is an outcome field: it is recorded only with a verdict');
      }
    }
    return null;
  }
  const locationFound = reader.boolean(row.location_found, 'location_found');
  const coordinates = reader.point(row.coordinates, 'coordinates');
  const verification = reader.text(row.verification, 'verification', MAX_VERIFICATION_LENGTH, {
    freeText: true,
  });
  const independent = reader.boolean(row.independent_verification, 'independent_verification');
  const accuracy = reader.boolean(row.accuracy_confirmed, 'accuracy_confirmed');
  const verifiedBy =
    row.verified_by === undefined || row.verified_by === null
      ? reader.fail('verified_by', 'is required with verdict')
      : reader.text(row.verified_by, 'verified_by', MAX_NAME_LENGTH, { notBlank: true });
  const verifiedAt = reader.timestamp(row.verified_at, 'verified_at') ?? date;
  if (verdict === null || verifiedBy === null || verifiedAt === null) return null;
  return {
    verdict,
    locationFound,
    coordinates,
    verification,
    independentVerification: independent ?? false,
    accuracyConfirmed: accuracy ?? false,
    verifiedBy,
    verifiedAt,
  };
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

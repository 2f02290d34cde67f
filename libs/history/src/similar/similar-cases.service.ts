import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql } from '#database';
import type { GeoPoint } from '#statistics';
import type { CaseType, HistoryCase } from '../history-case.js';
import { CASE_ROWS, type HistoryCaseColumn } from '../history-rows.js';
import { similarityOf, type SimilarityComponents } from './case-similarity.js';

/** What to compare cases with: a case's own fields, or free text and more from a caller. */
export interface SimilarityProbe {
  text: string | null;
  descriptors: readonly string[];
  point: GeoPoint | null;
  date: Date | null;
  /** Only cases of this type. */
  type: CaseType | null;
  /** The probe's own case, never its own neighbour. */
  excludeId: string | null;
}

export interface SimilarCase {
  record: HistoryCase;
  similarity: number;
  components: SimilarityComponents;
  distanceKm: number | null;
}

/** Candidates each index contributes before they are scored. */
export const CANDIDATES_PER_INDEX = 100;
/** The newest cases sharing a word with the probe, of which the most alike by trigrams are candidates. */
export const WORD_SHARING_CASES = 2000;

/**
 * Similar cases from index lookups, then scored here: of the newest
 * WORD_SHARING_CASES cases sharing a word or descriptor with the probe (the
 * document's GIN index, or the date index when the words are common), the
 * targets most alike by trigrams (pg_trgm `similarity()` over those only);
 * the newest cases sharing a word; and the nearest cases (KNN `<->` on the
 * GiST index, with the point bound as a parameter: through a join it was
 * measured at 540 ms). Trigram candidates by pg_trgm's `%` on a trigram
 * index were measured at 2–5 s on a million cases: targets written alike
 * ("Where is the …?") make a probe similar to a quarter of them. Classified
 * cases are never candidates.
 */
@Injectable()
export class SimilarCasesService {
  constructor(private readonly sql: Sql) {}

  async find(tenant: Tenant, probe: SimilarityProbe, limit: number): Promise<SimilarCase[]> {
    const parameters: unknown[] = [tenant.organizationId, tenant.mode];
    const param = (value: unknown) => {
      parameters.push(value);
      return `$${parameters.length}`;
    };
    const scope = `organization_id = $1 AND mode = $2 AND NOT classified${
      probe.type === null ? '' : ` AND type = ${param(probe.type)}`
    }${probe.excludeId === null ? '' : ` AND id <> ${param(probe.excludeId)}::uuid`}`;
    const text = probe.text === null ? null : param(probe.text);
    const words = searchWords(probe);
    const lookups: string[] = [];
    if (words !== null) {
      const sharing = `SELECT id, target FROM history_cases
                        WHERE ${scope} AND document @@ websearch_to_tsquery('english', ${param(words)})
                        ORDER BY date DESC, id DESC`;
      lookups.push(`(SELECT id FROM (${sharing} LIMIT ${CANDIDATES_PER_INDEX}) AS newest)`);
      if (text !== null) {
        lookups.push(`(SELECT id FROM (${sharing} LIMIT ${WORD_SHARING_CASES}) AS sharing
                        ORDER BY similarity(target, ${text}) DESC LIMIT ${CANDIDATES_PER_INDEX})`);
      }
    }
    if (probe.point !== null) {
      lookups.push(`(SELECT id FROM history_cases WHERE ${scope} AND earth IS NOT NULL
                      ORDER BY earth <-> history_earth_point(${param(probe.point.latitude)}::float8, ${param(probe.point.longitude)}::float8)
                      LIMIT ${CANDIDATES_PER_INDEX})`);
    }
    if (lookups.length === 0) return [];
    const rows = await this.sql.rows<
      Record<HistoryCaseColumn, unknown> & { text_similarity: number | null }
    >(
      `SELECT ${CASE_ROWS.selectList},
              ${text === null ? 'NULL::float4' : `similarity(target, ${text})`} AS text_similarity
         FROM history_cases WHERE id IN (${lookups.join(' UNION ')})`,
      parameters,
    );
    const probeSide = { descriptors: probe.descriptors, point: probe.point, date: probe.date };
    return rows
      .map((row) => {
        const record = CASE_ROWS.fromRow(row);
        return { record, ...similarityOf(probeSide, sideOf(record), row.text_similarity) };
      })
      .sort(
        (a, b) => b.similarity - a.similarity || b.record.date.getTime() - a.record.date.getTime(),
      )
      .slice(0, limit);
  }
}

/** A case as one side of a comparison: its location is the verified one when known. */
export function sideOf(record: HistoryCase) {
  return {
    descriptors: record.descriptors,
    point: locationOf(record),
    date: record.date,
  };
}

export function locationOf(record: HistoryCase): GeoPoint | null {
  if (record.trueLatitude !== null && record.trueLongitude !== null) {
    return { latitude: record.trueLatitude, longitude: record.trueLongitude };
  }
  if (record.latitude !== null && record.longitude !== null) {
    return { latitude: record.latitude, longitude: record.longitude };
  }
  return null;
}

/** The probe's words and descriptors as one OR query (web-search syntax; punctuation dropped). */
function searchWords(probe: SimilarityProbe): string | null {
  const words = [probe.text ?? '', ...probe.descriptors]
    .join(' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 2 && word !== 'or');
  const distinct = [...new Set(words)].slice(0, 32);
  return distinct.length === 0 ? null : distinct.join(' OR ');
}

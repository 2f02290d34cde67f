import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable } from '#database';
import type { HistoryCase } from '../history-case.js';
import { CASE_ROWS, type HistoryCaseRow } from '../history-rows.js';
import type { SimilarityProbe } from './case-similarity.js';

/** A similar-case candidate, with the trigram similarity of its target to the probe's text. */
export interface SimilarCandidate {
  record: HistoryCase;
  /** pg_trgm similarity(); null without probe text. */
  textSimilarity: number | null;
}

/** The index lookups for similar cases on `history_cases`; SimilarCasesService scores what they find. */
@Injectable()
export class SimilarCasesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Similar-case candidates from index lookups (SimilarCasesService scores
   * them): of the newest WORD_SHARING_CASES cases sharing a word or
   * descriptor with the probe (the document's GIN index, or the date index
   * when the words are common), the targets most alike by trigrams (pg_trgm
   * `similarity()` over those only); the newest cases sharing a word; and the
   * nearest cases (KNN `<->` on the GiST index, with the point bound as a
   * parameter: through a join it was measured at 540 ms). Classified cases
   * are never candidates.
   */
  async similarCandidates(
    tenant: Tenant,
    probe: SimilarityProbe,
    words: string | null,
    limits: { perIndex: number; wordSharing: number },
    on: Queryable = this.sql,
  ): Promise<SimilarCandidate[]> {
    const parameters: unknown[] = [tenant.organizationId, tenant.mode];
    const param = (value: unknown) => {
      parameters.push(value);
      return `$${parameters.length}`;
    };
    const scope = `organization_id = $1 AND mode = $2 AND NOT classified${
      probe.type === null ? '' : ` AND type = ${param(probe.type)}`
    }${probe.excludeId === null ? '' : ` AND id <> ${param(probe.excludeId)}::uuid`}`;
    const text = probe.text === null ? null : param(probe.text);
    const lookups: string[] = [];
    if (words !== null) {
      const sharing = `SELECT id, target FROM history_cases
                        WHERE ${scope} AND document @@ websearch_to_tsquery('english', ${param(words)})
                        ORDER BY date DESC, id DESC`;
      lookups.push(`(SELECT id FROM (${sharing} LIMIT ${limits.perIndex}) AS newest)`);
      if (text !== null) {
        lookups.push(`(SELECT id FROM (${sharing} LIMIT ${limits.wordSharing}) AS sharing
                        ORDER BY similarity(target, ${text}) DESC LIMIT ${limits.perIndex})`);
      }
    }
    if (probe.point !== null) {
      lookups.push(`(SELECT id FROM history_cases WHERE ${scope} AND earth IS NOT NULL
                      ORDER BY earth <-> history_earth_point(${param(probe.point.latitude)}::float8, ${param(probe.point.longitude)}::float8)
                      LIMIT ${limits.perIndex})`);
    }
    if (lookups.length === 0) return [];
    const rows = await on.rows<HistoryCaseRow & { text_similarity: number | null }>(
      `SELECT ${CASE_ROWS.selectList},
              ${text === null ? 'NULL::float4' : `similarity(target, ${text})`} AS text_similarity
         FROM history_cases WHERE id IN (${lookups.join(' UNION ')})`,
      parameters,
    );
    return rows.map((row) => ({
      record: CASE_ROWS.fromRow(row),
      textSimilarity: row.text_similarity,
    }));
  }
}

import { Injectable } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import { countMatching, Sql } from '#database';
import type { HistoryCase } from '../history-case.js';
import { CASE_ROWS, type HistoryCaseColumn } from '../history-rows.js';
import type { CaseSearchFilters } from './case-search-filters.js';
import { searchConditions, textQuerySql } from './case-search-sql.js';

/**
 * With text, the newest this-many matches are ranked by relevance; matches
 * older than them follow, newest first. Ranking every match of a common word
 * in a large organisation (ts_rank_cd over each one's document) was measured
 * at 123 ms on a million cases; a capped window keeps a page near 10 ms.
 */
export const RANKED_WINDOW = 1000;

/** Marks around matched words in a snippet (control characters never stored in case text). */
export const MATCH_START = '\u0002';
export const MATCH_END = '\u0003';

export interface CaseHit {
  record: HistoryCase;
  /** ts_rank_cd of the case's document for the text (weights: target, then descriptors and outcome, then description); null without text. */
  relevance: number | null;
  /** An excerpt of the case's text (all of it when short) with matches between MATCH_START and MATCH_END; null without text. */
  snippet: string | null;
}

/** Where a version 2 page starts: a place in the ranked window, or after a case in date order. */
export type CaseCursor =
  { kind: 'window'; position: number } | { kind: 'after'; id: string; seen: number };

export interface CasePage {
  hits: CaseHit[];
  total: number;
  totalEstimated: boolean;
  /** Hits shown before this page. */
  before: number;
  next: CaseCursor | null;
}

interface Ranked {
  id: string;
  relevance: number | null;
}

/**
 * Searches a tenant's history (docs/history.md): version 1's offset pages
 * and version 2's cursor pages over the same order — with text, the ranked
 * window then older matches newest first; without, newest first.
 */
@Injectable()
export class CaseSearchService {
  constructor(private readonly sql: Sql) {}

  async search(
    tenant: Tenant,
    filters: CaseSearchFilters,
    page: { limit: number; offset: number },
  ): Promise<{ hits: CaseHit[]; total: number; totalEstimated: boolean }> {
    await this.assertSearchable(filters.text);
    const [ids, count] = await Promise.all([
      this.offsetPage(tenant, filters, page),
      this.count(tenant, filters),
    ]);
    return { hits: await this.read(ids, filters.text), ...count };
  }

  async page(
    tenant: Tenant,
    filters: CaseSearchFilters,
    cursor: CaseCursor | null,
    perPage: number,
  ): Promise<CasePage> {
    await this.assertSearchable(filters.text);
    const [found, count] = await Promise.all([
      this.cursorPage(tenant, filters, cursor, perPage + 1),
      this.count(tenant, filters),
    ]);
    const before = cursor === null ? 0 : cursor.kind === 'window' ? cursor.position : cursor.seen;
    const shown = found.slice(0, perPage);
    const last = shown.at(-1);
    let next: CaseCursor | null = null;
    if (found.length > perPage && last) {
      const seen = before + shown.length;
      next = last.inWindow
        ? { kind: 'window', position: seen }
        : { kind: 'after', id: last.id, seen };
    }
    return {
      hits: await this.read(shown, filters.text),
      total: count.total,
      totalEstimated: count.totalEstimated,
      before,
      next,
    };
  }

  /** Text that parses to no search terms (only operators, only words like "the") would match nothing. */
  private async assertSearchable(text: string | null): Promise<void> {
    if (text === null) return;
    const [{ nodes }] = (await this.sql.rows<{ nodes: number }>(
      `SELECT numnode(websearch_to_tsquery('english', $1)) AS nodes`,
      [text],
    )) as [{ nodes: number }];
    if (nodes === 0) {
      throw AppError.invalid(
        'q',
        'has no words to search for: only operators, punctuation or words too common to index (the, and, of…)',
      );
    }
  }

  private async count(tenant: Tenant, filters: CaseSearchFilters) {
    const { total, estimated } = await countMatching(
      (text, parameters) => this.sql.rows(text, parameters),
      {
        table: 'history_cases',
        where: searchConditions(tenant, filters),
      },
    );
    return { total, totalEstimated: estimated };
  }

  private async offsetPage(
    tenant: Tenant,
    filters: CaseSearchFilters,
    { limit, offset }: { limit: number; offset: number },
  ): Promise<Ranked[]> {
    if (filters.text === null) return this.newest(tenant, filters, { limit, offset });
    const window = await this.rankedWindow(tenant, filters);
    const ranked = window.ranked.slice(offset, offset + limit);
    if (!window.full || offset + limit <= RANKED_WINDOW) return ranked;
    const tailOffset = Math.max(offset, RANKED_WINDOW);
    return [
      ...ranked,
      ...(await this.newest(tenant, filters, {
        limit: offset + limit - tailOffset,
        offset: tailOffset,
      })),
    ];
  }

  private async cursorPage(
    tenant: Tenant,
    filters: CaseSearchFilters,
    cursor: CaseCursor | null,
    wanted: number,
  ): Promise<(Ranked & { inWindow: boolean })[]> {
    if (filters.text === null && cursor?.kind === 'window') {
      throw AppError.invalid('cursor', 'continues a search with q: send the same q with it');
    }
    if (filters.text === null || cursor?.kind === 'after') {
      const after = cursor?.kind === 'after' ? cursor.id : null;
      return (await this.newest(tenant, filters, { limit: wanted, after })).map((hit) => ({
        ...hit,
        inWindow: false,
      }));
    }
    const position = cursor?.position ?? 0;
    const window = await this.rankedWindow(tenant, filters);
    const ranked = window.ranked
      .slice(position, position + wanted)
      .map((hit) => ({ ...hit, inWindow: true }));
    if (ranked.length === wanted || !window.full) return ranked;
    const older = await this.newest(tenant, filters, {
      limit: wanted - ranked.length,
      after: window.oldestId,
    });
    return [...ranked, ...older.map((hit) => ({ ...hit, inWindow: false }))];
  }

  /**
   * The newest RANKED_WINDOW matches, ordered by relevance (ties: newest
   * first); `full` when the window is full, so older matches may follow.
   */
  private async rankedWindow(
    tenant: Tenant,
    filters: CaseSearchFilters,
  ): Promise<{ ranked: Ranked[]; full: boolean; oldestId: string | null }> {
    const where = searchConditions(tenant, filters);
    const query = textQuerySql(where, filters.text!);
    const rows = await this.sql.rows<{ id: string; relevance: number }>(
      `SELECT id, ts_rank_cd(document, ${query}) AS relevance
         FROM (SELECT id, date, document FROM history_cases WHERE ${where.sql}
                ORDER BY date DESC, id DESC LIMIT ${where.param(RANKED_WINDOW)}) AS newest
        ORDER BY date DESC, id DESC`,
      where.parameters,
    );
    // Array#sort is stable: equal relevance keeps the newest first.
    const ranked = [...rows].sort((a, b) => b.relevance - a.relevance);
    return {
      ranked,
      full: rows.length === RANKED_WINDOW,
      oldestId: rows.at(-1)?.id ?? null,
    };
  }

  /** Matches newest first, by offset or after a case (compared inside PostgreSQL, to the microsecond). */
  private async newest(
    tenant: Tenant,
    filters: CaseSearchFilters,
    page: { limit: number; offset?: number; after?: string | null },
  ): Promise<Ranked[]> {
    const where = searchConditions(tenant, filters);
    if (page.after) {
      where.and(
        `(date, id) < (SELECT date, id FROM history_cases WHERE id = ${where.param(page.after)}
                         AND organization_id = ${where.param(tenant.organizationId)} AND mode = ${where.param(tenant.mode)})`,
      );
    }
    const relevance =
      filters.text === null
        ? 'NULL::float4'
        : `ts_rank_cd(document, ${textQuerySql(where, filters.text)})`;
    return this.sql.rows<Ranked>(
      `SELECT id, ${relevance} AS relevance FROM history_cases WHERE ${where.sql}
        ORDER BY date DESC, id DESC
        LIMIT ${where.param(page.limit)}${page.offset ? ` OFFSET ${where.param(page.offset)}` : ''}`,
      where.parameters,
    );
  }

  /** The cases of a page, in its order, with their snippets when there is text. */
  private async read(page: readonly Ranked[], text: string | null): Promise<CaseHit[]> {
    if (page.length === 0) return [];
    const parameters: unknown[] = [page.map((hit) => hit.id)];
    const snippet =
      text === null
        ? 'NULL::text'
        : `ts_headline('english',
             concat_ws(' — ', target, nullif(array_to_string(descriptors, ', '), ''), outcome, description),
             websearch_to_tsquery('english', $2),
             'StartSel=${MATCH_START}, StopSel=${MATCH_END}, MaxWords=30, MinWords=12')`;
    if (text !== null) parameters.push(text);
    const rows = await this.sql.rows<
      Record<HistoryCaseColumn, unknown> & { snippet: string | null }
    >(
      `SELECT ${CASE_ROWS.selectList}, ${snippet} AS snippet FROM history_cases WHERE id = ANY($1::uuid[])`,
      parameters,
    );
    const byId = new Map(rows.map((row) => [row.id as string, row]));
    return page.flatMap((hit) => {
      const row = byId.get(hit.id);
      return row
        ? [{ record: CASE_ROWS.fromRow(row), relevance: hit.relevance, snippet: row.snippet }]
        : [];
    });
  }
}

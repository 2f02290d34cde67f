import { Injectable } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import { EXACT_COUNT_LIMIT, Sql, type Queryable } from '#database';
import type { HistoryCase } from '../history-case.js';
import { hasLocation, type CaseSearchFilters } from './case-search-filters.js';
import {
  CaseSearchRepository,
  type MatchWindow,
  type RankedCase,
} from './case-search.repository.js';

/**
 * With text, the newest this-many matches are ranked by relevance; matches
 * older than them follow, newest first. Ranking every match of a common word
 * in a large organisation (ts_rank_cd over each one's document) was measured
 * at 123 ms on a million cases; a capped window keeps a page near 10 ms.
 */
export const RANKED_WINDOW = 1000;

/**
 * A search with a circle or a box first walks the newest cases that match
 * its other filters, at most this many, and keeps those in the area: a
 * city's cases lie all over a table that grows in date order, so reading
 * them all by the GiST index and sorting them was measured at 150–450 ms on a
 * million cases, where a walk finds a page in a few milliseconds. Only when
 * the walk falls short — the area holds few cases — do the indexes answer,
 * and then they have few cases to read.
 */
export const LOCATION_WALK_ROWS = 20_000;
/** The longest walk, however deep the page (a window of 1,001 cases, a far offset). */
const MAX_LOCATION_WALK_ROWS = 100_000;

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

/**
 * Searches a tenant's history (docs/history.md): version 1's offset pages
 * and version 2's cursor pages over the same order — with text, the ranked
 * window then older matches newest first; without, newest first. Each
 * search reads from one replica that has replayed the tenant's own writes,
 * when replicas are configured (Sql.reader).
 */
@Injectable()
export class CaseSearchService {
  constructor(
    private readonly sql: Sql,
    private readonly cases: CaseSearchRepository,
  ) {}

  /** A version 1 page: `hasMore` from one case beyond it, so an estimated total never misleads it. */
  async search(
    tenant: Tenant,
    filters: CaseSearchFilters,
    page: { limit: number; offset: number },
  ): Promise<{ hits: CaseHit[]; hasMore: boolean; total: number; totalEstimated: boolean }> {
    await this.assertSearchable(filters.text);
    const sql = await this.sql.reader(tenant);
    const wanted = { limit: page.limit + 1, offset: page.offset };
    let ids: RankedCase[];
    let counted: { total: number; totalEstimated: boolean };
    if (filters.text === null) {
      [ids, counted] = await Promise.all([
        this.newest(sql, tenant, filters, wanted),
        this.count(sql, tenant, filters),
      ]);
    } else {
      const window = await this.rankedWindow(sql, tenant, filters);
      const ranked = window.ranked.slice(wanted.offset, wanted.offset + wanted.limit);
      const tailOffset = Math.max(wanted.offset, RANKED_WINDOW);
      const [tail, windowCounted] = await Promise.all([
        window.full && wanted.offset + wanted.limit > RANKED_WINDOW
          ? this.newest(sql, tenant, filters, {
              limit: wanted.offset + wanted.limit - tailOffset,
              offset: tailOffset,
            })
          : Promise.resolve([]),
        this.windowCount(sql, tenant, filters, window),
      ]);
      ids = [...ranked, ...tail];
      counted = windowCounted;
    }
    const shown = ids.slice(0, page.limit);
    const hits = await this.read(sql, tenant, shown, filters.text);
    const hasMore = ids.length > page.limit;
    // An estimate never claims fewer cases than the pages already shown.
    const total = Math.max(counted.total, page.offset + shown.length + (hasMore ? 1 : 0));
    return { hits, hasMore, total, totalEstimated: counted.totalEstimated };
  }

  async page(
    tenant: Tenant,
    filters: CaseSearchFilters,
    cursor: CaseCursor | null,
    perPage: number,
  ): Promise<CasePage> {
    await this.assertSearchable(filters.text);
    if (filters.text === null && cursor?.kind === 'window') {
      throw AppError.invalid('cursor', 'continues a search with q: send the same q with it');
    }
    const sql = await this.sql.reader(tenant);
    const wanted = perPage + 1;
    let found: (RankedCase & { inWindow: boolean })[];
    let count: { total: number; totalEstimated: boolean };
    if (filters.text === null || cursor?.kind === 'after') {
      const after = cursor?.kind === 'after' ? cursor.id : null;
      const [rows, counted] = await Promise.all([
        this.newest(sql, tenant, filters, { limit: wanted, after }),
        filters.text === null
          ? this.count(sql, tenant, filters)
          : this.rankedWindow(sql, tenant, filters).then((w) =>
              this.windowCount(sql, tenant, filters, w),
            ),
      ]);
      found = rows.map((hit) => ({ ...hit, inWindow: false }));
      count = counted;
    } else {
      const position = cursor?.position ?? 0;
      const window = await this.rankedWindow(sql, tenant, filters);
      found = window.ranked
        .slice(position, position + wanted)
        .map((hit) => ({ ...hit, inWindow: true }));
      if (found.length < wanted && window.full) {
        const older = await this.newest(sql, tenant, filters, {
          limit: wanted - found.length,
          after: window.oldestId,
        });
        found.push(...older.map((hit) => ({ ...hit, inWindow: false })));
      }
      count = await this.windowCount(sql, tenant, filters, window);
    }
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
      hits: await this.read(sql, tenant, shown, filters.text),
      ...count,
      before,
      next,
    };
  }

  /** Text that parses to no search terms (only operators, only words like "the") would match nothing. */
  private async assertSearchable(text: string | null): Promise<void> {
    if (text === null) return;
    if ((await this.cases.textQueryNodes(text)) === 0) {
      throw AppError.invalid(
        'q',
        'has no words to search for: only operators, punctuation or words too common to index (the, and, of…)',
      );
    }
  }

  /**
   * Cases matching a search without text: exact up to EXACT_COUNT_LIMIT,
   * else an estimate. With an area, a sample first — how many of the newest
   * LOCATION_WALK_ROWS cases of the other filters lie in it — so a large
   * area is estimated from its share of them rather than counted through the
   * GiST index (whose own estimate is a constant guess).
   */
  private async count(
    sql: Queryable,
    tenant: Tenant,
    filters: CaseSearchFilters,
  ): Promise<{ total: number; totalEstimated: boolean }> {
    const exact = async () => {
      const { total, estimated } = await this.cases.countMatches(tenant, filters, sql);
      return { total, totalEstimated: estimated };
    };
    if (!hasLocation(filters)) return exact();
    const { walked, matched } = await this.cases.sampleArea(
      tenant,
      filters,
      LOCATION_WALK_ROWS,
      sql,
    );
    if (walked < LOCATION_WALK_ROWS) return { total: matched, totalEstimated: false };
    const share = matched / walked;
    const estimate = Math.round(
      share * (await this.cases.plannedMatches(tenant, filters, { location: false }, sql)),
    );
    if (estimate > EXACT_COUNT_LIMIT) return { total: estimate, totalEstimated: true };
    const counted = await exact();
    return counted.totalEstimated
      ? { total: Math.max(EXACT_COUNT_LIMIT + 1, estimate), totalEstimated: true }
      : counted;
  }

  /** A text search's total from its window: exact when the window holds every match. */
  private async windowCount(
    sql: Queryable,
    tenant: Tenant,
    filters: CaseSearchFilters,
    window: { ranked: RankedCase[]; full: boolean },
  ): Promise<{ total: number; totalEstimated: boolean }> {
    if (!window.full) return { total: window.ranked.length, totalEstimated: false };
    const planned = await this.cases.plannedMatches(tenant, filters, {}, sql);
    return { total: Math.max(EXACT_COUNT_LIMIT + 1, planned), totalEstimated: true };
  }

  /**
   * The newest RANKED_WINDOW matches, ordered by relevance (ties: newest
   * first); `full` when more match, so older matches follow.
   */
  private async rankedWindow(
    sql: Queryable,
    tenant: Tenant,
    filters: CaseSearchFilters,
  ): Promise<{ ranked: RankedCase[]; full: boolean; oldestId: string | null }> {
    const rows = await this.newest(sql, tenant, filters, { limit: RANKED_WINDOW + 1 });
    const window = rows.slice(0, RANKED_WINDOW);
    // Array#sort is stable: equal relevance keeps the newest first.
    const ranked = [...window].sort((a, b) => (b.relevance ?? 0) - (a.relevance ?? 0));
    return {
      ranked,
      full: rows.length > RANKED_WINDOW,
      oldestId: window.at(-1)?.id ?? null,
    };
  }

  /**
   * Matches newest first, by offset or after a case (compared inside
   * PostgreSQL, to the microsecond), with their relevance when there is
   * text. A search with an area walks first (LOCATION_WALK_ROWS).
   */
  private async newest(
    sql: Queryable,
    tenant: Tenant,
    filters: CaseSearchFilters,
    page: MatchWindow,
  ): Promise<RankedCase[]> {
    if (hasLocation(filters)) {
      const rows = Math.min(
        MAX_LOCATION_WALK_ROWS,
        Math.max(LOCATION_WALK_ROWS, 100 * (page.limit + (page.offset ?? 0))),
      );
      const walked = await this.cases.newestMatches(tenant, filters, page, rows, sql);
      if (walked.length === page.limit) return walked;
    }
    return this.cases.newestMatches(tenant, filters, page, null, sql);
  }

  /** The cases of a page, in its order, with their snippets when there is text. */
  private async read(
    sql: Queryable,
    tenant: Tenant,
    page: readonly RankedCase[],
    text: string | null,
  ): Promise<CaseHit[]> {
    const found = await this.cases.readHits(
      tenant,
      page.map((hit) => hit.id),
      text,
      { start: MATCH_START, end: MATCH_END },
      sql,
    );
    const byId = new Map(found.map((hit) => [hit.record.id, hit]));
    return page.flatMap((hit) => {
      const read = byId.get(hit.id);
      return read ? [{ record: read.record, relevance: hit.relevance, snippet: read.snippet }] : [];
    });
  }
}

import { AppError } from '#common';
import { RANKED_WINDOW, type CaseCursor, type CasePage, type SimilarityProbe } from '#history';
import { encodeCursor, pageRequest } from '../../http/v2-list.js';
import { toSearchHit } from '../history.mapper.js';
import type { HistorySearchV2Dto } from './history-v2.dto.js';
import type { SimilaritySearchDto } from './similarity-search.dto.js';

/** A page of the v2 search in the later-generation list shape: its hits and where they stand. */
export function toSearchPageV2(found: CasePage, perPage: number): HistorySearchV2Dto {
  const number = Math.floor(found.before / perPage) + 1;
  const seen = found.before + found.hits.length;
  const total = Math.max(found.total, seen + (found.next ? 1 : 0));
  return {
    data: found.hits.map(toSearchHit),
    pagination: {
      page: number,
      per_page: perPage,
      total,
      total_estimated: found.totalEstimated,
      total_pages: Math.max(1, Math.ceil(total / perPage)),
      has_next: found.next !== null,
      has_prev: number > 1,
      next_cursor: found.next === null ? null : encodeCaseCursor(found.next),
    },
  };
}

/** A similarity-search body as the service compares cases with it: something to compare is required. */
export function toSimilarityProbe(body: SimilaritySearchDto): SimilarityProbe {
  if (body.text === undefined && !body.descriptors?.length && body.coordinates === undefined) {
    throw AppError.invalid('text', 'give text, descriptors or coordinates to compare cases with');
  }
  return {
    text: body.text?.trim() || null,
    descriptors: body.descriptors ?? [],
    point: body.coordinates ?? null,
    date: body.date === undefined ? null : new Date(body.date),
    type: body.type ?? null,
    excludeId: null,
  };
}

/**
 * A place in the ranked window (`w.<position>`, base64url-encoded so
 * clients treat it as opaque), or past it the shared v2 cursor: the last
 * case shown and how many were shown.
 */
function encodeCaseCursor(cursor: CaseCursor): string {
  return cursor.kind === 'window'
    ? Buffer.from(`w.${cursor.position}`).toString('base64url')
    : encodeCursor('history', cursor.id, cursor.seen);
}

export function parseCaseCursor(cursor: string): CaseCursor {
  const window = /^w\.(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (window) {
    const position = Number(window[1]);
    if (position > RANKED_WINDOW)
      throw AppError.invalid('cursor', 'is not a cursor this service issued');
    return { kind: 'window', position };
  }
  const { afterId, before } = pageRequest('history', { cursor, per_page: 1 });
  return { kind: 'after', id: afterId!, seen: before ?? 0 };
}
